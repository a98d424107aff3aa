package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.ArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.protocol.types.Type;

/**
 * The consumer's own assignors, as a group leader runs them: {@code ConsumerPartitionAssignor.assign(Cluster,
 * GroupSubscription)} of a fresh RangeAssignor, RoundRobinAssignor, StickyAssignor or CooperativeStickyAssignor.
 *
 * <p>{@code assignor.client} {assignor, topics: [{name, partitions, racks?: [[rack...] per partition]}],
 * members: [{id, topics, owned?, generation?, userData?, instance?, rack?}]} answers {assignment: {member:
 * [[topic, partition]...]}, transferring: {"topic-p": member} or null}. Members go into the subscription map in
 * the order given, as the leader's ConsumerCoordinator fills its HashMap from the JoinGroup response. {@code
 * generation} is the subscription's own (consumer protocol v2+; null or negative: none); {@code userData} is
 * what the assignor wrote: {partitions, generation} for sticky (no generation: its version 0 layout),
 * {generation} for cooperative-sticky, null for none. Each partition's replicas live on brokers of the racks
 * listed (none listed: one broker without a rack).
 */
final class ClientAssignors {
    private static final Schema TOPIC_ASSIGNMENT = new Schema(
        new Field("topic", Type.STRING), new Field("partitions", new ArrayOf(Type.INT32)));
    private static final Schema STICKY_V0 = new Schema(new Field("previous_assignment", new ArrayOf(TOPIC_ASSIGNMENT)));
    private static final Schema STICKY_V1 = new Schema(
        new Field("previous_assignment", new ArrayOf(TOPIC_ASSIGNMENT)), new Field("generation", Type.INT32));
    private static final Schema COOPERATIVE_V0 = new Schema(new Field("generation", Type.INT32));

    private ClientAssignors() {}

    public static void register(Peer peer) {
        AssignorJson.quiet("org.apache.kafka.clients.consumer");
        peer.register("assignor.client", ClientAssignors::assign);
    }

    static JsonNode assign(ObjectNode request) {
        String name = request.path("assignor").asText();
        ConsumerPartitionAssignor assignor = assignor(name);
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (JsonNode member : request.path("members")) {
            subscriptions.put(member.path("id").asText(), subscription(name, member));
        }
        ConsumerPartitionAssignor.GroupAssignment result =
            assignor.assign(cluster(request.path("topics")), new GroupSubscription(subscriptions));
        Map<String, List<TopicPartition>> assignment = new HashMap<>();
        result.groupAssignment().forEach((member, a) -> assignment.put(member, a.partitions()));
        ObjectNode out = Peer.JSON.createObjectNode();
        out.set("assignment", AssignorJson.byMember(assignment));
        Map<TopicPartition, String> transferring = assignor instanceof AbstractStickyAssignor sticky
            ? sticky.partitionsTransferringOwnership() : null;
        if (transferring == null) {
            out.putNull("transferring");
        } else {
            ObjectNode moving = out.putObject("transferring");
            transferring.forEach((tp, member) -> moving.put(tp.toString(), member));
        }
        return out;
    }

    static ConsumerPartitionAssignor assignor(String name) {
        return switch (name) {
            case "range" -> new RangeAssignor();
            case "roundrobin" -> new RoundRobinAssignor();
            case "sticky" -> new StickyAssignor();
            case "cooperative-sticky" -> new CooperativeStickyAssignor();
            default -> throw new IllegalArgumentException("no client assignor named " + name);
        };
    }

    static Subscription subscription(String assignor, JsonNode member) {
        int generation = member.path("generation").isInt() ? member.path("generation").asInt() : -1;
        Subscription subscription = new Subscription(
            AssignorJson.strings(member.get("topics")),
            userData(assignor, member.get("userData")),
            AssignorJson.partitions(member.get("owned")),
            generation,
            AssignorJson.optional(member.get("rack")));
        subscription.setGroupInstanceId(AssignorJson.optional(member.get("instance")));
        return subscription;
    }

    /** The user data StickyAssignor or CooperativeStickyAssignor writes, in their own layouts. */
    static ByteBuffer userData(String assignor, JsonNode data) {
        if (data == null || data.isNull()) return null;
        boolean hasGeneration = data.hasNonNull("generation");
        Struct struct;
        if (assignor.equals("sticky")) {
            Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
            for (TopicPartition tp : AssignorJson.partitions(data.get("partitions"))) {
                byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
            }
            List<Struct> topics = new ArrayList<>();
            byTopic.forEach((topic, partitions) -> topics.add(
                new Struct(TOPIC_ASSIGNMENT).set("topic", topic).set("partitions", partitions.toArray())));
            struct = new Struct(hasGeneration ? STICKY_V1 : STICKY_V0).set("previous_assignment", topics.toArray());
            if (hasGeneration) struct.set("generation", data.get("generation").asInt());
        } else {
            struct = new Struct(COOPERATIVE_V0).set("generation", data.path("generation").asInt(-1));
        }
        ByteBuffer buffer = ByteBuffer.allocate(struct.sizeOf());
        struct.writeTo(buffer);
        buffer.flip();
        return buffer;
    }

    /** Brokers, one per rack named (and one without a rack), holding every partition's replicas. */
    static Cluster cluster(JsonNode topics) {
        Map<String, Node> nodes = new LinkedHashMap<>();
        Node rackless = new Node(0, "broker-0", 9092);
        List<PartitionInfo> partitions = new ArrayList<>();
        for (JsonNode topic : topics) {
            String name = topic.path("name").asText();
            JsonNode racks = topic.get("racks");
            for (int p = 0; p < topic.path("partitions").asInt(); p++) {
                List<Node> replicas = new ArrayList<>();
                if (racks != null && racks.has(p)) {
                    for (JsonNode rack : racks.get(p)) {
                        replicas.add(nodes.computeIfAbsent(rack.asText(),
                            r -> new Node(nodes.size() + 1, "broker-" + (nodes.size() + 1), 9092, r)));
                    }
                }
                if (replicas.isEmpty()) replicas.add(rackless);
                Node[] array = replicas.toArray(new Node[0]);
                partitions.add(new PartitionInfo(name, p, array[0], array, array));
            }
        }
        List<Node> all = new ArrayList<>(nodes.values());
        all.add(rackless);
        return new Cluster("peer", all, partitions, Set.of(), Set.of());
    }
}
