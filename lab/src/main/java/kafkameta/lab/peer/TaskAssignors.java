package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.AssignmentConfigs;
import org.apache.kafka.streams.processor.assignment.ProcessId;
import org.apache.kafka.streams.processor.internals.assignment.ClientState;
import org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.LegacyStickyTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.LegacyTaskAssignor;
import org.apache.kafka.streams.processor.internals.assignment.RackAwareTaskAssignor;

/**
 * Kafka Streams' task assignors (HighAvailabilityTaskAssignor, LegacyStickyTaskAssignor) as StreamsPartitionAssignor
 * calls them: a HashMap of ClientStates (filled in the order the clients are listed) with their previous active and
 * standby tasks, capacity (threads) and per-task lags, the set of all tasks and of stateful tasks (HashSets built
 * from the lists given), AssignmentConfigs (with rack.aware.assignment.tags, standbys are spread over client tags),
 * and a RackAwareTaskAssignor with rack-aware task assignment off (strategy "none").
 *
 * <p>{@code assignor.task} {assignor: "high-availability"|"legacy-sticky", clients: [{process (32 hex digits),
 * capacity, active: [[subtopology, partition]...], standby: [...], lags: [[subtopology, partition, lag]...]}],
 * tags?: {key: value}}], tasks: [...], stateful: [...], standbys, acceptableLag, maxWarmups, tags?: [keys]} answers
 * {clients: {process: {active,
 * standby}}, probing}.
 */
final class TaskAssignors {
    private TaskAssignors() {}

    public static void register(Peer peer) {
        AssignorJson.quiet("org.apache.kafka.streams.processor.internals.assignment");
        peer.register("assignor.task", TaskAssignors::assign);
    }

    static JsonNode assign(ObjectNode request) {
        LegacyTaskAssignor assignor = switch (request.path("assignor").asText()) {
            case "high-availability" -> new HighAvailabilityTaskAssignor();
            case "legacy-sticky" -> new LegacyStickyTaskAssignor();
            default -> throw new IllegalArgumentException("no task assignor named " + request.path("assignor"));
        };
        Map<ProcessId, ClientState> clients = new HashMap<>();
        for (JsonNode client : request.path("clients")) {
            Map<TaskId, Long> lags = new TreeMap<>();
            for (JsonNode lag : client.path("lags")) {
                lags.put(new TaskId(lag.get(0).asInt(), lag.get(1).asInt()), lag.get(2).asLong());
            }
            Map<String, String> tags = new HashMap<>();
            client.path("tags").fields().forEachRemaining(tag -> tags.put(tag.getKey(), tag.getValue().asText()));
            ProcessId process = process(client.path("process").asText());
            clients.put(process, new ClientState(tasks(client.path("active")), tasks(client.path("standby")), lags,
                tags, client.path("capacity").asInt(), process));
        }
        AssignmentConfigs configs = new AssignmentConfigs(request.path("acceptableLag").asLong(),
            request.path("maxWarmups").asInt(), request.path("standbys").asInt(), 600_000L,
            AssignorJson.strings(request.get("tags")),
            OptionalInt.empty(), OptionalInt.empty(), "none");
        RackAwareTaskAssignor racks = new RackAwareTaskAssignor(Cluster.empty(), Map.of(), Map.of(), Map.of(),
            Map.of(), null, configs, Time.SYSTEM);
        boolean probing = assignor.assign(clients, new HashSet<>(taskList(request.path("tasks"))),
            new HashSet<>(taskList(request.path("stateful"))), racks, configs);
        ObjectNode out = Peer.JSON.createObjectNode().put("probing", probing);
        ObjectNode byClient = out.putObject("clients");
        clients.forEach((process, state) -> {
            ObjectNode entry = byClient.putObject(process.id().toString().replace("-", ""));
            entry.set("active", json(state.activeTasks()));
            entry.set("standby", json(state.standbyTasks()));
        });
        return out;
    }

    static ProcessId process(String hex) {
        return new ProcessId(new UUID(Long.parseUnsignedLong(hex.substring(0, 16), 16),
            Long.parseUnsignedLong(hex.substring(16), 16)));
    }

    static List<TaskId> taskList(JsonNode array) {
        List<TaskId> out = new ArrayList<>();
        for (JsonNode task : array) out.add(new TaskId(task.get(0).asInt(), task.get(1).asInt()));
        return out;
    }

    static Set<TaskId> tasks(JsonNode array) {
        return new HashSet<>(taskList(array));
    }

    static ArrayNode json(Set<TaskId> tasks) {
        ArrayNode out = Peer.JSON.createArrayNode();
        for (TaskId task : new TreeSet<>(tasks)) out.addArray().add(task.subtopology()).add(task.partition());
        return out;
    }
}
