package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.internals.generated.SubscriptionInfoData;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.AssignmentInfo;
import org.apache.kafka.streams.processor.internals.assignment.AssignorError;
import org.apache.kafka.streams.processor.internals.assignment.SubscriptionInfo;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Values built the way Kafka's own code builds them, through its public constructors and APIs, and written: the
 * counterpart of models built by hand. A request names only the arguments a caller gives; for each one left out the
 * op takes Kafka's own default: the shorter constructor where Kafka has one, else the value Kafka's own code
 * passes for "nothing" (a null endpoint, an empty map, {@code AssignorError.NONE}, the generated data class's
 * default), so that a default of the project's models is compared with Kafka's, not with the caller's idea of it.
 *
 * <ul>
 *   <li>{@code constructed.consumer.subscription} {topics, userData?, ownedPartitions?, generationId?, rackId?,
 *       version?}: {@code new Subscription(...)} (one to five arguments), {@code ConsumerProtocol.serializeSubscription}
 *       (without a version: the one-argument form, the newest version);</li>
 *   <li>{@code constructed.consumer.assignment} {partitions, userData?, version?}: the same for {@code Assignment};</li>
 *   <li>{@code constructed.sticky} {partitions, generation?}: a {@code StickyAssignor} told of its assignment,
 *       with a {@code ConsumerGroupMetadata} of that generation (left out: {@code new ConsumerGroupMetadata(groupId)}),
 *       then {@code subscriptionUserData};</li>
 *   <li>{@code constructed.cooperative} {generation?}: a {@code CooperativeStickyAssignor}'s
 *       {@code subscriptionUserData}, told of the generation first (left out: a fresh assignor, told nothing);</li>
 *   <li>{@code constructed.streams.subscription} {version, latestSupportedVersion?, processId, userEndPoint?,
 *       taskOffsetSums?, uniqueField?, errorCode?, clientTags?}: {@code new SubscriptionInfo(...).encode()};</li>
 *   <li>{@code constructed.streams.assignment} {version, commonlySupportedVersion?, activeTasks?, standbyTasks?,
 *       partitionsByHost?, standbyPartitionsByHost?, errCode?, nextRebalanceMs?}: {@code new AssignmentInfo(...)}
 *       (without commonlySupportedVersion the constructor that has none; with it and nothing else the two-argument
 *       one), {@code setNextRebalanceTime} when given, {@code encode()}.</li>
 * </ul>
 * Each answers {hex}. A task is {@code [subtopology, partition]} ({@code new TaskId(a, b)}) or
 * {@code [subtopology, partition, topologyName]}; a partition {@code [topic, partition]}; a host {@code [host, port]};
 * a map a list of {@code [key, value]} pairs, given to Kafka as a LinkedHashMap (and sets as LinkedHashSets) in that
 * order: where Kafka's writer orders by a hash container of its own, the order is its own.
 */
final class Constructed {
    private Constructed() {}

    public static void register(Peer peer) {
        peer.register("constructed.consumer.subscription", Constructed::subscription);
        peer.register("constructed.consumer.assignment", Constructed::assignment);
        peer.register("constructed.sticky", Constructed::sticky);
        peer.register("constructed.cooperative", Constructed::cooperative);
        peer.register("constructed.streams.subscription", Constructed::subscriptionInfo);
        peer.register("constructed.streams.assignment", Constructed::assignmentInfo);
    }

    private static boolean given(ObjectNode r, String name) {
        return r.has(name);
    }

    private static ObjectNode hex(ByteBuffer buffer) {
        return Peer.JSON.createObjectNode().put("hex", Hex.of(buffer));
    }

    static JsonNode subscription(ObjectNode r) {
        List<String> topics = Values.strings(r.path("topics"));
        Subscription subscription;
        if (given(r, "generationId") || given(r, "rackId")) {
            subscription = new Subscription(topics, Values.bytes(r.get("userData")),
                Values.partitions(r.path("ownedPartitions")),
                given(r, "generationId") ? r.get("generationId").asInt() : AbstractStickyAssignor.DEFAULT_GENERATION,
                Optional.ofNullable(Values.text(r.get("rackId"))));
        } else if (given(r, "ownedPartitions")) {
            subscription = new Subscription(topics, Values.bytes(r.get("userData")),
                Values.partitions(r.path("ownedPartitions")));
        } else if (given(r, "userData")) {
            subscription = new Subscription(topics, Values.bytes(r.get("userData")));
        } else {
            subscription = new Subscription(topics);
        }
        return hex(given(r, "version")
            ? ConsumerProtocol.serializeSubscription(subscription, (short) r.get("version").asInt())
            : ConsumerProtocol.serializeSubscription(subscription));
    }

    static JsonNode assignment(ObjectNode r) {
        List<TopicPartition> partitions = Values.partitions(r.path("partitions"));
        Assignment assignment = given(r, "userData")
            ? new Assignment(partitions, Values.bytes(r.get("userData")))
            : new Assignment(partitions);
        return hex(given(r, "version")
            ? ConsumerProtocol.serializeAssignment(assignment, (short) r.get("version").asInt())
            : ConsumerProtocol.serializeAssignment(assignment));
    }

    static JsonNode sticky(ObjectNode r) {
        StickyAssignor assignor = new StickyAssignor();
        ConsumerGroupMetadata metadata = given(r, "generation")
            ? new ConsumerGroupMetadata("group", r.get("generation").asInt(), "member", Optional.empty())
            : new ConsumerGroupMetadata("group");
        assignor.onAssignment(new Assignment(Values.partitions(r.path("partitions"))), metadata);
        return hex(assignor.subscriptionUserData(Set.of()));
    }

    static JsonNode cooperative(ObjectNode r) {
        CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
        if (given(r, "generation")) {
            assignor.onAssignment(new Assignment(List.of()),
                new ConsumerGroupMetadata("group", r.get("generation").asInt(), "member", Optional.empty()));
        }
        return hex(assignor.subscriptionUserData(Set.of()));
    }

    static JsonNode subscriptionInfo(ObjectNode r) {
        SubscriptionInfoData defaults = new SubscriptionInfoData();
        Map<TaskId, Long> offsetSums = Collections.emptyMap();
        if (given(r, "taskOffsetSums")) {
            offsetSums = new LinkedHashMap<>();
            for (JsonNode entry : r.get("taskOffsetSums")) offsetSums.put(task(entry.get(0)), entry.get(1).asLong());
        }
        Map<String, String> clientTags = Collections.emptyMap();
        if (given(r, "clientTags")) {
            clientTags = new LinkedHashMap<>();
            for (JsonNode entry : r.get("clientTags")) clientTags.put(entry.get(0).asText(), entry.get(1).asText());
        }
        SubscriptionInfo info = new SubscriptionInfo(
            r.path("version").asInt(),
            given(r, "latestSupportedVersion") ? r.get("latestSupportedVersion").asInt() : defaults.latestSupportedVersion(),
            new ProcessId(UUID.fromString(r.path("processId").asText())),
            given(r, "userEndPoint") ? Values.text(r.get("userEndPoint")) : null,
            offsetSums,
            given(r, "uniqueField") ? (byte) r.get("uniqueField").asInt() : defaults.uniqueField(),
            given(r, "errorCode") ? r.get("errorCode").asInt() : AssignorError.NONE.code(),
            clientTags);
        return hex(info.encode());
    }

    static JsonNode assignmentInfo(ObjectNode r) {
        int version = r.path("version").asInt();
        List<TaskId> active = Collections.emptyList();
        if (given(r, "activeTasks")) {
            active = new ArrayList<>();
            for (JsonNode t : r.get("activeTasks")) active.add(task(t));
        }
        Map<TaskId, Set<TopicPartition>> standby = Collections.emptyMap();
        if (given(r, "standbyTasks")) {
            standby = new LinkedHashMap<>();
            for (JsonNode e : r.get("standbyTasks")) {
                standby.put(task(e.get(0)), new LinkedHashSet<>(Values.partitions(e.get(1))));
            }
        }
        Map<HostInfo, Set<TopicPartition>> hosts = hostMap(r.get("partitionsByHost"));
        Map<HostInfo, Set<TopicPartition>> standbyHosts = hostMap(r.get("standbyPartitionsByHost"));
        int errCode = given(r, "errCode") ? r.get("errCode").asInt() : AssignorError.NONE.code();
        boolean onlyVersions = !given(r, "activeTasks") && !given(r, "standbyTasks") && !given(r, "partitionsByHost")
            && !given(r, "standbyPartitionsByHost") && !given(r, "errCode");
        AssignmentInfo info;
        if (!given(r, "commonlySupportedVersion")) {
            info = new AssignmentInfo(version, active, standby, hosts, standbyHosts, errCode);
        } else if (onlyVersions) {
            info = new AssignmentInfo(version, r.get("commonlySupportedVersion").asInt());
        } else {
            info = new AssignmentInfo(version, r.get("commonlySupportedVersion").asInt(), active, standby, hosts,
                standbyHosts, errCode);
        }
        if (given(r, "nextRebalanceMs")) info.setNextRebalanceTime(r.get("nextRebalanceMs").asLong());
        return hex(info.encode());
    }

    /** {@code [a, b]}: Kafka's two-argument TaskId (no named topology); {@code [a, b, name]}: the three-argument one. */
    static TaskId task(JsonNode t) {
        return t.size() < 3
            ? new TaskId(t.get(0).asInt(), t.get(1).asInt())
            : new TaskId(t.get(0).asInt(), t.get(1).asInt(), Values.text(t.get(2)));
    }

    static Map<HostInfo, Set<TopicPartition>> hostMap(JsonNode entries) {
        if (entries == null) return Collections.emptyMap();
        Map<HostInfo, Set<TopicPartition>> out = new LinkedHashMap<>();
        for (JsonNode e : entries) {
            out.put(new HostInfo(e.get(0).get(0).asText(), e.get(0).get(1).asInt()),
                new LinkedHashSet<>(Values.partitions(e.get(1))));
        }
        return out;
    }
}
