package kafkameta.lab.clients;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import kafkameta.lab.truth.Json;
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

/**
 * What Kafka's Admin client says about a share group (KIP-932), written to truth.jsonl: `describeShareGroups`
 * snapshots ("describe": state, epochs, every member with its assignment), the share-partition start offsets
 * and lag ("share_offsets"), and the group's dynamic configuration ("group_config").
 */
public final class ShareGroups extends GroupAdmin<ShareGroupDescription> {
    public ShareGroups(Admin admin) {
        super(admin, "share group", "describeShareGroups", (a, group) -> a.describeShareGroups(Collections.singleton(group)).all());
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

    @Override
    protected Json describeLine(String group, ShareGroupDescription description) {
        Json line = Json.object().put("group", group).put("type", "Share")
            .put("state", String.valueOf(description.groupState()));
        return withEpochs(line, description.groupEpoch(), description.targetAssignmentEpoch(), description.coordinator())
            .put("members", lines(description.members(), member -> Json.object()
                .put("member_id", member.consumerId())
                .put("client_id", member.clientId())
                .put("host", member.host())
                .put("partitions", Names.partitions(member.assignment().topicPartitions()))
                .put("member_epoch", member.memberEpoch())));
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

    @Override
    protected boolean isSettled(ShareGroupDescription description, int members, int partitions) {
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
}
