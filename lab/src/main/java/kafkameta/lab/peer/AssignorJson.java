package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The shapes the assignor operations share: a partition is {@code [topic, partition]}, a member's assignment is a
 * list of them, an absent optional value is JSON null.
 */
final class AssignorJson {
    private AssignorJson() {}

    /**
     * Silence a logger of Kafka's: the assignors log their decisions (conflicting claims at ERROR), and the
     * peer's standard output carries only answers.
     */
    static void quiet(String logger) {
        org.apache.logging.log4j.core.config.Configurator.setLevel(logger, org.apache.logging.log4j.Level.OFF);
    }

    static List<TopicPartition> partitions(JsonNode pairs) {
        List<TopicPartition> out = new ArrayList<>();
        if (pairs == null || pairs.isNull()) return out;
        for (JsonNode pair : pairs) out.add(new TopicPartition(pair.get(0).asText(), pair.get(1).asInt()));
        return out;
    }

    static ArrayNode json(Collection<TopicPartition> partitions) {
        ArrayNode out = Peer.JSON.createArrayNode();
        for (TopicPartition tp : partitions) out.addArray().add(tp.topic()).add(tp.partition());
        return out;
    }

    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array == null || array.isNull()) return out;
        for (JsonNode item : array) out.add(item.asText());
        return out;
    }

    /** A string argument, absent when missing or null. */
    static Optional<String> optional(JsonNode node) {
        return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
    }

    /** An int argument, absent when missing or null. */
    static Optional<Integer> optionalInt(JsonNode node) {
        return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asInt());
    }

    /** Each member's partitions, members in key order, each list in the order Kafka's assignor produced it. */
    static ObjectNode byMember(Map<String, ? extends Collection<TopicPartition>> assignment) {
        ObjectNode out = Peer.JSON.createObjectNode();
        new TreeMap<>(assignment).forEach((member, partitions) -> out.set(member, json(partitions)));
        return out;
    }
}
