package kafkameta.lab.clients;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Stdin;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CloseOptions.GroupMembershipOperation;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * One group member: a Java KafkaConsumer that polls, "processes" what it gets, commits the offsets it processed,
 * and writes to truth.jsonl every rebalance callback (with its member id and generation as the consumer reports
 * them), every commit and how it ended, and its start and close.
 *
 * Arguments (`--name value`): bootstrap, group, name (client.id and truth source), topics (comma separated),
 * assignors (range, roundrobin, sticky, cooperative-sticky; classic protocol), protocol (classic or consumer),
 * remote-assignor (uniform or range; consumer protocol), instance (group.instance.id), session-ms,
 * heartbeat-ms, max-poll-ms, process-ms (how long each non-empty batch takes; a stop cuts a batch short, and
 * its offsets are then not committed), commit-ms.
 *
 * In its own JVM (`main`) it runs until its standard input says "stop" or closes, or until it is killed.
 */
public final class Member extends PollingClient {
    private final Options options;
    private final String name;
    private final String group;
    private final KafkaConsumer<String, String> consumer;
    private final Truth truth = Truth.get();
    private final Map<TopicPartition, OffsetAndMetadata> processed = new HashMap<>();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final AtomicInteger assignments = new AtomicInteger();
    private volatile GroupMembershipOperation onClose = GroupMembershipOperation.DEFAULT;

    public Member(String... args) {
        this.options = new Options(args);
        this.name = options.get("name");
        this.group = options.get("group");
        this.consumer = new KafkaConsumer<>(config(options));
    }

    static Properties config(Options options) {
        ClientConfig config = ClientConfig.consumer(options.get("bootstrap", System.getProperty("lab.bootstrap")),
            options.get("name")).group(options.get("group")).ownCommits();
        String protocol = options.get("protocol", "classic");
        config.set(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        if (protocol.equals("classic")) {
            List<String> assignors = new ArrayList<>();
            for (String assignor : options.list("assignors", "range")) assignors.add(assignorClass(assignor));
            config.set(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, String.join(",", assignors))
                .set(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, options.get("session-ms", "10000"))
                .set(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, options.get("heartbeat-ms", "1000"));
        } else if (options.has("remote-assignor")) {
            config.set(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, options.get("remote-assignor"));
        }
        config.set(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, options.get("max-poll-ms", "300000"));
        if (options.has("instance")) config.set(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, options.get("instance"));
        return config.properties();
    }

    static String assignorClass(String name) {
        switch (name) {
            case "range": return "org.apache.kafka.clients.consumer.RangeAssignor";
            case "roundrobin": return "org.apache.kafka.clients.consumer.RoundRobinAssignor";
            case "sticky": return "org.apache.kafka.clients.consumer.StickyAssignor";
            case "cooperative-sticky": return "org.apache.kafka.clients.consumer.CooperativeStickyAssignor";
            default: throw new IllegalArgumentException("unknown assignor " + name);
        }
    }

    /** Start polling in a thread of this JVM. */
    public Member start() {
        startPolling("member-" + name);
        return this;
    }

    /** Close the consumer the ordinary way (a dynamic member sends LeaveGroup; a static one does not). */
    public void stop() {
        close(GroupMembershipOperation.DEFAULT);
    }

    /** Close the consumer with CloseOptions LEAVE_GROUP: a static member leaves the group too (KIP-1092). */
    public void leave() {
        close(GroupMembershipOperation.LEAVE_GROUP);
    }

    private void close(GroupMembershipOperation operation) {
        if (!stopping) onClose = operation;
        stopRequested.countDown();
        stopAndWait(consumer::wakeup);
    }

    /** Wait until this consumer has had `count` onPartitionsAssigned callbacks (one per rebalance it joined). */
    public void awaitAssignments(int count, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (assignments.get() < count) {
            if (System.currentTimeMillis() > deadline || finished.getCount() == 0) {
                throw new IllegalStateException(name + " had " + assignments.get() + " assignments, not " + count
                    + ", within " + timeoutMs + " ms");
            }
            GroupAdmin.sleep(100);
        }
    }

    @Override
    public void run() {
        truth.record(name, "start", Json.object()
            .put("group", group)
            .put("protocol", options.get("protocol", "classic"))
            .put("assignors", options.list("assignors", "range"))
            .put("remote_assignor", options.get("remote-assignor", null))
            .put("instance", options.get("instance", null))
            .put("pid", ProcessHandle.current().pid()));
        String closeReason = "stopped";
        try {
            consumer.subscribe(options.list("topics", "lab-topic"), new Listener());
            long commitEvery = options.getInt("commit-ms", 1000);
            long processMs = options.getInt("process-ms", 0);
            long lastCommit = System.currentTimeMillis();
            while (!stopping) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty() && processMs > 0) {
                    truth.record(name, "slow_batch", Json.object().put("group", group).put("ms", processMs)
                        .put("records", records.count()));
                    if (stopRequested.await(processMs, TimeUnit.MILLISECONDS)) break;
                }
                for (ConsumerRecord<String, String> record : records) {
                    processed.put(new TopicPartition(record.topic(), record.partition()),
                        new OffsetAndMetadata(record.offset() + 1));
                }
                if (System.currentTimeMillis() - lastCommit >= commitEvery && !processed.isEmpty()) {
                    commit(new HashMap<>(processed), "periodic");
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
            try {
                if (!processed.isEmpty() && closeReason.equals("stopped")) commit(new HashMap<>(processed), "close");
            } finally {
                GroupMembershipOperation operation = onClose;
                consumer.close(CloseOptions.groupMembershipOperation(operation));
                truth.record(name, "closed", Json.object().put("group", group).put("reason", closeReason)
                    .put("membership", operation.name()));
                finished.countDown();
            }
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets, String why) {
        ConsumerGroupMetadata metadata = consumer.groupMetadata();
        Json line = Json.object().put("group", group).put("why", why)
            .put("member_id", metadata.memberId()).put("generation", metadata.generationId())
            .put("offsets", offsetsOf(offsets));
        try {
            consumer.commitSync(offsets);
            processed.keySet().removeAll(offsets.keySet());
            truth.record(name, "commit", line.put("ok", true));
        } catch (WakeupException e) {
            throw e;
        } catch (RuntimeException e) {
            processed.keySet().removeAll(offsets.keySet());
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

    /** The callbacks written to truth, a revoke committing what was processed first, a loss forgetting it. */
    private final class Listener extends RebalanceTruth {
        Listener() {
            super(name, group, consumer);
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
            for (TopicPartition partition : partitions) {
                OffsetAndMetadata offset = processed.get(partition);
                if (offset != null) mine.put(partition, offset);
            }
            if (!mine.isEmpty()) commit(mine, "revoked");
            callback("revoked", partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            callback("assigned", partitions);
            assignments.incrementAndGet();
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            for (TopicPartition partition : partitions) processed.remove(partition);
            callback("lost", partitions);
        }
    }

    /** A member in its own JVM: runs until standard input says "stop" or ends (or the JVM is killed). */
    public static void main(String[] args) throws Exception {
        Member member = new Member(args);
        Stdin.onStop(member::stop);
        member.run();
    }
}
