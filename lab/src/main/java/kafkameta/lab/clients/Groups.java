package kafkameta.lab.clients;

import java.util.Collections;
import java.util.Map;
import kafkameta.lab.truth.Json;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.GroupState;

/**
 * What Kafka's Admin client says about a group, written to truth.jsonl: `describeConsumerGroups` snapshots
 * (state, type, assignor, epochs, every member with its assignment) and the committed offsets.
 */
public final class Groups extends GroupAdmin<ConsumerGroupDescription> {
    public Groups(Admin admin) {
        super(admin, "group", "describeConsumerGroups", (a, group) -> a.describeConsumerGroups(Collections.singleton(group)).all());
    }

    @Override
    protected Json describeLine(String group, ConsumerGroupDescription description) {
        Json line = Json.object().put("group", group).put("type", String.valueOf(description.type()))
            .put("state", String.valueOf(description.groupState())).put("assignor", description.partitionAssignor());
        return withEpochs(line, description.groupEpoch(), description.targetAssignmentEpoch(), description.coordinator())
            .put("members", lines(description.members(), member -> Json.object()
                .put("member_id", member.consumerId())
                .put("instance", member.groupInstanceId())
                .put("client_id", member.clientId())
                .put("host", member.host())
                .put("partitions", Names.partitions(member.assignment().topicPartitions()))
                .put("target", member.targetAssignment().map(a -> Names.partitions(a.topicPartitions())))
                .put("member_epoch", member.memberEpoch())
                .put("upgraded", member.upgraded())));
    }

    /** The group's committed offsets (listConsumerGroupOffsets), written to truth. */
    public Map<String, Long> committed(String group) {
        long asked = System.currentTimeMillis();
        return committed(group, "listConsumerGroupOffsets", asked,
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    }

    @Override
    protected boolean isSettled(ConsumerGroupDescription description, int members, int partitions) {
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
}
