package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongConsumer;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What the Admin views of a classic or consumer group ({@link Groups}), a share group ({@link ShareGroups}) and a
 * streams group ({@link StreamsGroups}) share: a call that fails with the call and the group named, a describe
 * that says "not yet" while the coordinator does not know the group, the committed offsets written to truth,
 * and the wait until a group has settled. {@code D} is the description the Admin client gives for the kind.
 */
public abstract class GroupAdmin<D> {
    protected final Admin admin;
    protected final Truth truth = Truth.get();
    private final String kind;
    private final String describeCall;
    private final BiFunction<Admin, String, KafkaFuture<Map<String, D>>> describing;

    /**
     * {@code kind} names the groups in failures ("group", "share group", "streams group"); {@code describing}
     * is the Admin call that describes one group, {@code describeCall} its name ("describeShareGroups").
     */
    protected GroupAdmin(Admin admin, String kind, String describeCall,
                         BiFunction<Admin, String, KafkaFuture<Map<String, D>>> describing) {
        this.admin = admin;
        this.kind = kind;
        this.describeCall = describeCall;
        this.describing = describing;
    }

    /** The fields of a snapshot's truth line: the group's, then its members' ({@link #lines}). */
    protected abstract Json describeLine(String group, D description);

    /** The event of a snapshot's truth line. */
    protected String snapshotEvent() {
        return "describe";
    }

    /** Describe the group and write the snapshot to truth. */
    public D snapshot(String group) {
        D description = describe(group);
        truth.record("admin", snapshotEvent(), describeLine(group, description));
        return description;
    }

    /** One JSON object for each of {@code items} (a group's members, a topology's subtopologies), in order. */
    protected static <T> List<Json> lines(Collection<? extends T> items, Function<T, Json> line) {
        List<Json> lines = new ArrayList<>();
        for (T item : items) lines.add(line.apply(item));
        return lines;
    }

    /** The coordinator's broker id, null when the answer named none. */
    protected static Integer coordinatorId(Node coordinator) {
        return coordinator == null ? null : coordinator.id();
    }

    /** {@code line} with the epochs every kind of group describes and its coordinator's id. */
    protected static Json withEpochs(Json line, Object groupEpoch, Object targetAssignmentEpoch, Node coordinator) {
        return line.put("group_epoch", groupEpoch).put("target_assignment_epoch", targetAssignmentEpoch)
            .put("coordinator", coordinatorId(coordinator));
    }

    public D describe(String group) {
        return get(describing.apply(admin, group), describeCall + " " + group).get(group);
    }

    /**
     * Describe the group, or null while the coordinator does not know it: a group of the newer protocols is
     * created by its first heartbeat, and its describe answers GROUP_ID_NOT_FOUND until then (where a classic
     * group is described as Dead).
     */
    public D describeIfFound(String group) {
        try {
            return describe(group);
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof ExecutionException && e.getCause().getCause() instanceof GroupIdNotFoundException) {
                return null;
            }
            throw e;
        }
    }

    /**
     * Whether the group is as {@link #awaitStable} wants it with {@code members} members holding {@code held}
     * partitions (a streams group: active tasks).
     */
    protected abstract boolean isSettled(D description, int members, int held);

    /** What stays the same while a settled group does not change, what a quiet time is counted on. */
    protected Object settledKey(D description) {
        return Boolean.TRUE;
    }

    /**
     * Wait until the group is Stable with {@code members} members between them holding all {@code held}
     * partitions (a streams group: active tasks), or Empty when {@code members} is 0, and has stayed so for
     * {@code quietMs}; then write a snapshot. Fails after {@code timeoutMs}. What each kind checks besides:
     * {@code isSettled}.
     */
    public D awaitStable(String group, int members, int held, long quietMs, long timeoutMs) {
        return awaitSettled(group, members + " members", timeoutMs, quietMs,
            description -> isSettled(description, members, held) ? settledKey(description) : null);
    }

    /** {@link #awaitStable(String, int, int, long, long)} with no quiet time: the first sight of it will do. */
    public D awaitStable(String group, int members, int held, long timeoutMs) {
        return awaitStable(group, members, held, 0, timeoutMs);
    }

    /**
     * Wait until {@code state} of the group's description has been the same, and not null, for {@code quietMs}
     * (0: the first time it is not null); then call {@code settled} with when that state began and return a
     * snapshot. {@code state} returns null while the group is not as the caller wants it. Fails after
     * {@code timeoutMs}, with a snapshot written when the group can be described.
     */
    public D awaitSettled(String group, String wanted, long timeoutMs, long quietMs, Function<D, Object> state,
                          LongConsumer settled) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        D last = null;
        Object steady = null;
        long since = 0;
        while (System.currentTimeMillis() < deadline) {
            last = describeIfFound(group);
            long now = System.currentTimeMillis();
            Object current = last == null ? null : state.apply(last);
            if (!Objects.equals(current, steady)) {
                steady = current;
                since = now;
            }
            if (current != null && now - since >= quietMs) {
                settled.accept(since);
                return snapshot(group);
            }
            sleep(250);
        }
        if (last != null) snapshot(group);
        throw new IllegalStateException(kind + " " + group + " did not settle with " + wanted + " within " + timeoutMs
            + " ms; last seen: " + last);
    }

    /** {@link #awaitSettled(String, String, long, long, Function, LongConsumer)} with nothing to do when settled. */
    public D awaitSettled(String group, String wanted, long timeoutMs, long quietMs, Function<D, Object> state) {
        return awaitSettled(group, wanted, timeoutMs, quietMs, state, since -> { });
    }

    /**
     * Write the group's committed offsets as {@code listing} answers them, with "asked": when the request was
     * sent (the event's ts is when the answer was in), so a commit that took force in between may or may not be
     * in the answer.
     */
    protected Map<String, Long> committed(String group, String call, long asked,
                                          KafkaFuture<Map<TopicPartition, OffsetAndMetadata>> listing) {
        Map<TopicPartition, Long> plain = new HashMap<>();
        for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : get(listing, call + " " + group).entrySet()) {
            if (entry.getValue() != null) plain.put(entry.getKey(), entry.getValue().offset());
        }
        Map<String, Long> named = Names.byPartition(plain);
        truth.record("admin", "committed", Json.object().put("group", group).put("asked", asked).put("offsets", named));
        return named;
    }

    /** The future's value; a failure names {@code what} (the call and its group) and carries Kafka's cause. */
    public static <T> T get(KafkaFuture<T> future, String what) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
