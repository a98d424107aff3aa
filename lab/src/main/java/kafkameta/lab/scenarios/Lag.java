package kafkameta.lab.scenarios;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import kafkameta.lab.clients.ClientConfig;
import kafkameta.lab.clients.LagWatch;
import kafkameta.lab.clients.Load;
import kafkameta.lab.clients.Member;
import kafkameta.lab.clients.PacedMember;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumer lag as an operator meets it: four classic groups (range), one member each, whose committed offsets
 * move in the ways lag monitors judge (Burrow's statuses). One producer, lab-lag-load, writes about 10 records
 * a second to lab-lag-busy (2 partitions, alternately) and one every 8 s to lab-lag-quiet (1 partition);
 * lab-lag-rewind (2 partitions) is filled with 30 records each at the start and gets nothing after. Records
 * have no key and the recording keeps the three topics' segments (their log ends and record timestamps).
 *
 * <ul>
 *   <li>lab-lag-slow (lab-lag-busy): takes 250 ms over each record (4 a second, fewer than the producer's
 *       10), commits after every batch of at most 5: its commits keep coming and its lag grows all along.
 *   <li>lab-lag-stopped (lab-lag-busy): keeps up and commits about once a second, then halts: it polls and
 *       commits no more but stays a member (its heartbeat thread keeps its session; max.poll.interval.ms,
 *       300 s, outlasts the scenario), while the producer goes on: its lag grows with no commits for 40 s.
 *   <li>lab-lag-rewind (lab-lag-rewind): reads both partitions to their end and commits (lag 0), then,
 *       caught up for more than 10 s, seeks each partition 20 records back and commits that (lag 20), waits
 *       4 s and reads them again at 100 ms a record, back to lag 0: a rewind under zero lag.
 *   <li>lab-lag-quiet (lab-lag-quiet): a {@link Member} that commits only when it got records, so its
 *       commits are 8 s apart, but it is caught up all along: rare commits, not a stopped consumer.
 * </ul>
 *
 * <p>Truth: {@link LagWatch}'s "lag" lines every 2 s per group (committed and log end offsets as Admin read
 * them), each member's commits, the stopped member's "halted" and the rewound one's "rewind" line; steps with
 * actions "join", "halt", "rewind" and "stop".
 */
public final class Lag extends Scenario {
    static final String BUSY = "lab-lag-busy";
    static final String QUIET = "lab-lag-quiet";
    static final String REWIND = "lab-lag-rewind";
    static final String SLOW_GROUP = "lab-lag-slow";
    static final String STOPPED_GROUP = "lab-lag-stopped";
    static final String REWIND_GROUP = "lab-lag-rewind";
    static final String QUIET_GROUP = "lab-lag-quiet";
    static final int REWIND_FILL = 30;
    static final int REWIND_BY = 20;

    @Override
    protected void play() throws Exception {
        createTopic(BUSY, 2);
        createTopic(QUIET, 1);
        createTopic(REWIND, 2);
        step("fill " + REWIND);
        fill(REWIND, 2, REWIND_FILL);
        step("the producer starts: about 10 records a second to " + BUSY + ", one every 8 s to " + QUIET);
        closeAtEnd(new Load(bootstrap, "lab-lag-load", 10, (producer, n) -> {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            records.add(new ProducerRecord<>(BUSY, (int) (n % 2), null, "busy-" + n));
            if (n % 80 == 0) records.add(new ProducerRecord<>(QUIET, 0, null, "quiet-" + n / 80));
            return records;
        }));
        LagWatch watch = closeAtEnd(new LagWatch(admin, Map.of(
            SLOW_GROUP, partitions(BUSY, 2), STOPPED_GROUP, partitions(BUSY, 2),
            REWIND_GROUP, partitions(REWIND, 2), QUIET_GROUP, partitions(QUIET, 1)), 2000));

        step(SLOW_GROUP + ": a slow consumer joins", SLOW_GROUP, "join", SLOW_GROUP + "-a");
        PacedMember slow = paced(SLOW_GROUP, BUSY, "250", "0");
        step(STOPPED_GROUP + ": a consumer that will stop joins", STOPPED_GROUP, "join", STOPPED_GROUP + "-a");
        PacedMember stopped = paced(STOPPED_GROUP, BUSY, "0", "1000");
        step(REWIND_GROUP + ": a consumer that will be rewound joins", REWIND_GROUP, "join", REWIND_GROUP + "-a");
        PacedMember rewound = paced(REWIND_GROUP, REWIND, "100", "0");
        step(QUIET_GROUP + ": a consumer of a quiet topic joins", QUIET_GROUP, "join", QUIET_GROUP + "-a");
        Member quiet = member("--group", QUIET_GROUP, "--topics", QUIET, "--name", QUIET_GROUP + "-a");
        groups.awaitStable(SLOW_GROUP, 1, 2, SETTLE_MS);
        groups.awaitStable(STOPPED_GROUP, 1, 2, SETTLE_MS);
        groups.awaitStable(REWIND_GROUP, 1, 2, SETTLE_MS);
        groups.awaitStable(QUIET_GROUP, 1, 1, SETTLE_MS);

        awaitCommitted(REWIND_GROUP, Map.of(REWIND + "-0", (long) REWIND_FILL, REWIND + "-1", (long) REWIND_FILL));
        pause(12_000);
        step(REWIND_GROUP + ": its offsets are moved " + REWIND_BY + " records back while it is caught up",
            REWIND_GROUP, "rewind", REWIND_GROUP + "-a");
        rewound.rewind(REWIND_BY, 4000, SETTLE_MS);
        groups.committed(REWIND_GROUP);

        pause(4000);
        step(STOPPED_GROUP + ": the consumer stops polling and committing but stays in the group", STOPPED_GROUP,
            "halt", STOPPED_GROUP + "-a");
        stopped.halt(SETTLE_MS);
        groups.committed(STOPPED_GROUP);

        pause(40_000);
        for (String group : List.of(SLOW_GROUP, STOPPED_GROUP, REWIND_GROUP, QUIET_GROUP)) groups.committed(group);
        stopAll(SLOW_GROUP, slow::stop);
        stopAll(STOPPED_GROUP, stopped::stop);
        stopAll(REWIND_GROUP, rewound::stop);
        stopAll(QUIET_GROUP, quiet::stop);
        watch.sample();
    }

    /** {@code group}'s one member on {@code topic}: {@code recordMs} a record, commits {@code commitMs} apart. */
    private PacedMember paced(String group, String topic, String recordMs, String commitMs) {
        PacedMember member = new PacedMember("--bootstrap", bootstrap, "--group", group, "--topics", topic,
            "--name", group + "-a", "--record-ms", recordMs, "--commit-ms", commitMs, "--max-records", "5").start();
        closeAtEnd(member::stop);
        return member;
    }

    private void stopAll(String group, Runnable stop) {
        step(group + ": its consumer leaves", group, "stop", group + "-a");
        stop.run();
        groups.awaitStable(group, 0, 0, SETTLE_MS);
        groups.committed(group);
    }

    /** Wait until the group's committed offsets are {@code wanted} (as Admin reads them, each read recorded). */
    private void awaitCommitted(String group, Map<String, Long> wanted) throws InterruptedException {
        long deadline = System.currentTimeMillis() + SETTLE_MS;
        while (!groups.committed(group).equals(wanted)) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(group + " did not commit " + wanted + " within " + SETTLE_MS + " ms");
            }
            pause(1000);
        }
    }

    private static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < count; p++) out.add(new TopicPartition(topic, p));
        return out;
    }

    /** {@code perPartition} records into each partition of {@code topic}, without keys. */
    private void fill(String topic, int partitions, int perPartition) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                ClientConfig.producer(bootstrap, "lab-lag-fill").properties())) {
            for (int n = 0; n < perPartition * partitions; n++) {
                producer.send(new ProducerRecord<>(topic, n % partitions, null, "fill-" + n));
            }
            producer.flush();
        }
    }

    public static void main(String[] args) {
        run("lag", new Lag());
    }
}
