package kafkameta.lab.scenarios;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kafkameta.lab.clients.ClientConfig;
import kafkameta.lab.clients.HangingProducer;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.clients.Names;
import kafkameta.lab.clients.TransactionViews;
import kafkameta.lab.truth.Json;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * Transactions as an operator meets them, on one broker: committed and aborted ones, a producer fenced by a
 * newer epoch of its transactional.id, and one left hanging by a producer that was killed. Every transaction
 * writes records to lab-txh-out (2 partitions, records without keys) and puts offsets of group lab-txh on
 * lab-txh-in (2 partitions, filled with 40 records) into the transaction with sendOffsetsToTransaction (a
 * TxnOffsetCommit; the group has no members: the offsets are committed under the group id alone, as a
 * producer that assigns its input partitions itself does).
 *
 * <ol>
 *   <li>lab-txh-app: transaction 1 committed (offsets 5), 2 aborted (offsets 10: never the group's), 3
 *       committed (offsets 10).</li>
 *   <li>lab-txh-fenced: a first producer begins a transaction (offsets 15 on partition 0); a second producer
 *       with the same transactional.id calls initTransactions while the first is alive, which bumps the epoch
 *       and aborts the first one's transaction; the first one's commit then fails (ProducerFencedException).
 *       The second one commits a transaction (offsets 15).</li>
 *   <li>lab-txh-hanging: a producer in a JVM of its own ({@link HangingProducer}) with a transaction.timeout.ms
 *       of 10 minutes begins a transaction, writes 5 records to lab-txh-out-1 and puts offsets 20 into it;
 *       once the coordinator says Ongoing it is killed with SIGKILL. The recording ends with that transaction
 *       open: no marker after its records, the offset commit pending, __transaction_state Ongoing.</li>
 * </ol>
 *
 * <p>Kafka 4.4 runs transaction version 2 (KIP-890): the epoch is bumped at the end of every transaction, so
 * each transaction's producer epoch is the one the coordinator describes while it is Ongoing.
 *
 * <p>Truth (source: the transactional.id, or admin):
 * <ul>
 *   <li>"txn": transactional_id, txn (1, 2, ... per transactional.id), producer_id and producer_epoch (the
 *       coordinator's, described while the transaction was Ongoing), partitions (the transaction's, from the
 *       same description: the output partitions and the offsets topic's), start (transactionStartTimeMs), end
 *       (when commit or abort returned; null while open), outcome (committed, aborted, open), group, offsets
 *       ({partition: next offset} given to sendOffsetsToTransaction), records.</li>
 *   <li>"fenced": transactional_id, producer_id and producer_epoch of the fenced producer, new_epoch (the
 *       producer that fenced it), error (the exception's class), message.</li>
 *   <li>"txn_pending" (HangingProducer), then at the end "transaction_state" for each transactional.id,
 *       "transactions_listed", "producers" for each output partition (kafkameta.lab.clients.TransactionViews)
 *       and "committed" (the group's offsets as listConsumerGroupOffsets gives them: the committed
 *       transactions' only).</li>
 * </ul>
 */
public final class TransactionsHanging extends Scenario {
    static final String GROUP = "lab-txh";
    static final String INPUT = GROUP + "-in";
    static final String OUTPUT = GROUP + "-out";
    static final String APP = GROUP + "-app";
    static final String FENCED = GROUP + "-fenced";
    static final String HANGING = GROUP + "-hanging";
    static final int PARTITIONS = 2;
    static final int RECORDS = 40;
    /** A hanging transaction outlives the recording: 10 minutes, below the broker's transaction.max.timeout.ms. */
    static final String HANGING_TIMEOUT_MS = "600000";

    private final TransactionViews transactions = new TransactionViews(admin);
    private final Map<String, Integer> counts = new HashMap<>();

    @Override
    protected void play() throws Exception {
        inputAndOutput(INPUT, OUTPUT, PARTITIONS, RECORDS);

        step(APP + ": committed, aborted, committed");
        try (KafkaProducer<String, String> app = producer(APP)) {
            app.initTransactions();
            transaction(app, APP, List.of(0, 1), offsets(5, 5), true);
            transaction(app, APP, List.of(0, 1), offsets(10, 10), false);
            transaction(app, APP, List.of(0, 1), offsets(10, 10), true);
        }

        step(FENCED + ": a second producer fences the first");
        fence();

        step(HANGING + ": a transaction begun, then the producer killed");
        hang();

        step("the transactions as the coordinators see them");
        for (String id : List.of(APP, FENCED, HANGING)) transactions.snapshot(id);
        transactions.listed();
        transactions.producers(List.of(new TopicPartition(OUTPUT, 0), new TopicPartition(OUTPUT, 1)));
        groups.committed(GROUP);
    }

    /** The first producer begins; the second initialises the same id, which aborts the first's transaction. */
    private void fence() {
        try (KafkaProducer<String, String> first = producer(FENCED)) {
            first.initTransactions();
            Begun begun = begin(first, FENCED, List.of(0), offsets(15, -1));
            try (KafkaProducer<String, String> second = producer(FENCED)) {
                second.initTransactions();
                TransactionDescription now = transactions.describe(FENCED);
                try {
                    first.commitTransaction();
                    throw new IllegalStateException("the first producer of " + FENCED + " was not fenced");
                } catch (KafkaException e) {
                    truth.record(FENCED, "fenced", Json.object()
                        .put("transactional_id", FENCED)
                        .put("producer_id", begun.description.producerId())
                        .put("producer_epoch", begun.description.producerEpoch())
                        .put("new_epoch", now.producerEpoch())
                        .put("error", e.getClass().getSimpleName())
                        .put("message", e.getMessage()));
                }
                end(begun, "aborted");
                transaction(second, FENCED, List.of(0), offsets(15, 15), true);
            }
        }
    }

    /** The hanging producer's transaction, once it is Ongoing with its offsets in; then it is killed. */
    private void hang() {
        JavaProcess hanging = process(JavaProcess.start(HANGING, null, HangingProducer.class.getName(),
            "--bootstrap", bootstrap, "--transactional-id", HANGING, "--topic", OUTPUT, "--partition", "1",
            "--records", "5", "--group", GROUP, "--offsets", INPUT + "-0=20," + INPUT + "-1=20",
            "--timeout-ms", HANGING_TIMEOUT_MS));
        TransactionDescription ongoing = transactions.awaitOngoing(HANGING, "__consumer_offsets", 60_000);
        hanging.kill9();
        Map<TopicPartition, OffsetAndMetadata> offsets = offsets(20, 20);
        end(new Begun(HANGING, next(HANGING), ongoing, offsets, 5), "open");
    }

    /** One whole transaction of {@code producer}: records to {@code partitions}, the offsets, then commit or abort. */
    private void transaction(KafkaProducer<String, String> producer, String id, List<Integer> partitions,
                             Map<TopicPartition, OffsetAndMetadata> offsets, boolean commit) {
        Begun begun = begin(producer, id, partitions, offsets);
        if (commit) producer.commitTransaction();
        else producer.abortTransaction();
        end(begun, commit ? "committed" : "aborted");
    }

    /** Begin a transaction: 5 records to each partition, the group's offsets; described while it is Ongoing. */
    private Begun begin(KafkaProducer<String, String> producer, String id, List<Integer> partitions,
                        Map<TopicPartition, OffsetAndMetadata> offsets) {
        int txn = next(id);
        producer.beginTransaction();
        for (int partition : partitions) {
            for (int n = 0; n < 5; n++) producer.send(new ProducerRecord<>(OUTPUT, partition, null, id + "-" + txn + "-" + n));
        }
        producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(GROUP));
        producer.flush();
        return new Begun(id, txn, transactions.describe(id), offsets, 5 * partitions.size());
    }

    private void end(Begun begun, String outcome) {
        Map<TopicPartition, Long> plain = new HashMap<>();
        begun.offsets.forEach((partition, offset) -> plain.put(partition, offset.offset()));
        truth.record(begun.id, "txn", Json.object()
            .put("transactional_id", begun.id)
            .put("txn", begun.txn)
            .put("producer_id", begun.description.producerId())
            .put("producer_epoch", begun.description.producerEpoch())
            .put("partitions", Names.partitions(begun.description.topicPartitions()))
            .put("start", begun.description.transactionStartTimeMs().isPresent()
                ? begun.description.transactionStartTimeMs().getAsLong() : null)
            .put("end", outcome.equals("open") ? null : System.currentTimeMillis())
            .put("outcome", outcome)
            .put("group", GROUP)
            .put("offsets", Names.byPartition(plain))
            .put("records", begun.records));
    }

    /** What a transaction's truth line needs from its beginning. */
    private record Begun(String id, int txn, TransactionDescription description,
                         Map<TopicPartition, OffsetAndMetadata> offsets, int records) {}

    private int next(String id) {
        return counts.merge(id, 1, Integer::sum);
    }

    /** The group's next offsets on lab-txh-in's two partitions (a negative one: that partition left out). */
    private static Map<TopicPartition, OffsetAndMetadata> offsets(long first, long second) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        if (first >= 0) offsets.put(new TopicPartition(INPUT, 0), new OffsetAndMetadata(first));
        if (second >= 0) offsets.put(new TopicPartition(INPUT, 1), new OffsetAndMetadata(second));
        return offsets;
    }

    private KafkaProducer<String, String> producer(String id) {
        return new KafkaProducer<>(ClientConfig.producer(bootstrap, id).transactional(id).properties());
    }

    public static void main(String[] args) {
        run("transactions-hanging", new TransactionsHanging());
    }
}
