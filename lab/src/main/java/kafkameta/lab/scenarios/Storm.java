package kafkameta.lab.scenarios;

import java.util.List;
import kafkameta.lab.clients.Member;

/**
 * A rebalance storm with no change of membership: a classic group under the range assignor, a topic of 4
 * partitions, members a and b. Member b has max.poll.interval.ms 5000 but takes 7000 ms over every non-empty
 * batch, so its poll timer expires while it processes: its heartbeat thread sends LeaveGroup with the reason
 * "consumer poll timeout has expired." (the group rebalances to a alone), its commit after the batch fails
 * with CommitFailedException, and at its next poll it loses its partitions (onPartitionsLost) and joins again
 * with a new member id (the group rebalances back to two members). In the JoinGroup requests, b's reason is
 * "consumer pro-actively leaving the group" and a's "group is already rebalancing". The scenario lets that
 * happen four times after b's first assignment, then stops both (a stop cuts b's batch short, so b closes
 * while still a member and leaves with the ordinary LeaveGroup of a close). Every cycle is two rebalances,
 * with the same two members before and after: nothing an operator did, and nothing that ends by itself.
 *
 * <p>Truth: b's "slow_batch" lines (group, ms, records) mark each batch it spends 7000 ms on.
 */
public final class Storm extends Scenario {
    static final String GROUP = "lab-storm";
    static final String TOPIC = "lab-storm-topic";
    static final int PARTITIONS = 4;
    static final int REJOINS = 4;

    @Override
    protected void play() throws Exception {
        loadedTopic(TOPIC, PARTITIONS, 4);
        String[] common = {"--group", GROUP, "--topics", TOPIC, "--assignors", "range", "--session-ms", "10000"};

        step("a and b join", GROUP, "join", "lab-storm-a,lab-storm-b");
        Member a = member(with(common, "--name", "lab-storm-a"));
        Member b = member(with(common, "--name", "lab-storm-b", "--max-poll-ms", "5000",
            "--process-ms", "7000"));
        b.awaitAssignments(1, SETTLE_MS);
        groups.awaitStable(GROUP, 2, PARTITIONS, SETTLE_MS);
        groups.committed(GROUP);

        for (int rejoin = 1; rejoin <= REJOINS; rejoin++) {
            step("b outlasts max.poll.interval.ms and rejoins (" + rejoin + " of " + REJOINS + ")", GROUP, "poll-timeout",
                "lab-storm-b");
            b.awaitAssignments(1 + rejoin, SETTLE_MS);
            groups.awaitStable(GROUP, 2, PARTITIONS, SETTLE_MS);
            groups.committed(GROUP);
        }

        step("both stop", GROUP, "stop", "lab-storm-a,lab-storm-b");
        b.stop();
        a.stop();
        groups.awaitStable(GROUP, 0, PARTITIONS, SETTLE_MS);
        groups.committed(GROUP);
    }

    public static void main(String[] args) {
        run("storm", new Storm());
    }
}
