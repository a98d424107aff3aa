package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor.MemberData;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;

/**
 * The user data of the sticky and cooperative-sticky assignors, through the code paths Kafka 4.4's consumer runs:
 *
 * <ul>
 *   <li>{@code sticky.serialize} {partitions, generation}: an assignor told of its assignment and generation
 *       ({@code onAssignment}) writes its next subscription's user data ({@code subscriptionUserData}): version 1,
 *       the partitions grouped by topic in a HashMap. With {@code generation} null, version 0 (no generation), which
 *       4.4 no longer writes but still reads: written with 4.4's own {@code STICKY_ASSIGNOR_USER_DATA_V0} schema,
 *       grouped the same way, as StickyAssignor wrote it before Kafka 2.3;</li>
 *   <li>{@code sticky.deserialize} {hex}: what the leader makes of a member's user data ({@code memberData}, which
 *       tries v1, then v0, then falls back to no partitions and generation -1): {partitions, generation} (null: none);</li>
 *   <li>{@code cooperative.serialize} {generation} / {@code cooperative.deserialize} {hex}: the same for
 *       CooperativeStickyAssignor, whose user data is the generation alone (read only for subscriptions that do not
 *       carry it themselves, v0 and v1).</li>
 * </ul>
 * {@code memberData} is protected, and v0's schema package-private: both are reached by reflection.
 */
final class AssignorUserData {
    private static final Method STICKY_MEMBER_DATA = method(StickyAssignor.class, "memberData", Subscription.class);
    private static final Method COOPERATIVE_MEMBER_DATA =
        method(CooperativeStickyAssignor.class, "memberData", Subscription.class);

    private AssignorUserData() {}

    public static void register(Peer peer) {
        peer.register("sticky.serialize", AssignorUserData::serializeSticky);
        peer.register("sticky.deserialize", request -> memberData(new StickyAssignor(), STICKY_MEMBER_DATA, request));
        peer.register("cooperative.serialize", AssignorUserData::serializeCooperative);
        peer.register("cooperative.deserialize",
            request -> memberData(new CooperativeStickyAssignor(), COOPERATIVE_MEMBER_DATA, request));
    }

    static JsonNode serializeSticky(ObjectNode request) throws Exception {
        List<TopicPartition> partitions = Values.partitions(request.path("partitions"));
        JsonNode generation = request.get("generation");
        ByteBuffer out;
        if (generation == null || generation.isNull()) {
            out = stickyV0(partitions);
        } else {
            StickyAssignor assignor = new StickyAssignor();
            assignor.onAssignment(new Assignment(partitions), metadata(generation.asInt()));
            out = assignor.subscriptionUserData(Set.of());
        }
        return Peer.JSON.createObjectNode().put("hex", Hex.of(out));
    }

    static JsonNode serializeCooperative(ObjectNode request) {
        CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
        assignor.onAssignment(new Assignment(List.of()), metadata(request.path("generation").asInt()));
        return Peer.JSON.createObjectNode().put("hex", Hex.of(assignor.subscriptionUserData(Set.of())));
    }

    /** What the leader reads from a member's subscription carrying this user data (and nothing else). */
    static JsonNode memberData(AbstractStickyAssignor assignor, Method method, ObjectNode request) throws Exception {
        Subscription subscription = new Subscription(List.of(), Values.bytes(request.get("hex")));
        MemberData data;
        try {
            data = (MemberData) method.invoke(assignor, subscription);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
        }
        ObjectNode out = Peer.JSON.createObjectNode();
        out.set("partitions", Values.json(data.partitions));
        out.put("generation", Values.optional(data.generation));
        return out;
    }

    private static ConsumerGroupMetadata metadata(int generation) {
        return new ConsumerGroupMetadata("group", generation, "member", Optional.empty());
    }

    /** Version 0 as Kafka before 2.3 wrote it: the topic assignments alone, grouped by topic in a HashMap. */
    private static ByteBuffer stickyV0(List<TopicPartition> partitions) throws ReflectiveOperationException {
        Schema v0 = (Schema) staticField("STICKY_ASSIGNOR_USER_DATA_V0");
        Schema topicAssignment = (Schema) staticField("TOPIC_ASSIGNMENT");
        Map<String, List<Integer>> byTopic = new HashMap<>();
        for (TopicPartition tp : partitions) byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        List<Struct> topics = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> entry : byTopic.entrySet()) {
            topics.add(new Struct(topicAssignment).set("topic", entry.getKey()).set("partitions", entry.getValue().toArray()));
        }
        Struct struct = new Struct(v0).set("previous_assignment", topics.toArray());
        ByteBuffer buffer = ByteBuffer.allocate(v0.sizeOf(struct));
        v0.write(buffer, struct);
        buffer.flip();
        return buffer;
    }

    private static Object staticField(String name) throws ReflectiveOperationException {
        Field field = StickyAssignor.class.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(null);
    }

    private static Method method(Class<?> type, String name, Class<?>... parameters) {
        try {
            Method m = type.getDeclaredMethod(name, parameters);
            m.setAccessible(true);
            return m;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(type.getName() + " has no " + name, e);
        }
    }
}
