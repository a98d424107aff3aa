package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataDelta;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.ModernGroup;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.coordinator.group.modern.SubscriptionCount;
import org.apache.kafka.coordinator.group.modern.TopicIds;

/**
 * The broker's KIP-848 assignors (UniformAssignor, RangeAssignor of org.apache.kafka.coordinator.group.assignor)
 * given a group as the coordinator's TargetAssignmentBuilder hands it over: a GroupSpecImpl over the member specs
 * (a HashMap filled in the order the members are listed), each member's subscribed names as the HashSet a
 * ConsumerGroupMember keeps, seen through TopicIds, its current target assignment as read back from its record
 * (a HashMap of HashSets in an Assignment), the inverted target assignment, and the subscription type
 * ModernGroup derives from the names' subscriber counts; topics come from a metadata image holding just them.
 *
 * <p>{@code assignor.server} {assignor: "uniform"|"range", topics: [{name, id (32 hex digits), partitions}],
 * members: [{id, topics: [names], assignment: [[topic id, [partitions]]...], instance?, rack?}]} answers
 * {assignment: {member: [[topic id, partition]...]}, type: "HOMOGENEOUS"|"HETEROGENEOUS"}.
 */
final class ServerAssignors {
    private ServerAssignors() {}

    public static void register(Peer peer) {
        AssignorJson.quiet("org.apache.kafka.coordinator.group");
        peer.register("assignor.server", ServerAssignors::assign);
    }

    static JsonNode assign(ObjectNode request) {
        ConsumerGroupPartitionAssignor assignor = switch (request.path("assignor").asText()) {
            case "uniform" -> new UniformAssignor();
            case "range" -> new RangeAssignor();
            default -> throw new IllegalArgumentException("no server assignor named " + request.path("assignor"));
        };
        Image image = new Image(request.path("topics"));
        TopicIds.TopicResolver resolver = new TopicIds.CachedTopicResolver(image);
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        Map<String, SubscriptionCount> subscribers = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (JsonNode member : request.path("members")) {
            String id = member.path("id").asText();
            Set<String> names = new HashSet<>(AssignorJson.strings(member.get("topics")));
            names.forEach(name -> subscribers.compute(name, SubscriptionCount::incNameCount));
            Map<Uuid, Set<Integer>> current = new HashMap<>();
            for (JsonNode entry : member.path("assignment")) {
                Uuid topic = uuid(entry.get(0).asText());
                List<Integer> partitions = new ArrayList<>();
                entry.get(1).forEach(p -> partitions.add(p.asInt()));
                current.put(topic, new HashSet<>(partitions));
                partitions.forEach(p -> inverted.computeIfAbsent(topic, t -> new HashMap<>()).put(p, id));
            }
            specs.put(id, new MemberSubscriptionAndAssignmentImpl(
                AssignorJson.optional(member.get("rack")), AssignorJson.optional(member.get("instance")),
                new TopicIds(names, resolver), new Assignment(current)));
        }
        SubscriptionType type = ModernGroup.subscriptionType(subscribers, specs.size());
        GroupAssignment result = assignor.assign(
            new GroupSpecImpl(Collections.unmodifiableMap(specs), type, inverted), new SubscribedTopicDescriberImpl(image));
        ObjectNode out = Peer.JSON.createObjectNode().put("type", type.name());
        ObjectNode byMember = out.putObject("assignment");
        new TreeMap<>(result.members()).forEach((member, assignment) -> {
            var partitions = byMember.putArray(member);
            new TreeMap<>(assignment.partitions()).forEach((topic, set) ->
                new TreeSet<>(set).forEach(p -> partitions.addArray().add(hex(topic)).add(p)));
        });
        return out;
    }

    static Uuid uuid(String hex) {
        return new Uuid(Long.parseUnsignedLong(hex.substring(0, 16), 16), Long.parseUnsignedLong(hex.substring(16), 16));
    }

    static String hex(Uuid id) {
        return String.format("%016x%016x", id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /** A metadata image holding only the request's topics (partition racks are not modelled: none). */
    static final class Image implements CoordinatorMetadataImage {
        private final Map<String, TopicMetadata> byName = new HashMap<>();
        private final Map<Uuid, TopicMetadata> byId = new HashMap<>();

        Image(JsonNode topics) {
            for (JsonNode topic : topics) {
                Topic t = new Topic(topic.path("name").asText(), uuid(topic.path("id").asText()),
                    topic.path("partitions").asInt());
                byName.put(t.name(), t);
                byId.put(t.id(), t);
            }
        }

        @Override public Set<Uuid> topicIds() { return Collections.unmodifiableSet(byId.keySet()); }
        @Override public Set<String> topicNames() { return Collections.unmodifiableSet(byName.keySet()); }
        @Override public Optional<TopicMetadata> topicMetadata(String name) { return Optional.ofNullable(byName.get(name)); }
        @Override public Optional<TopicMetadata> topicMetadata(Uuid id) { return Optional.ofNullable(byId.get(id)); }
        @Override public CoordinatorMetadataDelta emptyDelta() { throw new UnsupportedOperationException(); }
        @Override public long version() { return 0; }
        @Override public boolean isEmpty() { return byId.isEmpty(); }
    }

    record Topic(String name, Uuid id, int partitionCount) implements CoordinatorMetadataImage.TopicMetadata {
        @Override public List<String> partitionRacks(int partition) { return List.of(); }
    }
}
