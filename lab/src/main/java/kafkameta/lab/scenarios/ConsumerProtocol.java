package kafkameta.lab.scenarios;

/**
 * KIP-848 consumer groups (group.protocol=consumer): the same story as {@link Classic}, told with
 * ConsumerGroupHeartbeat instead of JoinGroup/SyncGroup. The broker computes the assignment, so there is no
 * client-side assignor and no "stop the world": each member moves to its target assignment on its own, and
 * the group's epoch and every member's epoch appear in the describe snapshots. Two groups, one with the
 * broker's default assignor (uniform, no group.remote.assignor), one with group.remote.assignor=range; in
 * each, a and b join, c joins in a JVM of its own, b leaves (a heartbeat with member epoch -1), c is killed
 * with SIGKILL so the coordinator fences it after group.consumer.session.timeout.ms (10 s on the lab's
 * broker), and a leaves. Each group has its own topic of 6 partitions with a trickle of records.
 *
 * <p>Member ids never change (the client makes its own, a UUID), and the "generation" a member reports in its
 * callbacks is its member epoch. A member that joins gets the group's new epoch at once but no partitions
 * another member still owns: those come one or two heartbeats later, after the owner has revoked them and
 * said so in its own heartbeat, so the truth shows the newcomer's "assigned" twice (first empty) and the
 * others' "revoked" in between.
 */
public final class ConsumerProtocol extends Scenario {
    static final int PARTITIONS = 6;

    @Override
    protected void play() throws Exception {
        group("lab-consumer-uniform", "lab-uniform-topic");
        group("lab-consumer-range", "lab-consumer-range-topic", "--remote-assignor", "range");
    }

    private void group(String group, String topic, String... assignor) throws Exception {
        joinLeaveAndExpire(group, topic, PARTITIONS, SETTLE_MS,
            with(new String[] {"--group", group, "--topics", topic, "--protocol", "consumer"}, assignor));
    }

    public static void main(String[] args) {
        run("consumer", new ConsumerProtocol());
    }
}
