package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * What Kafka's Admin client says about a share group (KIP-932), written to truth.jsonl: `describeShareGroups`
 * snapshots ("describe": state, epochs, every member with its assignment), the share-partition start offsets
 * and lag ("share_offsets"), and the group's dynamic configuration ("group_config").
 */
public final class ShareGroups {
    private final Admin admin;
    private final Truth truth = Truth.get();

    public ShareGroups(Admin admin) {
        this.admin = admin;
    }

    /** Set dynamic group configs (ConfigResource type GROUP) and write what the broker then describes for them. */
    public void configure(String group, Map<String, String> settings) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.GROUP, group);
        List<AlterConfigOp> ops = new ArrayList<>();
        settings.forEach((name, value) -> ops.add(new AlterConfigOp(new ConfigEntry(name, value), AlterConfigOp.OpType.SET)));
        get(admin.incrementalAlterConfigs(Map.of(resource, ops)).all(), "incrementalAlterConfigs " + group);
        Config described = get(admin.describeConfigs(Collections.singleton(resource)).all(), "describeConfigs " + group)
            .get(resource);
        Map<String, String> values = new TreeMap<>();
        for (String name : settings.keySet()) {
            ConfigEntry entry = described.get(name);
            values.put(name, entry == null ? null : entry.value());
        }
        truth.record("admin", "group_config", Json.object().put("group", group).put("configs", values));
    }

    public ShareGroupDescription describe(String group) {
        return get(admin.describeShareGroups(Collections.singleton(group)).all(), "describeShareGroups " + group).get(group);
    }

    /** Describe the group and write the snapshot to truth. */
    public ShareGroupDescription snapshot(String group) {
        ShareGroupDescription description = describe(group);
        List<Json> members = new ArrayList<>();
        for (ShareMemberDescription member : description.members()) {
            members.add(Json.object()
                .put("member_id", member.consumerId())
                .put("client_id", member.clientId())
                .put("host", member.host())
                .put("partitions", Names.partitions(member.assignment().topicPartitions()))
                .put("member_epoch", member.memberEpoch()));
        }
        truth.record("admin", "describe", Json.object()
            .put("group", group)
            .put("type", "Share")
            .put("state", String.valueOf(description.groupState()))
            .put("group_epoch", description.groupEpoch())
            .put("target_assignment_epoch", description.targetAssignmentEpoch())
            .put("coordinator", description.coordinator() == null ? null : description.coordinator().id())
            .put("members", members));
        return description;
    }

    /** The share-partition start offsets (SPSO) and lag of every partition the group has state for. */
    public Map<String, Long> offsets(String group) {
        Map<TopicPartition, SharePartitionOffsetInfo> infos = get(admin.listShareGroupOffsets(
            Map.of(group, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(group), "listShareGroupOffsets " + group);
        Map<TopicPartition, Long> start = new HashMap<>();
        Map<TopicPartition, Long> lag = new HashMap<>();
        for (Map.Entry<TopicPartition, SharePartitionOffsetInfo> entry : infos.entrySet()) {
            if (entry.getValue() == null) continue;
            start.put(entry.getKey(), entry.getValue().startOffset());
            lag.put(entry.getKey(), entry.getValue().lag().orElse(null));
        }
        Map<String, Long> named = Names.byPartition(start);
        truth.record("admin", "share_offsets", Json.object().put("group", group).put("start_offsets", named)
            .put("lag", Names.byPartition(lag)));
        return named;
    }

    /**
     * Wait until the share group has `members` members, all at the group's target assignment epoch, which
     * between them hold all `partitions` partitions (a share group may give one partition to several members);
     * then write a snapshot. Fails after `timeoutMs`.
     */
    public ShareGroupDescription awaitStable(String group, int members, int partitions, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        ShareGroupDescription last = null;
        while (System.currentTimeMillis() < deadline) {
            last = describeIfFound(group);
            if (last != null && isSettled(last, members, partitions)) return snapshot(group);
            Groups.sleep(250);
        }
        throw new IllegalStateException("share group " + group + " did not settle with " + members + " members within "
            + timeoutMs + " ms; last seen: " + last);
    }

    static boolean isSettled(ShareGroupDescription description, int members, int partitions) {
        GroupState state = description.groupState();
        if (members == 0) return state == GroupState.EMPTY || state == GroupState.DEAD;
        if (state != GroupState.STABLE || description.members().size() != members) return false;
        int epoch = description.targetAssignmentEpoch();
        if (description.groupEpoch() != epoch) return false;
        Set<TopicPartition> held = new HashSet<>();
        for (ShareMemberDescription member : description.members()) {
            if (member.memberEpoch() != epoch) return false;
            held.addAll(member.assignment().topicPartitions());
        }
        return held.size() == partitions;
    }

    private ShareGroupDescription describeIfFound(String group) {
        try {
            return admin.describeShareGroups(Collections.singleton(group)).all().get().get(group);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) return null;
            throw new IllegalStateException("describeShareGroups " + group + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static <T> T get(KafkaFuture<T> future, String what) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + ": " + e.getCause(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
