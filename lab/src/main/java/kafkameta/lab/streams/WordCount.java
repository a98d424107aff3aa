package kafkameta.lab.streams;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import kafkameta.lab.truth.Json;
import kafkameta.lab.truth.Stdin;
import kafkameta.lab.truth.Truth;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The lab's Kafka Streams application: a word count with a repartition and state, so its group carries what
 * real Streams groups carry (Streams' SubscriptionInfo/AssignmentInfo in a classic group, or a KIP-1071
 * streams group with its topology). Sentences from {@value #INPUT} (4 partitions) are split into words,
 * grouped by word (repartition topic {@code <application.id>-words-repartition}), counted into the persistent
 * key-value store {@value #STORE} (RocksDB; changelog {@code <application.id>-counts-changelog}), and the
 * counts go to {@value #OUTPUT}. The repartition topic and the store are named, so the topology has the
 * same internal topics and tasks in every release it runs on. The store is Kafka Streams' default RocksDB
 * store in both: the old release's RocksDB (rocksdbjni 5.18.3) loads on Java 17 and Debian 12, and 4.4.0
 * (rocksdbjni 10.1.3) opens the stores it left behind.
 *
 * <p>One source for two releases: it compiles against the old Kafka Streams of the upgrade scenario
 * (lab/streams-legacy) and against 4.4.0, so it uses only API present in both; configuration keys are plain
 * strings, and the per-thread task metadata, whose accessor and types differ, is read by reflection.
 *
 * <p>Arguments ({@code --name value}): app (application.id), name (client.id and the truth source),
 * state-dir (kept across restarts of one instance, as a rolling bounce keeps local state), optional
 * bootstrap (else the system property lab.bootstrap), upgrade-from (upgrade.from), protocol (group.protocol:
 * classic or streams), standbys (num.standby.replicas, default 0; a classic-protocol setting: a streams group
 * takes it from the group's configuration). In a classic group the session timeout is 10 s and the heartbeat
 * interval 1 s, in both releases (their defaults differ), so a restarted instance's old member expires soon.
 * It runs until its standard input says "stop" or closes, then closes KafkaStreams (which leaves a streams
 * group, but not a classic one: Kafka Streams closes its consumer without LeaveGroup there).
 *
 * <p>Truth lines (source = name):
 * <ul>
 * <li>{@code streams_start}: app, release (the Kafka Streams version running), upgrade_from, protocol,
 *     standbys, state_dir, pid;</li>
 * <li>{@code state}: old, new (every KafkaStreams state transition);</li>
 * <li>{@code tasks}: state ("RUNNING"), active and standby (task id, e.g. "1_3", to its input partitions),
 *     written each time the instance reaches RUNNING;</li>
 * <li>{@code streams_log}: logger, level, thread, message: the lines Kafka Streams logs about metadata
 *     versions, version probing and rebalancing (see {@link AssignorLog});</li>
 * <li>{@code streams_closed}: clean (whether close finished within its timeout).</li>
 * </ul>
 */
public final class WordCount {
    public static final String INPUT = "lab-words";
    public static final String OUTPUT = "lab-word-counts";
    public static final String REPARTITION = "words";
    public static final String STORE = "counts";
    public static final int PARTITIONS = 4;

    private final Map<String, String> options;
    private final String name;
    private final Truth truth = Truth.get();
    private final ExecutorService observer = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "wordcount-observer");
        thread.setDaemon(true);
        return thread;
    });
    private final KafkaStreams streams;

    WordCount(Map<String, String> options) {
        this.options = options;
        this.name = required("name");
        truth.record(name, "streams_start", Json.object()
            .put("app", required("app"))
            .put("release", release())
            .put("upgrade_from", options.get("upgrade-from"))
            .put("protocol", option("protocol", "classic"))
            .put("standbys", Integer.parseInt(option("standbys", "0")))
            .put("state_dir", required("state-dir"))
            .put("pid", ProcessHandle.current().pid()));
        this.streams = new KafkaStreams(topology().build(), config());
        streams.setStateListener((now, before) -> {
            truth.record(name, "state", Json.object().put("old", before.name()).put("new", now.name()));
            if (now == KafkaStreams.State.RUNNING) observer.execute(this::recordTasks);
        });
    }

    static StreamsBuilder topology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
            .flatMapValues(sentence -> Arrays.asList(sentence.toLowerCase(Locale.ROOT).split("\\W+")))
            .filter((key, word) -> !word.isEmpty())
            .groupBy((key, word) -> word, Grouped.with(REPARTITION, Serdes.String(), Serdes.String()))
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE))
            .toStream()
            .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));
        return builder;
    }

    private Properties config() {
        Properties config = new Properties();
        config.put("application.id", required("app"));
        config.put("bootstrap.servers", option("bootstrap", System.getProperty("lab.bootstrap")));
        config.put("client.id", name);
        config.put("state.dir", required("state-dir"));
        config.put("num.stream.threads", "1");
        config.put("commit.interval.ms", "5000");
        config.put("num.standby.replicas", option("standbys", "0"));
        String protocol = option("protocol", "classic");
        if (options.containsKey("protocol")) config.put("group.protocol", protocol);
        if (protocol.equals("classic")) {
            config.put("session.timeout.ms", "10000");
            config.put("heartbeat.interval.ms", "1000");
        }
        if (options.containsKey("upgrade-from")) config.put("upgrade.from", options.get("upgrade-from"));
        return config;
    }

    void start() {
        streams.start();
    }

    /**
     * The Kafka Streams release on the classpath, as its jar says (kafka/kafka-streams-version.properties;
     * releases before 2.4 have none, and then the clients jar of the same release says it).
     */
    public static String release() {
        for (String resource : new String[] {"/kafka/kafka-streams-version.properties", "/kafka/kafka-version.properties"}) {
            Properties version = new Properties();
            try (InputStream in = KafkaStreams.class.getResourceAsStream(resource)) {
                if (in == null) continue;
                version.load(in);
            } catch (IOException e) {
                continue;
            }
            if (version.getProperty("version") != null) return version.getProperty("version");
        }
        return "unknown";
    }

    void close() {
        boolean clean = streams.close(Duration.ofSeconds(30));
        observer.shutdownNow();
        truth.record(name, "streams_closed", Json.object().put("clean", clean));
    }

    /** The tasks of every stream thread, read through whichever accessor this release has. */
    private void recordTasks() {
        Map<String, List<String>> active = new TreeMap<>();
        Map<String, List<String>> standby = new TreeMap<>();
        try {
            for (Object thread : threadMetadata()) {
                addTasks(active, (Collection<?>) call(thread, "activeTasks"));
                addTasks(standby, (Collection<?>) call(thread, "standbyTasks"));
            }
        } catch (ReflectiveOperationException e) {
            truth.record(name, "tasks", Json.object().put("error", e.toString()));
            return;
        }
        truth.record(name, "tasks", Json.object().put("state", streams.state().name())
            .put("active", active).put("standby", standby));
    }

    private Collection<?> threadMetadata() throws ReflectiveOperationException {
        Method accessor;
        try {
            accessor = KafkaStreams.class.getMethod("metadataForLocalThreads");
        } catch (NoSuchMethodException e) {
            accessor = KafkaStreams.class.getMethod("localThreadsMetadata");
        }
        return (Collection<?>) accessor.invoke(streams);
    }

    private static void addTasks(Map<String, List<String>> into, Collection<?> tasks)
            throws ReflectiveOperationException {
        for (Object task : tasks) {
            List<String> partitions = new java.util.ArrayList<>();
            for (Object partition : (Collection<?>) call(task, "topicPartitions")) {
                TopicPartition tp = (TopicPartition) partition;
                partitions.add(tp.topic() + "-" + tp.partition());
            }
            partitions.sort(null);
            into.put(String.valueOf(call(task, "taskId")), partitions);
        }
    }

    private static Object call(Object target, String method) throws ReflectiveOperationException {
        Method found = target.getClass().getMethod(method);
        found.setAccessible(true);
        return found.invoke(target);
    }

    private String required(String key) {
        String value = options.get(key);
        if (value == null) throw new IllegalArgumentException("missing --" + key);
        return value;
    }

    private String option(String key, String fallback) {
        String value = options.get(key);
        return value == null ? fallback : value;
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    /** Run until standard input says "stop" or closes. */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = parse(args);
        AssignorLog.install(options.get("name"));
        WordCount app = new WordCount(options);
        CountDownLatch stop = new CountDownLatch(1);
        Stdin.onStop(stop::countDown);
        app.start();
        stop.await();
        app.close();
        System.exit(0);
    }
}
