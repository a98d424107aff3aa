package kafkameta.lab.clients;

import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A steady trickle of records into the scenario's topics, so members have something to process and commit
 * (a few records a second: the capture stays small, the offsets keep moving). What is sent each tick is the
 * {@link Records}' choice: by default one record to each topic, round-robin over its partitions.
 */
public final class Load implements AutoCloseable {
    /** The records of tick {@code n}. */
    public interface Records {
        List<ProducerRecord<String, String>> next(KafkaProducer<String, String> producer, long n);
    }

    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private volatile boolean running = true;

    public Load(String bootstrap, List<String> topics, int perSecond) {
        this(bootstrap, "lab-load", perSecond, (producer, n) -> topics.stream()
            .map(topic -> new ProducerRecord<>(topic, (int) (n % producer.partitionsFor(topic).size()), "key-" + n,
                "value-" + n))
            .toList());
    }

    /** {@code perSecond} ticks a second, each sending {@code records.next(producer, n)}, as client {@code name}. */
    public Load(String bootstrap, String name, int perSecond, Records records) {
        producer = new KafkaProducer<>(ClientConfig.producer(bootstrap, name).set(ProducerConfig.LINGER_MS_CONFIG, "20")
            .properties());
        thread = new Thread(() -> {
            long n = 0;
            while (running) {
                for (ProducerRecord<String, String> record : records.next(producer, n)) producer.send(record);
                n++;
                try {
                    Thread.sleep(1000L / Math.max(1, perSecond));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, name);
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
