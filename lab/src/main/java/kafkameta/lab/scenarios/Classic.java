package kafkameta.lab.scenarios;

/**
 * Classic groups (JoinGroup/SyncGroup), first under the range assignor, then under cooperative-sticky: three
 * members join one by one, one leaves (LeaveGroup), one is killed with SIGKILL so the coordinator expires it
 * after its session timeout (10 s), and the last one leaves. Each group has its own topic of 6 partitions,
 * with a trickle of records that the members commit.
 */
public final class Classic extends Scenario {
    static final int PARTITIONS = 6;
    static final long SETTLE_MS = 60_000;

    @Override
    protected void play() throws Exception {
        group("lab-classic-range", "lab-range-topic", "range");
        group("lab-classic-coop", "lab-coop-topic", "cooperative-sticky");
    }

    private void group(String group, String topic, String assignor) throws Exception {
        joinLeaveAndExpire(group, topic, PARTITIONS, SETTLE_MS,
            "--group", group, "--topics", topic, "--assignors", assignor, "--session-ms", "10000");
    }

    public static void main(String[] args) {
        run("classic", new Classic());
    }
}
