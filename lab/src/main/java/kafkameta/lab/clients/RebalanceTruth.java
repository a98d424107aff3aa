package kafkameta.lab.clients;

import java.util.Collection;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A rebalance listener that writes each callback to truth ("assigned", "revoked"; "lost" where a subclass
 * records it), with the member id, generation (the member epoch under KIP-848) and group.instance.id the
 * consumer reports at that moment and the partitions it owns after the callback. A lost partition is reported
 * as revoked, as ConsumerRebalanceListener's default does, unless a subclass says otherwise.
 */
public class RebalanceTruth implements ConsumerRebalanceListener {
    private final String source;
    private final String group;
    private final KafkaConsumer<?, ?> consumer;

    /** {@code source}: the truth lines' source (the member's name). */
    public RebalanceTruth(String source, String group, KafkaConsumer<?, ?> consumer) {
        this.source = source;
        this.group = group;
        this.consumer = consumer;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        callback("revoked", partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        callback("assigned", partitions);
    }

    /** Write one callback's line. */
    protected final void callback(String event, Collection<TopicPartition> partitions) {
        ConsumerGroupMetadata metadata = consumer.groupMetadata();
        Truth.get().record(source, event, Json.object()
            .put("group", group)
            .put("member_id", metadata.memberId())
            .put("generation", metadata.generationId())
            .put("instance", metadata.groupInstanceId())
            .put("partitions", Names.partitions(partitions))
            .put("owned", Names.partitions(consumer.assignment())));
    }
}
