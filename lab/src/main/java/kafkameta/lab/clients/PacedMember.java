package kafkameta.lab.clients;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * A group member for the lag scenario: a KafkaConsumer (classic protocol, as {@link Member} configures it) that
 * takes {@code record-ms} over each record and commits after every batch of at most {@code max-records} (with
 * {@code commit-ms}, after the first batch that long after its last commit), so a consumer slower than its
 * producer falls behind steadily while its commits keep coming. The scenario may tell it to {@link #halt} (it
 * stops polling and committing and stays a member: the consumer's heartbeat thread keeps its session, and
 * max.poll.interval.ms, 300 s, outlasts the scenario) and to {@link #rewind} (seek every partition it owns
 * back and commit the earlier offset, then wait before reading on).
 *
 * <p>Truth: "start", the rebalance callbacks, "commit" (as {@link Member} writes it: group, why, member_id,
 * generation, offsets, ok), "halted" (the offsets it last committed), "rewind" (from, to), "closed".
 */
public final class PacedMember extends PollingClient {
    private final Options options;
    private final String name;
    private final String group;
    private final KafkaConsumer<String, String> consumer;
    private final Truth truth = Truth.get();
    private final long recordMs;
    private final long commitMs;
    private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private volatile boolean haltRequested;
    private final CountDownLatch halted = new CountDownLatch(1);
    private volatile long rewindBy;
    private volatile long rewindPauseMs;
    private volatile CountDownLatch rewound = new CountDownLatch(1);

    public PacedMember(String... args) {
        this.options = new Options(args);
        this.name = options.get("name");
        this.group = options.get("group");
        this.recordMs = options.getInt("record-ms", 0);
        this.commitMs = options.getInt("commit-ms", 0);
        Properties config = Member.config(options);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, options.get("max-records", "5"));
        this.consumer = new KafkaConsumer<>(config);
    }

    public PacedMember start() {
        startPolling("paced-" + name);
        return this;
    }

    /** Stop polling and committing, staying in the group; returns once the member has halted. */
    public void halt(long timeoutMs) throws InterruptedException {
        haltRequested = true;
        if (!halted.await(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " did not halt within " + timeoutMs + " ms");
        }
    }

    /**
     * Seek every owned partition {@code records} back from where it is, commit there, then wait {@code pauseMs}
     * before polling again; returns once the earlier offsets are committed.
     */
    public void rewind(long records, long pauseMs, long timeoutMs) throws InterruptedException {
        rewound = new CountDownLatch(1);
        rewindPauseMs = pauseMs;
        rewindBy = records;
        if (!rewound.await(timeoutMs, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " did not rewind within " + timeoutMs + " ms");
        }
    }

    /** Close the consumer the ordinary way (LeaveGroup); a halted member commits nothing more. */
    public void stop() {
        stopRequested.countDown();
        stopAndWait(consumer::wakeup);
    }

    @Override
    public void run() {
        truth.record(name, "start", Json.object().put("group", group).put("protocol", "classic")
            .put("assignors", options.list("assignors", "range")).put("record_ms", recordMs)
            .put("max_records", options.getInt("max-records", 5)).put("commit_ms", commitMs)
            .put("pid", ProcessHandle.current().pid()));
        String closeReason = "stopped";
        try {
            consumer.subscribe(options.list("topics", "lab-topic"), new RebalanceTruth(name, group, consumer));
            long lastCommit = 0;
            while (!stopping) {
                if (haltRequested) {
                    truth.record(name, "halted", Json.object().put("group", group)
                        .put("committed", Names.byPartition(committed)));
                    halted.countDown();
                    stopRequested.await();
                    break;
                }
                if (rewindBy > 0) seekBackAndCommit();
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> record : records) {
                    if (recordMs > 0 && stopRequested.await(recordMs, TimeUnit.MILLISECONDS)) break;
                    pending.put(new TopicPartition(record.topic(), record.partition()),
                        new OffsetAndMetadata(record.offset() + 1));
                }
                boolean closing = stopRequested.getCount() == 0;
                if (!pending.isEmpty() && (closing || System.currentTimeMillis() - lastCommit >= commitMs)) {
                    commit(new HashMap<>(pending), closing ? "close" : "batch");
                    pending.clear();
                    lastCommit = System.currentTimeMillis();
                }
            }
        } catch (WakeupException e) {
            // stop() woke the poll
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            closeReason = "error: " + e;
            truth.record(name, "error", Json.object().put("group", group).put("error", e.toString()));
        } finally {
            consumer.close();
            truth.record(name, "closed", Json.object().put("group", group).put("reason", closeReason));
            finished.countDown();
        }
    }

    /** The rewind: every owned partition's position moved back, the earlier offset committed, then a pause. */
    private void seekBackAndCommit() throws InterruptedException {
        Map<TopicPartition, Long> from = new HashMap<>();
        Map<TopicPartition, OffsetAndMetadata> to = new HashMap<>();
        for (TopicPartition partition : consumer.assignment()) {
            long position = consumer.position(partition);
            long earlier = Math.max(0, position - rewindBy);
            from.put(partition, position);
            to.put(partition, new OffsetAndMetadata(earlier));
            consumer.seek(partition, earlier);
        }
        rewindBy = 0;
        pending.clear();
        ConsumerGroupMetadata metadata = consumer.groupMetadata();
        truth.record(name, "rewind", Json.object().put("group", group).put("member_id", metadata.memberId())
            .put("generation", metadata.generationId()).put("from", Names.byPartition(from))
            .put("to", offsetsOf(to)));
        commit(to, "rewind");
        rewound.countDown();
        stopRequested.await(rewindPauseMs, TimeUnit.MILLISECONDS);
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets, String why) {
        ConsumerGroupMetadata metadata = consumer.groupMetadata();
        Json line = Json.object().put("group", group).put("why", why).put("member_id", metadata.memberId())
            .put("generation", metadata.generationId()).put("offsets", offsetsOf(offsets));
        try {
            consumer.commitSync(offsets);
            for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
                committed.put(entry.getKey(), entry.getValue().offset());
            }
            truth.record(name, "commit", line.put("ok", true));
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            truth.record(name, "commit", line.put("ok", false).put("error", e.getClass().getSimpleName())
                .put("message", e.getMessage()));
        }
    }

    private static Map<String, Long> offsetsOf(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Map<TopicPartition, Long> plain = new HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
            plain.put(entry.getKey(), entry.getValue().offset());
        }
        return Names.byPartition(plain);
    }
}
