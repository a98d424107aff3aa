package kafkameta.lab.scenarios;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import kafkameta.lab.clients.ClientConfig;
import kafkameta.lab.clients.Names;
import kafkameta.lab.clients.RebalanceTruth;
import kafkameta.lab.truth.Json;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly-once consume-transform-produce: a group's offsets committed inside a producer's transactions
 * (KIP-98, with the consumer's group metadata for fencing, KIP-447) rather than with OffsetCommit.
 *
 * <p>lab-txn-in (3 partitions) is filled with 300 records. One classic-protocol KafkaConsumer in group lab-txn
 * (read_committed, no auto commit, at most 50 records a poll) and a transactional KafkaProducer
 * (transactional.id lab-txn-producer) turn each poll into one transaction: the records, upper-cased, go to
 * lab-txn-out, and {@code sendOffsetsToTransaction(offsets, consumer.groupMetadata())} puts the next offsets
 * into the same transaction (TxnOffsetCommit), which {@code commitTransaction} commits. Transaction 3 is
 * aborted instead: its offsets never become the group's committed offsets, and the consumer seeks back to the
 * committed ones, so a later committed transaction carries those records again. Once every input record is
 * committed the consumer leaves, and two readers of lab-txn-out count what read_committed and
 * read_uncommitted see (the aborted records only in the second).
 *
 * <p>Kafka 4.4 runs transaction version 2 (KIP-890): the producer sends no AddPartitionsToTxn or
 * AddOffsetsToTxn. Partitions join a transaction through the Produce and TxnOffsetCommit requests themselves,
 * which the broker checks with AddPartitionsToTxn v5 to its own transaction coordinator; after EndTxn the
 * broker writes the markers with WriteTxnMarkers. Both of those broker requests go over the broker's own
 * listener, so they are in the capture too.
 *
 * <p>Truth: after each transaction, the group's committed offsets as the Admin client lists them ("committed",
 * read once the consumer's committed() call, which waits for pending transactional offsets under
 * read_committed, has returned). New events:
 * <ul>
 *   <li>"transaction" (source lab-txn-producer): group, transactional_id, txn (1, 2, ...), outcome (committed or
 *       aborted), records, offsets ({partition: next offset} given to sendOffsetsToTransaction), member_id and
 *       generation (the consumer group metadata given with them).</li>
 *   <li>"output" (source transactions): topic, isolation (read_committed or read_uncommitted), records (how many
 *       records of the topic a reader with that isolation level gets).</li>
 * </ul>
 */
public final class Transactions extends Scenario {
    static final String GROUP = "lab-txn";
    static final String INPUT = "lab-txn-in";
    static final String OUTPUT = "lab-txn-out";
    static final String TRANSACTIONAL_ID = "lab-txn-producer";
    static final String CONSUMER = "lab-txn-consumer";
    static final int PARTITIONS = 3;
    static final int RECORDS = 300;
    static final int ABORTED = 3;
    static final long LOOP_MS = 120_000;

    @Override
    protected void play() throws Exception {
        inputAndOutput(INPUT, OUTPUT, PARTITIONS, RECORDS);

        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig());
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig())) {
            step("the consumer joins " + GROUP, GROUP, "join", "consumer");
            consumer.subscribe(List.of(INPUT), new RebalanceTruth(CONSUMER, GROUP, consumer));
            while (consumer.assignment().isEmpty()) consumer.poll(Duration.ofMillis(200));
            groups.awaitStable(GROUP, 1, PARTITIONS, SETTLE_MS);
            seek(consumer, committed(consumer));
            producer.initTransactions();

            step("transactions");
            long deadline = System.currentTimeMillis() + LOOP_MS;
            int txn = 0;
            long done = 0;
            while (done < RECORDS) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("only " + done + " of " + RECORDS + " records committed");
                }
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
                if (records.isEmpty()) continue;
                txn++;
                boolean abort = txn == ABORTED;
                if (abort) step("transaction " + txn + " is aborted");
                transaction(consumer, producer, records, txn, abort);
                Map<TopicPartition, OffsetAndMetadata> offsets = committed(consumer);
                groups.committed(GROUP);
                if (abort) seek(consumer, offsets);
                done = total(offsets);
            }

            step("the consumer leaves", GROUP, "stop", "consumer");
        }
        groups.awaitStable(GROUP, 0, PARTITIONS, SETTLE_MS);
        groups.committed(GROUP);

        step("read " + OUTPUT);
        count("read_committed");
        count("read_uncommitted");
    }

    private void transaction(KafkaConsumer<String, String> consumer, KafkaProducer<String, String> producer,
                             ConsumerRecords<String, String> records, int txn, boolean abort) {
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, String> record : records) {
            producer.send(new ProducerRecord<>(OUTPUT, record.partition(), record.key(), record.value().toUpperCase()));
            offsets.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
        }
        ConsumerGroupMetadata metadata = consumer.groupMetadata();
        producer.sendOffsetsToTransaction(offsets, metadata);
        if (abort) producer.abortTransaction();
        else producer.commitTransaction();
        Map<TopicPartition, Long> plain = new HashMap<>();
        offsets.forEach((partition, offset) -> plain.put(partition, offset.offset()));
        truth.record(TRANSACTIONAL_ID, "transaction", Json.object()
            .put("group", GROUP)
            .put("transactional_id", TRANSACTIONAL_ID)
            .put("txn", txn)
            .put("outcome", abort ? "aborted" : "committed")
            .put("records", records.count())
            .put("offsets", Names.byPartition(plain))
            .put("member_id", metadata.memberId())
            .put("generation", metadata.generationId()));
    }

    /** The group's committed offsets; under read_committed, committed() waits while a transaction's are pending. */
    private static Map<TopicPartition, OffsetAndMetadata> committed(KafkaConsumer<String, String> consumer) {
        return consumer.committed(consumer.assignment());
    }

    /** Seek every assigned partition to its committed offset, or to its beginning when it has none yet. */
    private static void seek(KafkaConsumer<String, String> consumer, Map<TopicPartition, OffsetAndMetadata> committed) {
        for (TopicPartition partition : consumer.assignment()) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset == null) consumer.seekToBeginning(List.of(partition));
            else consumer.seek(partition, offset);
        }
    }

    private static long total(Map<TopicPartition, OffsetAndMetadata> offsets) {
        long sum = 0;
        for (OffsetAndMetadata offset : offsets.values()) {
            if (offset != null) sum += offset.offset();
        }
        return sum;
    }

    /** Read OUTPUT from its beginning to its end with the given isolation level, and write how many records came. */
    private void count(String isolation) {
        long records = 0;
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(ClientConfig.consumer(bootstrap,
                "lab-txn-reader-" + isolation).set(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation).properties())) {
            List<TopicPartition> partitions = List.of(
                new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1), new TopicPartition(OUTPUT, 2));
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = reader.endOffsets(partitions);
            long deadline = System.currentTimeMillis() + SETTLE_MS;
            while (!atEnd(reader, end)) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("cannot read " + OUTPUT);
                records += reader.poll(Duration.ofMillis(500)).count();
            }
        }
        truth.record("transactions", "output", Json.object()
            .put("topic", OUTPUT).put("isolation", isolation).put("records", records));
    }

    private static boolean atEnd(KafkaConsumer<String, String> reader, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> entry : end.entrySet()) {
            if (reader.position(entry.getKey()) < entry.getValue()) return false;
        }
        return true;
    }

    private Properties consumerConfig() {
        return ClientConfig.consumer(bootstrap, CONSUMER).group(GROUP).ownCommits()
            .set(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic")
            .set(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
            .set(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000")
            .set(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000").properties();
    }

    private Properties producerConfig() {
        return ClientConfig.producer(bootstrap, TRANSACTIONAL_ID).transactional(TRANSACTIONAL_ID).properties();
    }

    public static void main(String[] args) {
        run("transactions", new Transactions());
    }
}
