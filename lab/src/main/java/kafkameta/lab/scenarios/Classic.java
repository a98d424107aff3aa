package kafkameta.lab.scenarios;

import java.util.List;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.clients.Member;

/**
 * Classic groups (JoinGroup/SyncGroup), first under the range assignor, then under cooperative-sticky: three
 * members join one by one, one leaves (LeaveGroup), one is killed with SIGKILL so the coordinator expires it
 * after its session timeout (10 s), and the last one leaves. Each group has its own topic of 6 partitions,
 * with a trickle of records that the members commit.
 */
public final class Classic extends Scenario {
    static final int PARTITIONS = 6;
    static final long SETTLE_MS = 60_000;

    Classic() {
        super("classic");
    }

    @Override
    protected void play() throws Exception {
        group("lab-classic-range", "lab-range-topic", "range");
        group("lab-classic-coop", "lab-coop-topic", "cooperative-sticky");
    }

    private void group(String group, String topic, String assignor) throws Exception {
        createTopic(topic, PARTITIONS);
        load(List.of(topic), 5);
        String[] common = {"--group", group, "--topics", topic, "--assignors", assignor, "--session-ms", "10000"};

        step(group + ": a joins", group, "join", "a");
        Member a = member(with(common, "--name", group + "-a"));
        groups.awaitStable(group, 1, PARTITIONS, SETTLE_MS);
        pause(2000);

        step(group + ": b joins", group, "join", "b");
        Member b = member(with(common, "--name", group + "-b"));
        groups.awaitStable(group, 2, PARTITIONS, SETTLE_MS);
        pause(2000);

        step(group + ": c joins", group, "join", "c");
        JavaProcess c = memberProcess(with(common, "--name", group + "-c"));
        groups.awaitStable(group, 3, PARTITIONS, SETTLE_MS);
        pause(3000);
        groups.committed(group);

        step(group + ": b leaves", group, "leave", "b");
        b.stop();
        groups.awaitStable(group, 2, PARTITIONS, SETTLE_MS);
        pause(2000);

        step(group + ": c is killed", group, "kill", "c");
        c.kill9();
        groups.awaitStable(group, 1, PARTITIONS, SETTLE_MS);
        pause(2000);
        groups.committed(group);

        step(group + ": a leaves", group, "stop", "a");
        a.stop();
        groups.awaitStable(group, 0, PARTITIONS, SETTLE_MS);
        groups.committed(group);
    }

    static String[] with(String[] common, String... more) {
        String[] all = new String[common.length + more.length];
        System.arraycopy(common, 0, all, 0, common.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }

    public static void main(String[] args) {
        run(new Classic());
    }
}
