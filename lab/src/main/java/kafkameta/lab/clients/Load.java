package kafkameta.lab.clients;

import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A steady trickle of records into the scenario's topics, so members have something to process and commit
 * (a few records a second: the capture stays small, the offsets keep moving).
 */
public final class Load implements AutoCloseable {
    private final KafkaProducer<String, String> producer;
    private final Thread thread;
    private volatile boolean running = true;

    public Load(String bootstrap, List<String> topics, int perSecond) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "lab-load");
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        producer = new KafkaProducer<>(config);
        thread = new Thread(() -> {
            long n = 0;
            while (running) {
                for (String topic : topics) {
                    int partitions = producer.partitionsFor(topic).size();
                    producer.send(new ProducerRecord<>(topic, (int) (n % partitions), "key-" + n, "value-" + n));
                }
                n++;
                try {
                    Thread.sleep(1000L / Math.max(1, perSecond));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "load");
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
