package kafkameta.lab.scenarios;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.clients.Load;
import kafkameta.lab.streams.WordCount;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What the Kafka Streams scenarios share: the WordCount topics ({@value WordCount#INPUT} and
 * {@value WordCount#OUTPUT}, 4 partitions each), a trickle of sentences into the first, and WordCount
 * instances, each in a JVM of its own on the classpath of the Kafka Streams release it runs (system
 * properties lab.classpath.legacy and lab.classpath.current, set by lab/record), each with a state directory
 * of its own that outlives its restarts, as a rolling bounce keeps an instance's local state. Every instance
 * still running when the scenario ends is stopped, whatever happened, then the sentences, and the state
 * directories are deleted (all registered with {@link Scenario#closeAtEnd}).
 */
abstract class StreamsScenario extends Scenario {
    static final String LEGACY = System.getProperty("lab.classpath.legacy");
    static final String CURRENT = System.getProperty("lab.classpath.current");
    /** One task per partition of lab-words and one per partition of the repartition topic. */
    static final int ACTIVE_TASKS = 2 * WordCount.PARTITIONS;

    private Path states;

    protected void createTopics() {
        createTopic(WordCount.INPUT, WordCount.PARTITIONS);
        createTopic(WordCount.OUTPUT, WordCount.PARTITIONS);
    }

    protected void sentences(int perSecond) {
        closeAtEnd(sentences(bootstrap, perSecond));
    }

    /** Start a WordCount instance named `name` of application `app` on `classpath`, with more arguments. */
    protected JavaProcess instance(String app, String name, String classpath, String... more) {
        if (classpath == null) throw new IllegalStateException("no classpath for " + name + " (run it with lab/record)");
        List<String> args = new ArrayList<>(Arrays.asList("--app", app, "--name", name, "--bootstrap", bootstrap,
            "--state-dir", states().resolve(name).toString()));
        args.addAll(Arrays.asList(more));
        return process(JavaProcess.start(name, classpath, WordCount.class.getName(), args.toArray(new String[0])));
    }

    /** The instances' state directories, in one temporary directory made at the first instance's start. */
    private Path states() {
        if (states == null) {
            try {
                states = Files.createTempDirectory("lab-" + name + "-state-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            closeAtEnd(this::deleteStates);
        }
        return states;
    }

    private void deleteStates() {
        try (Stream<Path> paths = Files.walk(states)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: left for the system to clean
        }
    }

    private static final String[] WORDS = {
        "kafka", "streams", "group", "member", "leader", "task", "partition", "offset", "epoch", "rebalance",
        "probe", "version", "state", "store", "commit", "topic",
    };

    /** Sentences of a few words from a small vocabulary, round-robin over lab-words' partitions. */
    static Load sentences(String bootstrap, int perSecond) {
        Random random = new Random(42);
        return new Load(bootstrap, "lab-sentences", perSecond, (producer, n) -> {
            StringBuilder sentence = new StringBuilder();
            for (int i = 0, words = 3 + random.nextInt(4); i < words; i++) {
                if (i > 0) sentence.append(' ');
                sentence.append(WORDS[random.nextInt(WORDS.length)]);
            }
            return List.of(new ProducerRecord<>(WordCount.INPUT, (int) (n % WordCount.PARTITIONS), "sentence-" + n,
                sentence.toString()));
        });
    }
}
