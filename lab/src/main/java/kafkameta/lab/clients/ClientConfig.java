package kafkameta.lab.clients;

import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The configuration of the lab's clients, built in one place so every consumer, share consumer, producer and
 * Admin client of the scenarios starts from the same settings: the broker's address, a client.id (which names
 * the client in the capture and in the broker's log), string keys and values; then what each adds.
 */
public final class ClientConfig {
    private final Properties properties = new Properties();

    private ClientConfig(String bootstrap, String clientId) {
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
    }

    public static ClientConfig admin(String bootstrap, String clientId) {
        return new ClientConfig(bootstrap, clientId);
    }

    /** A consumer (or share consumer) of string keys and values. */
    public static ClientConfig consumer(String bootstrap, String clientId) {
        return new ClientConfig(bootstrap, clientId)
            .set(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName())
            .set(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    }

    /** A producer of string keys and values. */
    public static ClientConfig producer(String bootstrap, String clientId) {
        return new ClientConfig(bootstrap, clientId)
            .set(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName())
            .set(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    }

    /** A member of {@code group}, taking at most 50 records a poll (the lab's batches stay small). */
    public ClientConfig group(String group) {
        return set(ConsumerConfig.GROUP_ID_CONFIG, group).set(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "50");
    }

    /**
     * A member that commits its offsets itself (no auto commit) and, where its group has none yet, starts at
     * the partitions' beginning, so the records written before it joined are processed and committed too.
     */
    public ClientConfig ownCommits() {
        return set(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false").set(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    }

    /** A transactional producer: transactional.id {@code id} (KIP-98), which makes it idempotent too. */
    public ClientConfig transactional(String id) {
        return set(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
    }

    public ClientConfig set(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    public Properties properties() {
        return properties;
    }
}
