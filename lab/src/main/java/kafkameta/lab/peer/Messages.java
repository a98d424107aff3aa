package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Any of Kafka's generated message classes, by name: the request and response bodies, the consumer protocol's
 * messages, the group coordinator's records, the metadata log's records. Values travel in the form Kafka's
 * generated JsonConverters read and write (the form the project's JSON output follows), bytes as hex.
 *
 * <ul>
 *   <li>{@code message.encode} {type, version, json}: the bytes Kafka writes for that value at that version;</li>
 *   <li>{@code message.decode} {type, version, hex}: the value Kafka reads, and how many bytes it left unread
 *       (Kafka's readers stop at the message's end and do not look further);</li>
 *   <li>{@code message.versions} {type}: the lowest and highest version Kafka's class supports.</li>
 * </ul>
 */
final class Messages {
    /** Where Kafka 4.4 keeps generated messages, in the order a name is looked up. */
    static final List<String> PACKAGES = List.of(
        "org.apache.kafka.common.message",
        "org.apache.kafka.coordinator.group.generated",
        "org.apache.kafka.coordinator.share.generated",
        "org.apache.kafka.coordinator.transaction.generated",
        "org.apache.kafka.common.metadata",
        "org.apache.kafka.server.common.serialization");

    private static final Map<String, Kind> KINDS = new ConcurrentHashMap<>();

    private Messages() {}

    public static void register(Peer peer) {
        peer.register("message.encode", Messages::encode);
        peer.register("message.decode", Messages::decode);
        peer.register("message.versions", request -> {
            Message message = kind(request.path("type").asText()).create();
            return Peer.JSON.createObjectNode()
                .put("lowest", message.lowestSupportedVersion())
                .put("highest", message.highestSupportedVersion());
        });
    }

    static JsonNode encode(ObjectNode request) throws Exception {
        Kind kind = kind(request.path("type").asText());
        short version = (short) request.path("version").asInt();
        Message message = kind.read(request.get("json"), version);
        return Peer.JSON.createObjectNode().put("hex", Hex.of(write(message, version)));
    }

    static ByteBuffer write(Message message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(buffer), cache, version);
        buffer.flip();
        return buffer;
    }

    static JsonNode decode(ObjectNode request) throws Exception {
        Kind kind = kind(request.path("type").asText());
        short version = (short) request.path("version").asInt();
        ByteBuffer buffer = Hex.buffer(request.path("hex").asText());
        Message message = kind.create();
        message.read(new ByteBufferAccessor(buffer), version);
        return Peer.JSON.createObjectNode().put("remaining", buffer.remaining())
            .set("json", kind.write(message, version));
    }

    static Kind kind(String name) {
        return KINDS.computeIfAbsent(name, Kind::find);
    }

    /** One generated message class and its JsonConverter, found once by name. */
    static final class Kind {
        final Class<? extends Message> type;
        final Method read;
        final Method write;

        private Kind(Class<? extends Message> type, Method read, Method write) {
            this.type = type;
            this.read = read;
            this.write = write;
        }

        @SuppressWarnings("unchecked")
        static Kind find(String name) {
            for (String pkg : PACKAGES) {
                try {
                    Class<?> type = Class.forName(pkg + "." + name);
                    Class<?> converter = Class.forName(pkg + "." + name + "JsonConverter");
                    Method read = converter.getMethod("read", JsonNode.class, short.class);
                    Method write = converter.getMethod("write", type, short.class);
                    return new Kind((Class<? extends Message>) type, read, write);
                } catch (ClassNotFoundException | NoSuchMethodException e) {
                    // not in this package
                }
            }
            throw new IllegalArgumentException("no generated message named " + name);
        }

        Message create() {
            try {
                return type.getConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create " + type.getName(), e);
            }
        }

        Message read(JsonNode json, short version) throws Exception {
            try {
                return (Message) read.invoke(null, json, version);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            }
        }

        JsonNode write(Message message, short version) throws Exception {
            try {
                return (JsonNode) write.invoke(null, message, version);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
            }
        }
    }
}
