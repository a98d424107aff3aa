package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * The shapes the peer's operations share, between JSON and Kafka's objects: a partition is {@code [topic, partition]},
 * bytes are hex (null stays null), an absent Optional is null.
 */
final class Values {
    private Values() {}

    static List<TopicPartition> partitions(JsonNode pairs) {
        List<TopicPartition> out = new ArrayList<>();
        for (JsonNode pair : pairs) out.add(new TopicPartition(text(pair.get(0)), pair.get(1).asInt()));
        return out;
    }

    static ArrayNode json(Collection<TopicPartition> partitions) {
        ArrayNode out = Peer.JSON.createArrayNode();
        for (TopicPartition tp : partitions) out.addArray().add(tp.topic()).add(tp.partition());
        return out;
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode item : array) out.add(text(item));
        return out;
    }

    /** A JSON string, or null for JSON null. */
    static String text(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }

    /** Hex bytes, or null for JSON null (or no such argument). */
    static ByteBuffer bytes(JsonNode node) {
        return node == null || node.isNull() ? null : Hex.buffer(node.asText());
    }

    static String hex(ByteBuffer buffer) {
        return buffer == null ? null : Hex.of(buffer);
    }

    static Integer optional(Optional<Integer> value) {
        return value.orElse(null);
    }
}
