package kafkameta.lab.clients;

import java.util.HashMap;
import java.util.Map;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Stdin;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A transactional producer that begins a transaction and never ends it, in a JVM of its own that the scenario
 * kills with SIGKILL: it initialises its transactional.id with a long transaction.timeout.ms, begins a
 * transaction, writes records to one partition, puts a group's offsets into the transaction
 * (sendOffsetsToTransaction: a TxnOffsetCommit, which returns once the coordinator holds them pending) and
 * then waits. Killed, it leaves what an operator finds behind a crashed producer: the partition's records with
 * no marker after them, the group's offset commit pending in __consumer_offsets, and __transaction_state
 * saying Ongoing until the timeout, long after the recording ends. A "stop" on standard input halts the JVM
 * the same way (no abort, no close).
 *
 * <p>Arguments (`--name value`): bootstrap, transactional-id (also client.id and truth source), topic,
 * partition, records, group, offsets (comma separated "topic-partition=offset"), timeout-ms.
 * Truth: "txn_pending" (transactional_id, topic, partition, records, group, offsets) once the offsets are in.
 */
public final class HangingProducer {
    private HangingProducer() {}

    public static void main(String[] args) throws Exception {
        Stdin.onStop(() -> Runtime.getRuntime().halt(0));
        Options options = new Options(args);
        String id = options.get("transactional-id");
        String topic = options.get("topic");
        int partition = options.getInt("partition", 0);
        int records = options.getInt("records", 5);
        String group = options.get("group");
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        Map<TopicPartition, Long> plain = new HashMap<>();
        for (String entry : options.list("offsets", "")) {
            String name = entry.substring(0, entry.indexOf('='));
            int dash = name.lastIndexOf('-');
            TopicPartition tp = new TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1)));
            long offset = Long.parseLong(entry.substring(entry.indexOf('=') + 1));
            offsets.put(tp, new OffsetAndMetadata(offset));
            plain.put(tp, offset);
        }
        KafkaProducer<String, String> producer = new KafkaProducer<>(ClientConfig.producer(options.get("bootstrap"), id)
            .transactional(id).set(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, options.get("timeout-ms")).properties());
        producer.initTransactions();
        producer.beginTransaction();
        for (int n = 0; n < records; n++) producer.send(new ProducerRecord<>(topic, partition, null, "open-" + n));
        producer.flush();
        producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(group));
        Truth.get().record(id, "txn_pending", Json.object().put("transactional_id", id).put("topic", topic)
            .put("partition", partition).put("records", records).put("group", group)
            .put("offsets", Names.byPartition(plain)));
        Thread.sleep(Long.MAX_VALUE);
    }
}
