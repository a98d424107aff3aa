package kafkameta.lab.clients;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Each group's lag as Kafka's Admin client reads it, every {@code everyMs}: the committed offsets
 * (listConsumerGroupOffsets), then the log end offsets of the group's partitions (listOffsets, latest: the
 * high watermark), written to truth as one "lag" line per group, so tests can hold a computed lag to what
 * Kafka's clients read. The two reads are not one moment: "asked" is when the committed offsets were asked
 * for, "ends_asked" when the log ends were (after the first answer was in), "ts" when both answers were in.
 */
public final class LagWatch implements AutoCloseable {
    private final Admin admin;
    private final Map<String, List<TopicPartition>> groups;
    private final Truth truth = Truth.get();
    private final Thread thread;
    private volatile boolean running = true;

    /** {@code groups}: each group and the partitions whose lag it is read on. */
    public LagWatch(Admin admin, Map<String, List<TopicPartition>> groups, long everyMs) {
        this.admin = admin;
        this.groups = new TreeMap<>(groups);
        thread = new Thread(() -> {
            while (running) {
                try {
                    sample();
                } catch (IllegalStateException e) {
                    if (!running) return;  // interrupted by close()
                    truth.record("lab-lag-watch", "error", Json.object().put("error", e.toString()));
                }
                try {
                    Thread.sleep(everyMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "lag-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** One reading of every group (also called by the scenario for a last one at the end). */
    public synchronized void sample() {
        for (Map.Entry<String, List<TopicPartition>> entry : groups.entrySet()) {
            String group = entry.getKey();
            long asked = System.currentTimeMillis();
            Map<TopicPartition, OffsetAndMetadata> committed = GroupAdmin.get(admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata(), "listConsumerGroupOffsets " + group);
            long endsAsked = System.currentTimeMillis();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicPartition partition : entry.getValue()) latest.put(partition, OffsetSpec.latest());
            Map<TopicPartition, ListOffsetsResultInfo> ends = GroupAdmin.get(admin.listOffsets(latest).all(),
                "listOffsets " + group);
            Map<TopicPartition, Json> partitions = new HashMap<>();
            for (TopicPartition partition : entry.getValue()) {
                OffsetAndMetadata offset = committed.get(partition);
                long end = ends.get(partition).offset();
                partitions.put(partition, Json.object().put("committed", offset == null ? null : offset.offset())
                    .put("end", end).put("lag", offset == null ? null : end - offset.offset()));
            }
            truth.record("lab-lag-watch", "lag", Json.object().put("group", group).put("asked", asked)
                .put("ends_asked", endsAsked).put("partitions", Names.byPartition(partitions)));
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
