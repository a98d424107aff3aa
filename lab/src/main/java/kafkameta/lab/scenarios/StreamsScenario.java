package kafkameta.lab.scenarios;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;
import kafkameta.lab.clients.JavaProcess;
import kafkameta.lab.streams.WordCount;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

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

    private final Path states;

    protected StreamsScenario(String name) {
        super(name);
        try {
            states = Files.createTempDirectory("lab-" + name + "-state-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        closeAtEnd(this::deleteStates);
    }

    protected void createTopics() {
        createTopic(WordCount.INPUT, WordCount.PARTITIONS);
        createTopic(WordCount.OUTPUT, WordCount.PARTITIONS);
    }

    protected void sentences(int perSecond) {
        closeAtEnd(new Sentences(bootstrap, perSecond));
    }

    /** Start a WordCount instance named `name` of application `app` on `classpath`, with more arguments. */
    protected JavaProcess instance(String app, String name, String classpath, String... more) {
        if (classpath == null) throw new IllegalStateException("no classpath for " + name + " (run it with lab/record)");
        List<String> args = new ArrayList<>(Arrays.asList("--app", app, "--name", name, "--bootstrap", bootstrap,
            "--state-dir", states.resolve(name).toString()));
        args.addAll(Arrays.asList(more));
        JavaProcess process = JavaProcess.start(name, classpath, WordCount.class.getName(), args.toArray(new String[0]));
        closeAtEnd(() -> {
            if (process.isAlive()) process.stop();
        });
        return process;
    }

    private void deleteStates() {
        try (Stream<Path> paths = Files.walk(states)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temporary directory: left for the system to clean
        }
    }

    /** Sentences of a few words from a small vocabulary, round-robin over lab-words' partitions. */
    static final class Sentences implements AutoCloseable {
        private static final String[] WORDS = {
            "kafka", "streams", "group", "member", "leader", "task", "partition", "offset", "epoch", "rebalance",
            "probe", "version", "state", "store", "commit", "topic",
        };
        private final KafkaProducer<String, String> producer;
        private final Thread thread;
        private volatile boolean running = true;

        Sentences(String bootstrap, int perSecond) {
            Properties config = new Properties();
            config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ProducerConfig.CLIENT_ID_CONFIG, "lab-sentences");
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            config.put(ProducerConfig.LINGER_MS_CONFIG, "20");
            producer = new KafkaProducer<>(config);
            Random random = new Random(42);
            thread = new Thread(() -> {
                long n = 0;
                while (running) {
                    StringBuilder sentence = new StringBuilder();
                    for (int i = 0, words = 3 + random.nextInt(4); i < words; i++) {
                        if (i > 0) sentence.append(' ');
                        sentence.append(WORDS[random.nextInt(WORDS.length)]);
                    }
                    producer.send(new ProducerRecord<>(WordCount.INPUT, (int) (n % WordCount.PARTITIONS),
                        "sentence-" + n, sentence.toString()));
                    n++;
                    try {
                        Thread.sleep(1000L / Math.max(1, perSecond));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "sentences");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() {
            running = false;
            thread.interrupt();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            producer.close();
        }
    }
}
