package kafkameta.lab.scenarios;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.clients.StreamsGroups;
import kafkameta.lab.truth.Json;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;

/**
 * A Kafka Streams application on a streams group (KIP-1071, group.protocol=streams, which Kafka 4.4 enables
 * by default): the broker, not a group leader, holds the topology and computes the assignment of tasks, and
 * the records it keeps in __consumer_offsets are those of a streams group. Two WordCount instances on 4.4.0:
 * a joins, b joins, b leaves, a leaves (a streams group member leaves on close). The group is configured with
 * one standby replica (group config streams.num.standby.replicas), so assignments carry standby tasks too.
 *
 * <p>After each phase, once the group has been Stable for {@value #QUIET_MS} ms with every member at the target
 * assignment epoch and every active task held (Empty at the end), the scenario writes the Admin client's
 * describeStreamsGroups snapshot ({@code streams_describe}), lets the members process for {@value #PROCESS_MS}
 * ms, and writes the group's committed offsets ({@code committed}); see kafkameta.lab.clients.StreamsGroups.
 * The snapshot's topology is the one the coordinator keeps (subtopologies with their source, repartition and
 * changelog topics); the members' full topology description is reported NOT_STORED, as the broker stores it
 * only with a group.streams.topology.description.plugin.class, which the lab's broker does not set. Truth line
 * of its own (source "streams-group"): {@code group_config} (group, name, value).
 */
public final class StreamsGroup extends StreamsScenario {
    static final String APP = "lab-wordcount-streams";
    static final long SETTLE_MS = 120_000;
    static final long QUIET_MS = 3_000;
    /** How long the members process before the committed offsets are read (commit.interval.ms is 5 s). */
    static final long PROCESS_MS = 6_000;

    private final StreamsGroups streamsGroups = new StreamsGroups(admin);

    @Override
    protected void play() throws Exception {
        createTopics();
        groupConfig("streams.num.standby.replicas", "1");
        sentences(2);
        String[] streams = {"--protocol", "streams"};

        step("streams-a joins");
        JavaProcess a = instance(APP, "streams-a", CURRENT, streams);
        settle(1);

        step("streams-b joins");
        JavaProcess b = instance(APP, "streams-b", CURRENT, streams);
        settle(2);

        step("streams-b leaves");
        b.stop();
        settle(1);

        step("streams-a leaves");
        a.stop();
        settle(0);
    }

    private void settle(int members) throws InterruptedException {
        streamsGroups.awaitStable(APP, members, members == 0 ? 0 : ACTIVE_TASKS, QUIET_MS, SETTLE_MS);
        if (members > 0) pause(PROCESS_MS);
        streamsGroups.committed(APP);
    }

    private void groupConfig(String name, String value) throws Exception {
        ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, APP);
        Map<ConfigResource, java.util.Collection<AlterConfigOp>> change = Collections.singletonMap(group,
            List.of(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(change).all().get();
        truth.record("streams-group", "group_config", Json.object().put("group", APP).put("name", name).put("value", value));
    }

    public static void main(String[] args) {
        run("streams-group", new StreamsGroup());
    }
}
