package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.InternalTopologyBuilder;
import org.apache.kafka.streams.processor.internals.PeerTaskManager;
import org.apache.kafka.streams.processor.internals.StreamsMetadataState;
import org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor;
import org.apache.kafka.streams.processor.internals.TopologyMetadata;
import org.apache.kafka.streams.processor.internals.assignment.AssignmentInfo;
import org.apache.kafka.streams.processor.internals.assignment.AssignorConfiguration.AssignmentListener;
import org.apache.kafka.streams.processor.internals.assignment.ReferenceContainer;
import org.apache.kafka.streams.processor.internals.assignment.StreamsAssignmentProtocolVersions;
import org.apache.kafka.streams.processor.internals.assignment.SubscriptionInfo;

/**
 * Kafka Streams' own version negotiation: a real, configured StreamsPartitionAssignor of this Kafka (4.4) deciding
 * as a group leader and as a member, with one stateless topology (one source topic of six partitions), one thread
 * per instance, no endpoint, nothing owned yet. Its collaborators that reach outside the process (the admin and
 * main consumer) answer nothing; the assignor asks them nothing for a stateless topology on a first rebalance.
 *
 * <ul>
 *   <li>{@code streams.leader} {upgradeFrom, members: [{id, used, latest, errorCode}]}: each member's
 *       SubscriptionInfo as Kafka writes it at {@code used} (a future or inconsistent pair is Kafka's bytes with
 *       those two leading fields set), then {@code assign()}: per member the AssignmentInfo version, commonly
 *       supported version, error code and nextRebalanceMs it was sent, and whether the assignor called the
 *       assignment stable (a version-probing assignment is not);</li>
 *   <li>{@code streams.member} {upgradeFrom, used, assignment: {version, commonlySupportedVersion, errorCode,
 *       nextRebalanceMs}}: a member whose last subscription was at {@code used} receives that AssignmentInfo:
 *       the version of its next subscription, whether it applied the assignment, the error code it keeps and
 *       when it rebalances next (0: at once, Long.MAX_VALUE: not scheduled);</li>
 *   <li>{@code streams.configure} {upgradeFrom}: the version the configured instance subscribes with and its
 *       supported rebalance protocols;</li>
 *   <li>{@code rebalance.protocol} {protocolId}: {@code RebalanceProtocol.forId} of that byte.</li>
 * </ul>
 */
final class StreamsDecisions {
    static final String APPLICATION_ID = "peer-app";
    static final String SOURCE_TOPIC = "input";
    static final int PARTITIONS = 6;
    static final int LATEST = StreamsAssignmentProtocolVersions.LATEST_SUPPORTED_VERSION;
    static final int UNKNOWN = StreamsAssignmentProtocolVersions.UNKNOWN;

    private StreamsDecisions() {}

    public static void register(Peer peer) {
        peer.register("streams.leader", StreamsDecisions::leader);
        peer.register("streams.member", StreamsDecisions::member);
        peer.register("streams.configure", StreamsDecisions::configure);
        peer.register("rebalance.protocol", request ->
            Peer.JSON.getNodeFactory().textNode(RebalanceProtocol.forId((byte) request.path("protocolId").asInt()).name()));
    }

    static JsonNode leader(ObjectNode request) {
        JsonNode members = request.path("members");
        Map<String, Subscription> subscriptions = new LinkedHashMap<>();
        for (int i = 0; i < members.size(); i++) {
            JsonNode m = members.get(i);
            ByteBuffer info = subscription(m.path("used").asInt(), m.path("latest").asInt(UNKNOWN),
                m.path("errorCode").asInt(0), process(i));
            subscriptions.put(m.path("id").asText(), new Subscription(List.of(SOURCE_TOPIC), info));
        }
        Instance leader = new Instance(upgradeFrom(request), process(0));
        Map<String, Assignment> assignments = leader.assignor.assign(cluster(), new GroupSubscription(subscriptions))
            .groupAssignment();
        ObjectNode out = Peer.JSON.createObjectNode();
        ObjectNode perMember = out.putObject("members");
        for (Map.Entry<String, Assignment> e : assignments.entrySet()) {
            AssignmentInfo info = AssignmentInfo.decode(e.getValue().userData());
            perMember.putObject(e.getKey())
                .put("version", info.version())
                .put("commonlySupportedVersion", info.commonlySupportedVersion())
                .put("errorCode", info.errCode())
                .put("nextRebalanceMs", info.nextRebalanceMs())
                .put("partitions", e.getValue().partitions().size());
        }
        if (leader.stable == null) out.putNull("stable");
        else out.put("stable", leader.stable);
        return out;
    }

    static JsonNode member(ObjectNode request) throws ReflectiveOperationException {
        Instance member = new Instance(upgradeFrom(request), process(0));
        member.usedVersion(request.path("used").asInt());
        JsonNode a = request.path("assignment");
        ByteBuffer info = assignment(a.path("version").asInt(), a.path("commonlySupportedVersion").asInt(UNKNOWN),
            a.path("errorCode").asInt(0), a.path("nextRebalanceMs").asLong(Long.MAX_VALUE));
        member.assignor.onAssignment(new Assignment(List.of(), info), null);
        return Peer.JSON.createObjectNode()
            .put("nextVersion", member.usedVersion())
            .put("applied", member.taskManager.assignmentHandled())
            .put("errorCode", member.references.assignmentErrorCode.get())
            .put("nextRebalanceMs", member.references.nextScheduledRebalanceMs.get());
    }

    static JsonNode configure(ObjectNode request) {
        Instance instance = new Instance(upgradeFrom(request), process(0));
        SubscriptionInfo sent = SubscriptionInfo.decode(instance.assignor.subscriptionUserData(Set.of(SOURCE_TOPIC)));
        ObjectNode out = Peer.JSON.createObjectNode().put("subscriptionVersion", sent.version());
        ArrayNode protocols = out.putArray("supportedProtocols");
        instance.assignor.supportedProtocols().forEach(p -> protocols.add(p.name()));
        return out;
    }

    /** A member's SubscriptionInfo: what Kafka's class writes at the nearest version it can write, with the two
     * leading fields (used version, latest supported version from version 3) set to the requested values. */
    static ByteBuffer subscription(int used, int latest, int errorCode, ProcessId process) {
        int written = Math.max(1, Math.min(used, LATEST));
        ByteBuffer bytes = new SubscriptionInfo(written, written <= 2 ? UNKNOWN : LATEST, process, null, Map.of(),
            (byte) 1, errorCode, Map.of()).encode();
        bytes.putInt(0, used);
        if (written >= 3) bytes.putInt(4, latest);
        return bytes;
    }

    /** An AssignmentInfo with no task: Kafka's own bytes, the version field set when Kafka's class cannot write it. */
    static ByteBuffer assignment(int version, int commonlySupported, int errorCode, long nextRebalanceMs) {
        int written = Math.max(1, Math.min(version, LATEST));
        AssignmentInfo info = new AssignmentInfo(written, commonlySupported, List.of(), Map.of(), Map.of(), Map.of(),
            errorCode);
        info.setNextRebalanceTime(nextRebalanceMs);
        ByteBuffer bytes = info.encode();
        bytes.putInt(0, version);
        return bytes;
    }

    static String upgradeFrom(ObjectNode request) {
        JsonNode value = request.get("upgradeFrom");
        return value == null || value.isNull() ? null : value.asText();
    }

    static ProcessId process(int index) {
        return new ProcessId(new UUID(0x5eed, index + 1));
    }

    static Cluster cluster() {
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(new PartitionInfo(SOURCE_TOPIC, p, node, new Node[] {node}, new Node[] {node}));
        }
        return new Cluster("peer", List.of(node), partitions, Set.of(), Set.of());
    }

    /** An interface nobody outside should be asked through: every call answers nothing. */
    @SuppressWarnings("unchecked")
    static <T> T silent(Class<T> type) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "toString": return "silent " + type.getSimpleName();
                case "hashCode": return System.identityHashCode(proxy);
                case "equals": return proxy == args[0];
                default: return null;
            }
        });
    }

    /** One Streams instance: its configuration, the assignor configured with it, and what it reports back. */
    static final class Instance {
        final StreamsPartitionAssignor assignor = new StreamsPartitionAssignor();
        final ReferenceContainer references = new ReferenceContainer();
        final PeerTaskManager taskManager;
        Boolean stable;

        Instance(String upgradeFrom, ProcessId processId) {
            Map<String, Object> configs = new HashMap<>();
            configs.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
            configs.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
            if (upgradeFrom != null) configs.put(StreamsConfig.UPGRADE_FROM_CONFIG, upgradeFrom);
            StreamsConfig config = new StreamsConfig(configs);    // where Kafka refuses an upgrade.from value
            InternalTopologyBuilder builder = new InternalTopologyBuilder();
            builder.addSource(null, "source", null, null, null, SOURCE_TOPIC);
            builder.setApplicationId(APPLICATION_ID);
            TopologyMetadata topology = new TopologyMetadata(builder, config);
            topology.buildAndRewriteTopology();
            taskManager = new PeerTaskManager(topology, processId);
            references.mainConsumer = silent(Consumer.class);
            references.adminClient = silent(Admin.class);
            references.taskManager = taskManager;
            references.streamsMetadataState = new StreamsMetadataState(topology, StreamsMetadataState.UNKNOWN_HOST,
                new LogContext("peer "));
            references.time = Time.SYSTEM;
            references.clientTags = Map.of();
            configs.put(StreamsConfig.InternalConfig.REFERENCE_CONTAINER_PARTITION_ASSIGNOR, references);
            configs.put(StreamsConfig.InternalConfig.ASSIGNMENT_LISTENER, (AssignmentListener) s -> stable = s);
            assignor.configure(configs);
        }

        /** The version of the member's last (and next) subscription, which only onAssignment changes in Kafka;
         * set directly here, as Kafka's own system tests do for their future-version assignor. */
        void usedVersion(int version) throws ReflectiveOperationException {
            usedVersionField().setInt(assignor, version);
        }

        int usedVersion() throws ReflectiveOperationException {
            return usedVersionField().getInt(assignor);
        }

        private static Field usedVersionField() throws NoSuchFieldException {
            Field field = StreamsPartitionAssignor.class.getDeclaredField("usedSubscriptionMetadataVersion");
            field.setAccessible(true);
            return field;
        }
    }
}
