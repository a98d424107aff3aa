package kafkameta.lab.clients;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * One share-group member (KIP-932): a KafkaShareConsumer in explicit acknowledgement mode
 * (share.acknowledgement.mode=explicit) that polls in a thread of its own, acknowledges every record it gets
 * with one of the three kinds ({@link #acknowledgement}: ACCEPT most, RELEASE some on their first delivery,
 * REJECT some), commits the acknowledgements with commitSync, and writes one truth line per non-empty poll,
 * plus its start and close. Closing it sends the
 * ShareGroupHeartbeat with member epoch -1 that takes it out of the group.
 *
 * <p>Truth: "share_poll" lines carry group, records (how many the poll returned), received ({partition:
 * [offsets]}), redelivered (the "partition@offset" of records whose delivery count is above 1), released and
 * rejected ({partition: [offsets]} acknowledged with RELEASE and REJECT; the others with ACCEPT), acknowledged
 * ({partition: records acknowledged, of any kind}) and errors ({partition: error} for acknowledgements
 * commitSync refused).
 */
public final class ShareMember extends PollingClient implements AutoCloseable {
    private final String name;
    private final String group;
    private final List<String> topics;
    private final KafkaShareConsumer<String, String> consumer;
    private final Truth truth = Truth.get();

    public ShareMember(String bootstrap, String group, String name, List<String> topics) {
        this.name = name;
        this.group = group;
        this.topics = topics;
        this.consumer = new KafkaShareConsumer<>(ClientConfig.consumer(bootstrap, name).group(group)
            .set(ConsumerConfig.SHARE_ACKNOWLEDGEMENT_MODE_CONFIG, "explicit").properties());
    }

    public ShareMember start() {
        startPolling("share-member-" + name);
        return this;
    }

    /** Close the share consumer (it leaves the group) and wait for its thread. */
    public void stop() {
        stopAndWait(consumer::wakeup);
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public void run() {
        truth.record(name, "start", Json.object().put("group", group).put("protocol", "share")
            .put("pid", ProcessHandle.current().pid()));
        String closeReason = "stopped";
        try {
            consumer.subscribe(topics);
            while (!stopping) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) acknowledge(records);
            }
        } catch (WakeupException e) {
            // stop() woke the poll
        } catch (RuntimeException e) {
            closeReason = "error: " + e;
            truth.record(name, "error", Json.object().put("group", group).put("error", e.toString()));
        } finally {
            consumer.close();
            truth.record(name, "closed", Json.object().put("group", group).put("reason", closeReason));
            finished.countDown();
        }
    }

    /**
     * How a record is acknowledged, so one run holds all three kinds: a record at an offset of 5 modulo 7 is
     * rejected (ARCHIVED: never delivered again), one at 3 modulo 7 is released on its first delivery
     * (AVAILABLE again: it comes back with delivery count 2 and is then accepted), every other one accepted.
     */
    static AcknowledgeType acknowledgement(long offset, int deliveryCount) {
        if (offset % 7 == 5) return AcknowledgeType.REJECT;
        if (offset % 7 == 3 && deliveryCount == 1) return AcknowledgeType.RELEASE;
        return AcknowledgeType.ACCEPT;
    }

    private void acknowledge(ConsumerRecords<String, String> records) {
        Map<TopicPartition, List<Long>> received = new HashMap<>();
        Map<TopicPartition, List<Long>> released = new HashMap<>();
        Map<TopicPartition, List<Long>> rejected = new HashMap<>();
        List<String> redelivered = new ArrayList<>();
        for (ConsumerRecord<String, String> record : records) {
            TopicPartition partition = new TopicPartition(record.topic(), record.partition());
            received.computeIfAbsent(partition, p -> new ArrayList<>()).add(record.offset());
            short deliveries = record.deliveryCount().orElse((short) 1);
            if (deliveries > 1) redelivered.add(record.topic() + "-" + record.partition() + "@" + record.offset());
            AcknowledgeType type = acknowledgement(record.offset(), deliveries);
            if (type == AcknowledgeType.RELEASE) released.computeIfAbsent(partition, p -> new ArrayList<>()).add(record.offset());
            if (type == AcknowledgeType.REJECT) rejected.computeIfAbsent(partition, p -> new ArrayList<>()).add(record.offset());
            consumer.acknowledge(record, type);
        }
        Map<TopicIdPartition, Optional<KafkaException>> results = consumer.commitSync();
        Map<TopicPartition, Integer> acknowledged = new HashMap<>();
        Map<TopicPartition, String> errors = new HashMap<>();
        for (Map.Entry<TopicIdPartition, Optional<KafkaException>> result : results.entrySet()) {
            TopicPartition partition = result.getKey().topicPartition();
            if (result.getValue().isPresent()) errors.put(partition, result.getValue().get().toString());
            else acknowledged.put(partition, received.getOrDefault(partition, List.of()).size());
        }
        truth.record(name, "share_poll", Json.object()
            .put("group", group)
            .put("records", records.count())
            .put("received", Names.byPartition(received))
            .put("redelivered", redelivered)
            .put("released", Names.byPartition(released))
            .put("rejected", Names.byPartition(rejected))
            .put("acknowledged", Names.byPartition(acknowledged))
            .put("errors", Names.byPartition(errors)));
    }
}
