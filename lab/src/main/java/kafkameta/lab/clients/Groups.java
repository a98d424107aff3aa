package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What Kafka's Admin client says about a group, written to truth.jsonl: `describeConsumerGroups` snapshots
 * (state, type, assignor, epochs, every member with its assignment) and the committed offsets.
 */
public final class Groups {
    private final Admin admin;
    private final Truth truth = Truth.get();

    public Groups(Admin admin) {
        this.admin = admin;
    }

    public ConsumerGroupDescription describe(String group) {
        try {
            return admin.describeConsumerGroups(Collections.singleton(group)).all().get().get(group);
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("describeConsumerGroups " + group + ": " + e.getCause(), e);
        }
    }

    /**
     * Describe the group, or null while the coordinator does not know it: a KIP-848 group is created by its
     * first heartbeat, and ConsumerGroupDescribe answers GROUP_ID_NOT_FOUND until then (where a classic group
     * is described as Dead).
     */
    private ConsumerGroupDescription describeIfFound(String group) {
        try {
            return admin.describeConsumerGroups(Collections.singleton(group)).all().get().get(group);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) return null;
            throw new IllegalStateException("describeConsumerGroups " + group + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Describe the group and write the snapshot to truth. */
    public ConsumerGroupDescription snapshot(String group) {
        ConsumerGroupDescription description = describe(group);
        List<Json> members = new ArrayList<>();
        for (MemberDescription member : description.members()) {
            members.add(Json.object()
                .put("member_id", member.consumerId())
                .put("instance", member.groupInstanceId())
                .put("client_id", member.clientId())
                .put("host", member.host())
                .put("partitions", Names.partitions(member.assignment().topicPartitions()))
                .put("target", member.targetAssignment().map(a -> Names.partitions(a.topicPartitions())))
                .put("member_epoch", member.memberEpoch())
                .put("upgraded", member.upgraded()));
        }
        truth.record("admin", "describe", Json.object()
            .put("group", group)
            .put("type", String.valueOf(description.type()))
            .put("state", String.valueOf(description.groupState()))
            .put("assignor", description.partitionAssignor())
            .put("group_epoch", description.groupEpoch())
            .put("target_assignment_epoch", description.targetAssignmentEpoch())
            .put("coordinator", description.coordinator() == null ? null : description.coordinator().id())
            .put("members", members));
        return description;
    }

    /**
     * The group's committed offsets, written to truth with "asked": when the request was sent (the event's ts is
     * when the answer was in), so a commit that took force in between may or may not be in the answer.
     */
    public Map<String, Long> committed(String group) {
        long asked = System.currentTimeMillis();
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, Long> plain = new java.util.HashMap<>();
            for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : offsets.entrySet()) {
                if (entry.getValue() != null) plain.put(entry.getKey(), entry.getValue().offset());
            }
            Map<String, Long> named = Names.byPartition(plain);
            truth.record("admin", "committed",
                Json.object().put("group", group).put("asked", asked).put("offsets", named));
            return named;
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("listConsumerGroupOffsets " + group + ": " + e.getCause(), e);
        }
    }

    /**
     * Wait until the group is Stable with `members` members, every one of them holding partitions when there are
     * enough to go round; then write a snapshot. Fails after `timeoutMs`.
     */
    public ConsumerGroupDescription awaitStable(String group, int members, int partitions, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        ConsumerGroupDescription last = null;
        while (System.currentTimeMillis() < deadline) {
            last = describeIfFound(group);
            if (last != null && isSettled(last, members, partitions)) return snapshot(group);
            sleep(250);
        }
        snapshot(group);
        throw new IllegalStateException("group " + group + " did not settle with " + members + " members within "
            + timeoutMs + " ms; last seen: " + last);
    }

    static boolean isSettled(ConsumerGroupDescription description, int members, int partitions) {
        GroupState state = description.groupState();
        if (members == 0) return state == GroupState.EMPTY || state == GroupState.DEAD;
        if (state != GroupState.STABLE || description.members().size() != members) return false;
        int held = 0;
        for (MemberDescription member : description.members()) {
            int size = member.assignment().topicPartitions().size();
            if (size == 0 && partitions >= members) return false;
            if (member.targetAssignment().isPresent()
                && !member.targetAssignment().get().topicPartitions().equals(member.assignment().topicPartitions())) {
                return false;
            }
            held += size;
        }
        return held == partitions;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
