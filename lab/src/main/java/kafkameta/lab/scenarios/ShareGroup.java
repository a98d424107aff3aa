package kafkameta.lab.scenarios;

import java.util.List;
import java.util.Map;
import kafkameta.lab.clients.ShareGroups;
import kafkameta.lab.clients.ShareMember;

/**
 * A share group (KIP-932, on by default in Kafka 4.4 through the share.version feature): members share the
 * records of a topic's partitions and acknowledge them one by one, instead of owning partitions and committing
 * offsets. The group's share.auto.offset.reset is set to earliest (a dynamic GROUP config, set with
 * incrementalAlterConfigs before any member exists), so the records the load wrote before the first member
 * joined are delivered too. On a topic of 3 partitions with a trickle of records, share consumers a and b
 * join (ShareGroupHeartbeat; the broker's assignor spreads the partitions), b leaves, then a leaves; each
 * member acknowledges every record it receives in explicit acknowledgement mode, with each of the three kinds
 * (kafkameta.lab.clients.ShareMember#acknowledgement: ACCEPT most, RELEASE some on their first delivery, so
 * they come again with delivery count 2, REJECT some, which are archived), and commits the acknowledgements
 * after every poll (ShareAcknowledge, or piggy-backed on ShareFetch). The share coordinator writes the
 * share-partitions' state to __share_group_state: a ShareSnapshot when a partition's state is initialized,
 * then a ShareUpdate for each change of its in-flight records (their delivery states and counts).
 *
 * <p>The first member gets an epoch with no partitions: the group coordinator assigns a topic's partitions
 * only once the share coordinator has initialized their state (InitializeShareGroupState, which the broker
 * sends to itself, so it is in the capture), a few seconds later. A record b had acquired but not yet
 * acknowledged when it left is released and may come to a again, with delivery count 2.
 *
 * <p>Truth: a describe snapshot (state, group epoch, target assignment epoch, members with their assignments)
 * and the share-partition start offsets after each phase. New events:
 * <ul>
 *   <li>"group_config" (source admin): group, configs ({name: value} as describeConfigs reports them after the
 *       change).</li>
 *   <li>"share_poll" (source: the member): group, records, received ({partition: [offsets]}), redelivered
 *       (["partition@offset"] of records delivered more than once), released and rejected ({partition: [offsets]}
 *       acknowledged with RELEASE and REJECT; the rest with ACCEPT), acknowledged ({partition: records
 *       acknowledged and committed}), errors ({partition: error} of acknowledgements refused).</li>
 *   <li>"share_offsets" (source admin): group, start_offsets ({partition: share-partition start offset}), lag
 *       ({partition: lag}), from listShareGroupOffsets.</li>
 * </ul>
 */
public final class ShareGroup extends Scenario {
    static final String GROUP = "lab-share";
    static final String TOPIC = "lab-share-topic";
    static final int PARTITIONS = 3;

    private final ShareGroups shareGroups = new ShareGroups(admin);

    @Override
    protected void play() throws Exception {
        loadedTopic(TOPIC, PARTITIONS, 3);
        step("share.auto.offset.reset=earliest for " + GROUP);
        shareGroups.configure(GROUP, Map.of("share.auto.offset.reset", "earliest"));
        pause(2000);

        step("a joins", GROUP, "join", "a");
        ShareMember a = shareMember("lab-share-a");
        shareGroups.awaitStable(GROUP, 1, PARTITIONS, SETTLE_MS);
        pause(3000);
        shareGroups.offsets(GROUP);

        step("b joins", GROUP, "join", "b");
        ShareMember b = shareMember("lab-share-b");
        shareGroups.awaitStable(GROUP, 2, PARTITIONS, SETTLE_MS);
        pause(3000);
        shareGroups.offsets(GROUP);

        step("b leaves", GROUP, "leave", "b");
        b.stop();
        shareGroups.awaitStable(GROUP, 1, PARTITIONS, SETTLE_MS);
        pause(3000);
        shareGroups.offsets(GROUP);

        step("a leaves", GROUP, "stop", "a");
        a.stop();
        shareGroups.awaitStable(GROUP, 0, PARTITIONS, SETTLE_MS);
        shareGroups.offsets(GROUP);
    }

    private ShareMember shareMember(String name) {
        return closeAtEnd(new ShareMember(bootstrap, GROUP, name, List.of(TOPIC))).start();
    }

    public static void main(String[] args) {
        run("share", new ShareGroup());
    }
}
