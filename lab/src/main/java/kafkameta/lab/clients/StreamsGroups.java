package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import kafkameta.lab.truth.Json;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeStreamsGroupsOptions;
import org.apache.kafka.clients.admin.ListStreamsGroupOffsetsSpec;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.StreamsGroupSubtopologyDescription;
import org.apache.kafka.clients.admin.StreamsGroupTopologyDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;

/**
 * What Kafka's Admin client says about a streams group (KIP-1071), written to truth.jsonl, so the records a
 * streams group leaves in __consumer_offsets (its metadata, members, target and current assignments,
 * topology) can be checked against what the coordinator itself reports.
 *
 * <p>Truth lines (source "admin"):
 * <ul>
 * <li>{@code streams_describe}: group, state, group_epoch, target_assignment_epoch, topology_epoch,
 *     assignor, coordinator; members (member_id, member_epoch, topology_epoch, instance, rack, client_id,
 *     host, process_id, endpoint, client_tags, classic, active/standby/warmup: subtopology id to sorted
 *     partitions, target: the same three for the target assignment, task_offsets and task_end_offsets:
 *     "subtopology_partition" to offset); subtopologies as the coordinator keeps them (id, source_topics,
 *     repartition_sink_topics, state_changelog_topics and repartition_source_topics: topic to partition
 *     count); topology: the description the members sent (status; subtopologies with their nodes when the
 *     status is AVAILABLE, which takes a broker with group.streams.topology.description.plugin.class);</li>
 * <li>{@code committed}: group, offsets ("topic-partition" to offset), from listStreamsGroupOffsets.</li>
 * </ul>
 */
public final class StreamsGroups extends GroupAdmin<StreamsGroupDescription> {
    public StreamsGroups(Admin admin) {
        super(admin, "streams group", "describeStreamsGroups", (a, group) -> a.describeStreamsGroups(
            Collections.singleton(group), new DescribeStreamsGroupsOptions().includeTopologyDescription(true)).all());
    }

    @Override
    protected String snapshotEvent() {
        return "streams_describe";
    }

    @Override
    protected Json describeLine(String group, StreamsGroupDescription description) {
        return Json.object()
            .put("group", group)
            .put("state", String.valueOf(description.groupState()))
            .put("group_epoch", description.groupEpoch())
            .put("target_assignment_epoch", description.targetAssignmentEpoch())
            .put("topology_epoch", description.topologyEpoch())
            .put("assignor", description.assignorName())
            .put("coordinator", coordinatorId(description.coordinator()))
            .put("members", lines(description.members(), StreamsGroups::member))
            .put("subtopologies", lines(description.subtopologies(), subtopology -> Json.object()
                .put("id", subtopology.subtopologyId())
                .put("source_topics", subtopology.sourceTopics())
                .put("repartition_sink_topics", subtopology.repartitionSinkTopics())
                .put("state_changelog_topics", partitionCounts(subtopology.stateChangelogTopics()))
                .put("repartition_source_topics", partitionCounts(subtopology.repartitionSourceTopics()))))
            .put("topology", topology(description));
    }

    private static Json member(StreamsGroupMemberDescription member) {
        return Json.object()
            .put("member_id", member.memberId())
            .put("member_epoch", member.memberEpoch())
            .put("topology_epoch", member.topologyEpoch())
            .put("instance", member.instanceId())
            .put("rack", member.rackId())
            .put("client_id", member.clientId())
            .put("host", member.clientHost())
            .put("process_id", member.processId())
            .put("endpoint", member.userEndpoint().map(e -> e.host() + ":" + e.port()))
            .put("client_tags", member.clientTags())
            .put("classic", member.isClassic())
            .put("active", tasks(member.assignment().activeTasks()))
            .put("standby", tasks(member.assignment().standbyTasks()))
            .put("warmup", tasks(member.assignment().warmupTasks()))
            .put("target", assignment(member.targetAssignment()))
            .put("task_offsets", offsets(member.taskOffsets()))
            .put("task_end_offsets", offsets(member.taskEndOffsets()));
    }

    /** The group's committed offsets (listStreamsGroupOffsets), written to truth. */
    public Map<String, Long> committed(String group) {
        long asked = System.currentTimeMillis();
        return committed(group, "listStreamsGroupOffsets", asked, admin
            .listStreamsGroupOffsets(Collections.singletonMap(group, new ListStreamsGroupOffsetsSpec()))
            .partitionsToOffsetAndMetadata(group));
    }

    /**
     * Wait until the group has been Stable for `quietMs` at one group epoch with `members` members, every
     * member at the target assignment epoch and holding its target assignment, and `activeTasks` active tasks
     * held in all (none when there are no members: then the group must be Empty); then write a snapshot.
     * Fails after `timeoutMs`.
     */
    /** Settled at one group epoch: the quiet time of {@link #awaitStable} counts from its first sight. */
    @Override
    protected Object settledKey(StreamsGroupDescription description) {
        return description.groupEpoch();
    }

    @Override
    protected boolean isSettled(StreamsGroupDescription description, int members, int activeTasks) {
        GroupState state = description.groupState();
        if (members == 0) return state == GroupState.EMPTY || state == GroupState.DEAD;
        if (state != GroupState.STABLE || description.members().size() != members) return false;
        if (description.targetAssignmentEpoch() != description.groupEpoch()) return false;
        int held = 0;
        for (StreamsGroupMemberDescription member : description.members()) {
            if (member.memberEpoch() != description.targetAssignmentEpoch()) return false;
            if (!assignment(member.assignment()).toString().equals(assignment(member.targetAssignment()).toString())) {
                return false;
            }
            for (StreamsGroupMemberAssignment.TaskIds ids : member.assignment().activeTasks()) {
                held += ids.partitions().size();
            }
        }
        return held == activeTasks;
    }

    private static Json assignment(StreamsGroupMemberAssignment assignment) {
        return Json.object()
            .put("active", tasks(assignment.activeTasks()))
            .put("standby", tasks(assignment.standbyTasks()))
            .put("warmup", tasks(assignment.warmupTasks()));
    }

    private static Map<String, List<Integer>> tasks(List<StreamsGroupMemberAssignment.TaskIds> taskIds) {
        Map<String, List<Integer>> bySubtopology = new TreeMap<>();
        for (StreamsGroupMemberAssignment.TaskIds ids : taskIds) {
            List<Integer> partitions = bySubtopology.computeIfAbsent(ids.subtopologyId(), id -> new ArrayList<>());
            partitions.addAll(ids.partitions());
            Collections.sort(partitions);
        }
        return bySubtopology;
    }

    private static Map<String, Long> offsets(List<StreamsGroupMemberDescription.TaskOffset> taskOffsets) {
        Map<String, Long> byTask = new TreeMap<>();
        for (StreamsGroupMemberDescription.TaskOffset offset : taskOffsets) {
            byTask.put(offset.subtopologyId() + "_" + offset.partition(), offset.offset());
        }
        return byTask;
    }

    private static Map<String, Integer> partitionCounts(Map<String, StreamsGroupSubtopologyDescription.TopicInfo> topics) {
        Map<String, Integer> counts = new TreeMap<>();
        for (Map.Entry<String, StreamsGroupSubtopologyDescription.TopicInfo> topic : topics.entrySet()) {
            counts.put(topic.getKey(), topic.getValue().partitions());
        }
        return counts;
    }

    private static Json topology(StreamsGroupDescription description) {
        Json topology = Json.object().put("status", String.valueOf(description.topologyDescriptionStatus()));
        if (description.topologyDescription().isEmpty()) return topology;
        List<Json> subtopologies = new ArrayList<>();
        for (StreamsGroupTopologyDescription.Subtopology subtopology : description.topologyDescription().get().subtopologies()) {
            List<Json> nodes = new ArrayList<>();
            for (StreamsGroupTopologyDescription.Node node : subtopology.nodes()) nodes.add(node(node));
            subtopologies.add(Json.object().put("id", subtopology.id()).put("nodes", nodes));
        }
        return topology.put("subtopologies", subtopologies);
    }

    private static Json node(StreamsGroupTopologyDescription.Node node) {
        Json json = Json.object().put("name", node.name());
        if (node instanceof StreamsGroupTopologyDescription.Source source) {
            json.put("type", "source").put("topics", new java.util.TreeSet<>(source.topics()));
        } else if (node instanceof StreamsGroupTopologyDescription.Processor processor) {
            json.put("type", "processor").put("stores", new java.util.TreeSet<>(processor.stores()));
        } else if (node instanceof StreamsGroupTopologyDescription.Sink sink) {
            json.put("type", "sink").put("topic", sink.topic());
        } else {
            json.put("type", Objects.toString(node.getClass().getSimpleName()));
        }
        return json.put("predecessors", new java.util.TreeSet<>(node.predecessors()))
            .put("successors", new java.util.TreeSet<>(node.successors()));
    }
}
