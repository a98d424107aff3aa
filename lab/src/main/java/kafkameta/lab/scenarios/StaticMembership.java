package kafkameta.lab.scenarios;

import java.util.List;
import kafkameta.lab.clients.Member;

/**
 * Static membership (KIP-345) in a classic group under the range assignor: three members with
 * group.instance.id lab-static-1..3 and a 10 s session timeout share a topic of 6 partitions.
 *
 * <ol>
 *   <li>All three join (one rebalance, after the coordinator's initial delay).</li>
 *   <li>Member 1 restarts within its session timeout: closed, started again 2 s later with the same
 *       group.instance.id. The coordinator swaps the old member id for the new one and hands back the
 *       assignment of the current generation: no rebalance, the generation stays, only the member id changes,
 *       and the truth shows member 1 assigned the partitions it had. Member 1 is usually the group's leader
 *       (it joins first); a returning static leader gets a JoinGroup response with skip_assignment set, and
 *       its client logs "Skipped assignment for returning static leader".</li>
 *   <li>Member 2 stays away 16 s, past its session timeout: the coordinator removes it (a rebalance, two
 *       members), then it joins again (another rebalance, three members).</li>
 *   <li>Member 3 is bounced past its session timeout twice in a row: the "static member bounced past its
 *       session timeout" storm, two rebalances per bounce.</li>
 *   <li>All leave, one after the other, with {@code close(CloseOptions.groupMembershipOperation(LEAVE_GROUP))}.</li>
 * </ol>
 *
 * <p>What Kafka 4.4's KafkaConsumer does on close (classic protocol): {@code close()} uses
 * {@code GroupMembershipOperation.DEFAULT}, under which {@code AbstractCoordinator} sends a LeaveGroup only for
 * a dynamic member. A static member's {@code close()} therefore sends no LeaveGroup: it invokes
 * onPartitionsRevoked for what it owns (the member commits there), and the coordinator keeps it in the group
 * until it rejoins or its session times out (the client still logs "Resetting generation and member id due
 * to: consumer pro-actively leaving the group"). Only {@code LEAVE_GROUP} (KIP-1092) makes a static member
 * send LeaveGroup (v5, reason "the consumer is being closed"); its member identity carries the member id and
 * a null group.instance.id, and the coordinator removes the static member by that member id. The last phase
 * uses it so the group ends Empty without waiting for three session timeouts.
 *
 * <p>Truth: the "closed" lines of the members carry "membership" (DEFAULT or LEAVE_GROUP), the close option
 * used.
 */
public final class StaticMembership extends Scenario {
    static final String GROUP = "lab-static";
    static final String TOPIC = "lab-static-topic";
    static final int PARTITIONS = 6;
    static final long WITHIN_SESSION_MS = 2_000;
    static final long PAST_SESSION_MS = 16_000;

    private final Member[] members = new Member[4];

    @Override
    protected void play() throws Exception {
        loadedTopic(TOPIC, PARTITIONS, 3);

        step("all three join", GROUP, "join", "lab-static-1,lab-static-2,lab-static-3");
        for (int n = 1; n <= 3; n++) start(n);
        for (int n = 1; n <= 3; n++) members[n].awaitAssignments(1, SETTLE_MS);
        groups.awaitStable(GROUP, 3, PARTITIONS, SETTLE_MS);
        pause(2000);
        groups.committed(GROUP);

        step("member 1 restarts within the session timeout", GROUP, "restart-within-timeout", "lab-static-1");
        members[1].stop();
        pause(WITHIN_SESSION_MS);
        start(1).awaitAssignments(1, SETTLE_MS);
        groups.awaitStable(GROUP, 3, PARTITIONS, SETTLE_MS);
        pause(2000);
        groups.committed(GROUP);

        bouncePastSessionTimeout(2, "member 2 is stopped past its session timeout");
        bouncePastSessionTimeout(3, "member 3 is bounced past its session timeout (1 of 2)");
        bouncePastSessionTimeout(3, "member 3 is bounced past its session timeout (2 of 2)");

        step("all leave", GROUP, "stop", "lab-static-1,lab-static-2,lab-static-3");
        for (int n = 3; n >= 1; n--) {
            members[n].leave();
            groups.awaitStable(GROUP, n - 1, PARTITIONS, SETTLE_MS);
        }
        groups.committed(GROUP);
    }

    /** Stop member n, let the coordinator expire it and rebalance, start it again once PAST_SESSION_MS passed. */
    private void bouncePastSessionTimeout(int n, String what) throws InterruptedException {
        step(what, GROUP, "restart-past-timeout", "lab-static-" + n);
        members[n].stop();
        long stopped = System.currentTimeMillis();
        groups.awaitStable(GROUP, 2, PARTITIONS, SETTLE_MS);
        groups.committed(GROUP);
        pause(Math.max(0, stopped + PAST_SESSION_MS - System.currentTimeMillis()));

        step(what + ": it starts again", GROUP, "return", "lab-static-" + n);
        start(n).awaitAssignments(1, SETTLE_MS);
        groups.awaitStable(GROUP, 3, PARTITIONS, SETTLE_MS);
        pause(2000);
        groups.committed(GROUP);
    }

    private Member start(int n) {
        members[n] = member("--group", GROUP, "--topics", TOPIC, "--assignors", "range", "--session-ms", "10000",
            "--name", "lab-static-" + n, "--instance", "lab-static-" + n);
        return members[n];
    }

    public static void main(String[] args) {
        run("static", new StaticMembership());
    }
}
