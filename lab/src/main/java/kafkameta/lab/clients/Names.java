package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/** Partitions as truth.jsonl writes them: "topic-partition", sorted, so the Python side compares strings. */
public final class Names {
    private Names() {}

    public static List<String> partitions(Collection<TopicPartition> partitions) {
        List<String> names = new ArrayList<>();
        for (TopicPartition partition : partitions) names.add(partition.topic() + "-" + partition.partition());
        names.sort(Names::compare);
        return names;
    }

    public static <V> Map<String, V> byPartition(Map<TopicPartition, V> values) {
        Map<String, V> named = new TreeMap<>(Names::compare);
        for (Map.Entry<TopicPartition, V> entry : values.entrySet()) {
            named.put(entry.getKey().topic() + "-" + entry.getKey().partition(), entry.getValue());
        }
        return named;
    }

    /** "t-10" after "t-9": by topic, then by partition number. */
    static int compare(String a, String b) {
        int da = a.lastIndexOf('-');
        int db = b.lastIndexOf('-');
        int byTopic = a.substring(0, da).compareTo(b.substring(0, db));
        if (byTopic != 0) return byTopic;
        return Integer.compare(Integer.parseInt(a.substring(da + 1)), Integer.parseInt(b.substring(db + 1)));
    }
}
