package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.ConsumerProtocolAssignment;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;

/**
 * The classic consumer protocol as Kafka's Java consumer writes and reads it: {@code ConsumerProtocol}, the class
 * every Java client and the group coordinator use, over the version-prefixed bytes (int16 version, then the body).
 *
 * <ul>
 *   <li>{@code consumer.subscription.serialize} {version, topics, userData, ownedPartitions, generationId, rackId}:
 *       {@code serializeSubscription(new Subscription(...), version)} (it sorts the topics and the owned partitions
 *       and clamps a newer version to the newest it knows);</li>
 *   <li>{@code consumer.subscription.deserialize} {hex}: {@code deserializeSubscription} (what the assignors see:
 *       partitions flattened, a negative generation as absent, an empty rack as absent) and, from
 *       {@code deserializeConsumerProtocolSubscription}, the message itself as JSON at the version Kafka read it
 *       with (a newer version is read with the newest layout: Kafka's forward-compatible reading);</li>
 *   <li>{@code consumer.assignment.serialize} / {@code consumer.assignment.deserialize}: the same for assignments.</li>
 * </ul>
 * Partitions are {@code [topic, partition]} pairs, user data hex.
 */
final class ConsumerProtocolOps {
    private ConsumerProtocolOps() {}

    public static void register(Peer peer) {
        peer.register("consumer.subscription.serialize", ConsumerProtocolOps::serializeSubscription);
        peer.register("consumer.subscription.deserialize", ConsumerProtocolOps::deserializeSubscription);
        peer.register("consumer.assignment.serialize", ConsumerProtocolOps::serializeAssignment);
        peer.register("consumer.assignment.deserialize", ConsumerProtocolOps::deserializeAssignment);
    }

    static JsonNode serializeSubscription(ObjectNode request) {
        Subscription subscription = new Subscription(
            Values.strings(request.path("topics")),
            Values.bytes(request.get("userData")),
            Values.partitions(request.path("ownedPartitions")),
            request.path("generationId").asInt(-1),
            Optional.ofNullable(Values.text(request.get("rackId"))));
        short version = (short) request.path("version").asInt();
        return Peer.JSON.createObjectNode().put("hex", Hex.of(ConsumerProtocol.serializeSubscription(subscription, version)));
    }

    static JsonNode deserializeSubscription(ObjectNode request) throws Exception {
        ByteBuffer bytes = Hex.buffer(request.path("hex").asText());
        ByteBuffer forView = bytes.duplicate();
        Subscription subscription = ConsumerProtocol.deserializeSubscription(forView);
        ByteBuffer forMessage = bytes.duplicate();
        short version = ConsumerProtocol.deserializeVersion(forMessage.duplicate());
        ConsumerProtocolSubscription message = ConsumerProtocol.deserializeConsumerProtocolSubscription(forMessage);
        short read = (short) Math.min(version, ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
        ObjectNode out = Peer.JSON.createObjectNode().put("version", version).put("remaining", forMessage.remaining());
        out.set("json", Messages.kindOf(ConsumerProtocolSubscription.class).toJson(message, read));
        out.set("topics", Peer.JSON.valueToTree(subscription.topics()));
        out.put("userData", Values.hex(subscription.userData()));
        out.set("ownedPartitions", Values.json(subscription.ownedPartitions()));
        out.put("generationId", Values.optional(subscription.generationId()));
        out.put("rackId", subscription.rackId().orElse(null));
        return out;
    }

    static JsonNode serializeAssignment(ObjectNode request) {
        Assignment assignment = new Assignment(Values.partitions(request.path("partitions")),
            Values.bytes(request.get("userData")));
        short version = (short) request.path("version").asInt();
        return Peer.JSON.createObjectNode().put("hex", Hex.of(ConsumerProtocol.serializeAssignment(assignment, version)));
    }

    static JsonNode deserializeAssignment(ObjectNode request) throws Exception {
        ByteBuffer bytes = Hex.buffer(request.path("hex").asText());
        Assignment assignment = ConsumerProtocol.deserializeAssignment(bytes.duplicate());
        ByteBuffer forMessage = bytes.duplicate();
        short version = ConsumerProtocol.deserializeVersion(forMessage.duplicate());
        ConsumerProtocolAssignment message = ConsumerProtocol.deserializeConsumerProtocolAssignment(forMessage);
        short read = (short) Math.min(version, ConsumerProtocolAssignment.HIGHEST_SUPPORTED_VERSION);
        ObjectNode out = Peer.JSON.createObjectNode().put("version", version).put("remaining", forMessage.remaining());
        out.set("json", Messages.kindOf(ConsumerProtocolAssignment.class).toJson(message, read));
        out.set("partitions", Values.json(assignment.partitions()));
        out.put("userData", Values.hex(assignment.userData()));
        return out;
    }
}
