package org.apache.kafka.streams.processor.internals;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.assignment.ProcessId;

/**
 * The task manager the peer's StreamsPartitionAssignor talks to (kafkameta.lab.peer.StreamsDecisions): it knows
 * the topology and the process id, owns no task, and records whether the assignor handed it an assignment,
 * which is how a member "applies" one. Kafka's TaskManager has only a package-private constructor, so this
 * stand-in lives in its package, as Kafka's own tests of the assignor do; it runs no task and touches no state.
 */
public final class PeerTaskManager extends TaskManager {
    private boolean assignmentHandled;

    public PeerTaskManager(final TopologyMetadata topology, final ProcessId processId) {
        super(Time.SYSTEM, null, processId, "peer ", null, null, null, topology, null, null, null, null);
    }

    /** Whether the assignor reached the last step of onAssignment: handing the tasks over. */
    public boolean assignmentHandled() {
        return assignmentHandled;
    }

    @Override
    public void handleAssignment(final Map<TaskId, Set<TopicPartition>> activeTasks,
                                 final Map<TaskId, Set<TopicPartition>> standbyTasks) {
        assignmentHandled = true;
    }

    @Override
    void handleRebalanceStart(final Set<String> subscribedTopics) {
        // a fresh member: nothing to revoke or suspend
    }

    @Override
    public Map<TaskId, Long> taskOffsetSums() {
        return Map.of();
    }
}
