package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersResult.PartitionProducerState;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;

/**
 * What Kafka's Admin client says about transactions (KIP-664), written to truth.jsonl: the transaction
 * coordinator's state of a transactional.id (DescribeTransactions: producer id and epoch, state, timeout,
 * start, partitions), the transactional ids it lists (ListTransactions), and the producers a partition leader
 * knows (DescribeProducers: each producer's epoch, last sequence and the first offset of its open transaction).
 *
 * <p>Truth lines (source "admin"): {@code transaction_state} (transactional_id, state, producer_id,
 * producer_epoch, timeout_ms, start: transactionStartTimeMs or null, partitions, coordinator),
 * {@code transactions_listed} (transactions: [{transactional_id, producer_id, state}]), {@code producers}
 * (partition, producers: [{producer_id, producer_epoch, last_sequence, last_timestamp, coordinator_epoch,
 * txn_start_offset}]).
 */
public final class TransactionViews {
    private final Admin admin;
    private final Truth truth = Truth.get();

    public TransactionViews(Admin admin) {
        this.admin = admin;
    }

    public TransactionDescription describe(String transactionalId) {
        return GroupAdmin.get(admin.describeTransactions(Collections.singleton(transactionalId)).description(transactionalId),
            "describeTransactions " + transactionalId);
    }

    /** Describe the transactional id and write its state to truth. */
    public TransactionDescription snapshot(String transactionalId) {
        TransactionDescription description = describe(transactionalId);
        truth.record("admin", "transaction_state", Json.object()
            .put("transactional_id", transactionalId)
            .put("state", String.valueOf(description.state()))
            .put("producer_id", description.producerId())
            .put("producer_epoch", description.producerEpoch())
            .put("timeout_ms", description.transactionTimeoutMs())
            .put("start", description.transactionStartTimeMs().isPresent() ? description.transactionStartTimeMs().getAsLong() : null)
            .put("partitions", Names.partitions(description.topicPartitions()))
            .put("coordinator", description.coordinatorId()));
        return description;
    }

    /**
     * Wait until the transactional id's transaction is Ongoing with a partition of {@code topic} among its
     * partitions (the offsets topic: its TxnOffsetCommit is in); fails after {@code timeoutMs}.
     */
    public TransactionDescription awaitOngoing(String transactionalId, String topic, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        TransactionDescription last = null;
        while (System.currentTimeMillis() < deadline) {
            try {
                last = describe(transactionalId);
            } catch (IllegalStateException e) {
                last = null; // not known to the coordinator yet
            }
            if (last != null && last.state() == TransactionState.ONGOING
                && last.topicPartitions().stream().anyMatch(tp -> tp.topic().equals(topic))) {
                return last;
            }
            GroupAdmin.sleep(200);
        }
        throw new IllegalStateException("transaction of " + transactionalId + " not ongoing with " + topic + " within "
            + timeoutMs + " ms; last seen: " + last);
    }

    /** Every transactional id the coordinator lists, written to truth. */
    public Collection<TransactionListing> listed() {
        Collection<TransactionListing> listings = GroupAdmin.get(admin.listTransactions().all(), "listTransactions");
        List<Json> lines = new ArrayList<>();
        Map<String, TransactionListing> sorted = new TreeMap<>();
        for (TransactionListing listing : listings) sorted.put(listing.transactionalId(), listing);
        for (TransactionListing listing : sorted.values()) {
            lines.add(Json.object().put("transactional_id", listing.transactionalId())
                .put("producer_id", listing.producerId()).put("state", String.valueOf(listing.state())));
        }
        truth.record("admin", "transactions_listed", Json.object().put("transactions", lines));
        return listings;
    }

    /** The producers each partition's leader knows, one truth line a partition. */
    public void producers(Collection<TopicPartition> partitions) {
        Map<TopicPartition, PartitionProducerState> states =
            GroupAdmin.get(admin.describeProducers(partitions).all(), "describeProducers " + partitions);
        for (TopicPartition partition : partitions) {
            List<Json> producers = new ArrayList<>();
            for (ProducerState state : states.get(partition).activeProducers()) {
                producers.add(Json.object()
                    .put("producer_id", state.producerId())
                    .put("producer_epoch", state.producerEpoch())
                    .put("last_sequence", state.lastSequence())
                    .put("last_timestamp", state.lastTimestamp())
                    .put("coordinator_epoch", state.coordinatorEpoch().isPresent() ? state.coordinatorEpoch().getAsInt() : null)
                    .put("txn_start_offset", state.currentTransactionStartOffset().isPresent()
                        ? state.currentTransactionStartOffset().getAsLong() : null));
            }
            truth.record("admin", "producers", Json.object()
                .put("partition", partition.topic() + "-" + partition.partition()).put("producers", producers));
        }
    }
}
