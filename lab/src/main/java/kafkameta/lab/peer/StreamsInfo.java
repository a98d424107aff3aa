package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.internals.generated.SubscriptionInfoData;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.AssignmentInfo;
import org.apache.kafka.streams.processor.internals.assignment.SubscriptionInfo;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Kafka Streams' rebalance metadata through its own classes ({@code SubscriptionInfo}, {@code AssignmentInfo} of
 * org.apache.kafka.streams.processor.internals.assignment), every version 4.4 writes and reads (1 to 11):
 *
 * <ul>
 *   <li>{@code streams.subscription.encode} {version, latestSupportedVersion, processId, userEndPoint,
 *       taskOffsetSums, uniqueField, errorCode, clientTags}: {@code new SubscriptionInfo(...).encode()} (below v7 the
 *       offset sums become active and standby task sets, as Streams does);</li>
 *   <li>{@code streams.subscription.decode} {hex}: {@code SubscriptionInfo.decode} and its accessors (prevTasks,
 *       standbyTasks, taskOffsetSums...), with the fields of the generated SubscriptionInfoData it wraps; where
 *       {@code clientTags()} throws (a key given twice), {@code clientTagsError} says so;</li>
 *   <li>{@code streams.assignment.encode} {version, commonlySupportedVersion, activeTasks, standbyTasks,
 *       partitionsByHost, standbyPartitionsByHost, errCode, nextRebalanceMs}: {@code new AssignmentInfo(...)},
 *       {@code setNextRebalanceTime}, {@code encode()}; maps and sets are given in the order to write them;</li>
 *   <li>{@code streams.assignment.decode} {hex}: {@code AssignmentInfo.decode} and its accessors.</li>
 * </ul>
 * A task is {@code [subtopology, partition, topologyName or null]} (decoded ones also carry Kafka's
 * {@code TaskId.toString()}), a partition {@code [topic, partition]}, a host
 * {@code [host, port]}; a map is a list of {@code [key, value]} pairs (decoded maps in Java's iteration order).
 */
final class StreamsInfo {
    private StreamsInfo() {}

    public static void register(Peer peer) {
        peer.register("streams.subscription.encode", StreamsInfo::encodeSubscription);
        peer.register("streams.subscription.decode", StreamsInfo::decodeSubscription);
        peer.register("streams.assignment.encode", StreamsInfo::encodeAssignment);
        peer.register("streams.assignment.decode", StreamsInfo::decodeAssignment);
    }

    static JsonNode encodeSubscription(ObjectNode r) {
        Map<TaskId, Long> offsetSums = new LinkedHashMap<>();
        for (JsonNode entry : r.path("taskOffsetSums")) offsetSums.put(task(entry.get(0)), entry.get(1).asLong());
        Map<String, String> clientTags = new LinkedHashMap<>();
        for (JsonNode entry : r.path("clientTags")) clientTags.put(entry.get(0).asText(), entry.get(1).asText());
        SubscriptionInfo info = new SubscriptionInfo(
            r.path("version").asInt(),
            r.path("latestSupportedVersion").asInt(),
            new ProcessId(UUID.fromString(r.path("processId").asText())),
            Values.text(r.get("userEndPoint")),
            offsetSums,
            (byte) r.path("uniqueField").asInt(),
            r.path("errorCode").asInt(),
            clientTags);
        return Peer.JSON.createObjectNode().put("hex", Hex.of(info.encode()));
    }

    static JsonNode decodeSubscription(ObjectNode r) throws Exception {
        ByteBuffer bytes = Hex.buffer(r.path("hex").asText());
        SubscriptionInfo info = SubscriptionInfo.decode(bytes);
        ObjectNode out = Peer.JSON.createObjectNode()
            .put("version", info.version())
            .put("latestSupportedVersion", info.latestSupportedVersion())
            .put("remaining", bytes.remaining());
        if (info.version() > SubscriptionInfoData.HIGHEST_SUPPORTED_VERSION) return out; // a version probe: no more
        out.put("processId", info.processId().id().toString())
            .put("userEndPoint", info.userEndPoint())
            .put("errorCode", info.errorCode());
        out.set("prevTasks", tasks(info.prevTasks()));
        out.set("standbyTasks", tasks(info.standbyTasks()));
        ArrayNode sums = out.putArray("taskOffsetSums");
        for (Map.Entry<TaskId, Long> e : info.taskOffsetSums().entrySet()) sums.addArray().add(task(e.getKey())).add(e.getValue());
        try {
            Map<String, String> clientTags = info.clientTags();
            ArrayNode tags = out.putArray("clientTags");
            for (Map.Entry<String, String> e : clientTags.entrySet()) tags.addArray().add(e.getKey()).add(e.getValue());
        } catch (IllegalStateException e) {
            // the accessor's own failure (a key given twice), after decode succeeded: reported as such
            out.put("clientTagsError", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        out.set("data", data((SubscriptionInfoData) dataField().get(info)));
        return out;
    }

    /**
     * The generated SubscriptionInfoData the class wraps, field by field through its accessors (Streams generates no
     * JsonConverter for it), in the converter's form: JSON names, bytes as base64, the uuid as Kafka prints it.
     * Every field is written, whatever the version: the caller keeps those of the version it compares.
     */
    static ObjectNode data(SubscriptionInfoData data) {
        ObjectNode out = Peer.JSON.createObjectNode()
            .put("version", data.version())
            .put("latestSupportedVersion", data.latestSupportedVersion())
            .put("processId", data.processId().toString())
            .put("userEndPoint", data.userEndPoint())
            .put("uniqueField", data.uniqueField())
            .put("errorCode", data.errorCode());
        ArrayNode prev = out.putArray("prevTasks");
        for (SubscriptionInfoData.TaskId t : data.prevTasks()) {
            prev.addObject().put("topicGroupId", t.topicGroupId()).put("partition", t.partition());
        }
        ArrayNode standby = out.putArray("standbyTasks");
        for (SubscriptionInfoData.TaskId t : data.standbyTasks()) {
            standby.addObject().put("topicGroupId", t.topicGroupId()).put("partition", t.partition());
        }
        ArrayNode sums = out.putArray("taskOffsetSums");
        for (SubscriptionInfoData.TaskOffsetSum t : data.taskOffsetSums()) {
            ObjectNode sum = sums.addObject().put("topicGroupId", t.topicGroupId()).put("partition", t.partition())
                .put("offsetSum", t.offsetSum()).put("namedTopology", t.namedTopology());
            ArrayNode partitions = sum.putArray("partitionToOffsetSum");
            for (SubscriptionInfoData.PartitionToOffsetSum p : t.partitionToOffsetSum()) {
                partitions.addObject().put("partition", p.partition()).put("offsetSum", p.offsetSum());
            }
        }
        ArrayNode tags = out.putArray("clientTags");
        for (SubscriptionInfoData.ClientTag t : data.clientTags()) tags.addObject().put("key", t.key()).put("value", t.value());
        return out;
    }

    static JsonNode encodeAssignment(ObjectNode r) {
        List<TaskId> active = new ArrayList<>();
        for (JsonNode t : r.path("activeTasks")) active.add(task(t));
        Map<TaskId, Set<TopicPartition>> standby = new LinkedHashMap<>();
        for (JsonNode e : r.path("standbyTasks")) standby.put(task(e.get(0)), new LinkedHashSet<>(Values.partitions(e.get(1))));
        AssignmentInfo info = new AssignmentInfo(
            r.path("version").asInt(),
            r.path("commonlySupportedVersion").asInt(),
            active,
            standby,
            hostMap(r.path("partitionsByHost")),
            hostMap(r.path("standbyPartitionsByHost")),
            r.path("errCode").asInt());
        if (r.has("nextRebalanceMs")) info.setNextRebalanceTime(r.path("nextRebalanceMs").asLong());
        return Peer.JSON.createObjectNode().put("hex", Hex.of(info.encode()));
    }

    static JsonNode decodeAssignment(ObjectNode r) {
        ByteBuffer bytes = Hex.buffer(r.path("hex").asText());
        AssignmentInfo info = AssignmentInfo.decode(bytes);
        ObjectNode out = Peer.JSON.createObjectNode()
            .put("version", info.version())
            .put("commonlySupportedVersion", info.commonlySupportedVersion())
            .put("errCode", info.errCode())
            .put("nextRebalanceMs", info.nextRebalanceMs());
        ArrayNode active = out.putArray("activeTasks");
        for (TaskId t : info.activeTasks()) active.add(task(t));
        ArrayNode standby = out.putArray("standbyTasks");
        for (Map.Entry<TaskId, Set<TopicPartition>> e : info.standbyTasks().entrySet()) {
            standby.addArray().add(task(e.getKey())).add(Values.json(e.getValue()));
        }
        out.set("partitionsByHost", hostJson(info.partitionsByHost()));
        out.set("standbyPartitionsByHost", hostJson(info.standbyPartitionByHost()));
        return out;
    }

    static TaskId task(JsonNode t) {
        return new TaskId(t.get(0).asInt(), t.get(1).asInt(), Values.text(t.get(2)));
    }

    /** A task as {@code [subtopology, partition, topologyName, toString()]}. */
    static ArrayNode task(TaskId t) {
        return Peer.JSON.createArrayNode().add(t.subtopology()).add(t.partition()).add(t.topologyName()).add(t.toString());
    }

    static ArrayNode tasks(Collection<TaskId> tasks) {
        ArrayNode out = Peer.JSON.createArrayNode();
        for (TaskId t : tasks) out.add(task(t));
        return out;
    }

    static Map<HostInfo, Set<TopicPartition>> hostMap(JsonNode entries) {
        Map<HostInfo, Set<TopicPartition>> out = new LinkedHashMap<>();
        for (JsonNode e : entries) {
            HostInfo host = new HostInfo(e.get(0).get(0).asText(), e.get(0).get(1).asInt());
            out.put(host, new LinkedHashSet<>(Values.partitions(e.get(1))));
        }
        return out;
    }

    static ArrayNode hostJson(Map<HostInfo, Set<TopicPartition>> map) {
        ArrayNode out = Peer.JSON.createArrayNode();
        if (map == null) return out;
        for (Map.Entry<HostInfo, Set<TopicPartition>> e : map.entrySet()) {
            ArrayNode entry = out.addArray();
            entry.addArray().add(e.getKey().host()).add(e.getKey().port());
            entry.add(Values.json(e.getValue()));
        }
        return out;
    }

    private static Field dataField() throws NoSuchFieldException {
        Field field = SubscriptionInfo.class.getDeclaredField("data");
        field.setAccessible(true);
        return field;
    }
}
