package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Any of Kafka's generated message classes, by name: the request and response bodies, the consumer protocol's
 * messages, the group coordinator's records, the metadata log's records, Kafka Streams' SubscriptionInfoData.
 * Values travel in the form Kafka's generated JsonConverters read and write (the form the project's JSON output
 * follows), bytes as hex.
 *
 * <ul>
 *   <li>{@code message.encode} {type, version, json}: the bytes Kafka writes for that value at that version;</li>
 *   <li>{@code message.decode} {type, version, hex, rewrite?}: the value Kafka reads, how many bytes it left unread
 *       (Kafka's readers stop at the message's end and do not look further) and, with {@code rewrite}, the bytes
 *       Kafka writes back for what it read (unknown tagged fields included: Kafka keeps them), or why it cannot
 *       ({@code rewriteError});</li>
 *   <li>{@code message.versions} {type}: the lowest and highest version Kafka's class supports.</li>
 * </ul>
 *
 * A version outside the class's supported range is refused (UnsupportedVersionException): Kafka 4.4's classes no
 * longer describe the versions it dropped, so reading one with them would compare with nothing Kafka does. Every
 * operation takes an optional {@code release} (e.g. "3.9.1"): the class of that older kafka-clients release is used
 * instead ({@link Releases}), for those dropped versions.
 */
final class Messages {
    /** Where generated messages live, in the order a name is looked up. */
    static final List<String> PACKAGES = List.of(
        "org.apache.kafka.common.message",
        "org.apache.kafka.coordinator.group.generated",
        "org.apache.kafka.coordinator.share.generated",
        "org.apache.kafka.coordinator.transaction.generated",
        "org.apache.kafka.common.metadata",
        "org.apache.kafka.server.common.serialization",
        "org.apache.kafka.streams.internals.generated");

    private static final Map<String, Kind> KINDS = new ConcurrentHashMap<>();

    private Messages() {}

    public static void register(Peer peer) {
        peer.register("message.encode", Messages::encode);
        peer.register("message.decode", Messages::decode);
        peer.register("message.versions", request -> {
            Kind kind = kind(request);
            return Peer.JSON.createObjectNode().put("lowest", kind.lowest).put("highest", kind.highest);
        });
    }

    static JsonNode encode(ObjectNode request) throws Exception {
        Kind kind = kind(request);
        short version = kind.supported((short) request.path("version").asInt());
        Object message = kind.fromJson(request.get("json"), version);
        return Peer.JSON.createObjectNode().put("hex", Hex.of(kind.write(message, version)));
    }

    static JsonNode decode(ObjectNode request) throws Exception {
        Kind kind = kind(request);
        short version = kind.supported((short) request.path("version").asInt());
        ByteBuffer buffer = Hex.buffer(request.path("hex").asText());
        Object message = kind.read(buffer, version);
        ObjectNode out = Peer.JSON.createObjectNode().put("remaining", buffer.remaining());
        out.set("json", kind.toJson(message, version));
        if (request.path("rewrite").asBoolean(false)) {
            try {
                out.put("rewritten", Hex.of(kind.write(message, version)));
            } catch (RuntimeException e) {
                // Kafka reads what it cannot write back (unknown tagged fields out of order, say): a read, not a refusal
                out.put("rewriteError", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        return out;
    }

    static Kind kind(ObjectNode request) {
        String release = request.path("release").asText("");
        String name = request.path("type").asText();
        return KINDS.computeIfAbsent(release + "/" + name, key -> Kind.find(name, release));
    }

    /** The kind of a 4.4 message class (for the other families, which hold messages of their own). */
    static Kind kindOf(Class<?> type) {
        return KINDS.computeIfAbsent("/" + type.getName(), key -> Kind.of(type));
    }

    /**
     * One generated message class, its JsonConverter and the protocol classes it reads and writes with, all of one
     * class loader (4.4's, or an older release's), used through reflection so that both work alike.
     */
    static final class Kind {
        final Class<?> type;
        final short lowest;
        final short highest;
        private final Method fromJson;
        private final Method toJson;
        private final Method read;
        private final Method size;
        private final Method write;
        private final Constructor<?> accessor;
        private final Constructor<?> cache;

        private Kind(Class<?> type) throws ReflectiveOperationException {
            ClassLoader loader = type.getClassLoader();
            Class<?> converter = Class.forName(type.getName() + "JsonConverter", true, loader);
            Class<?> readable = Class.forName("org.apache.kafka.common.protocol.Readable", true, loader);
            Class<?> writable = Class.forName("org.apache.kafka.common.protocol.Writable", true, loader);
            Class<?> cacheType = Class.forName("org.apache.kafka.common.protocol.ObjectSerializationCache", true, loader);
            Class<?> accessorType = Class.forName("org.apache.kafka.common.protocol.ByteBufferAccessor", true, loader);
            this.type = type;
            this.fromJson = converter.getMethod("read", JsonNode.class, short.class);
            this.toJson = converter.getMethod("write", type, short.class);
            this.read = type.getMethod("read", readable, short.class);
            this.size = type.getMethod("size", cacheType, short.class);
            this.write = type.getMethod("write", writable, cacheType, short.class);
            this.accessor = accessorType.getConstructor(ByteBuffer.class);
            this.cache = cacheType.getConstructor();
            Object blank = create();
            this.lowest = (Short) type.getMethod("lowestSupportedVersion").invoke(blank);
            this.highest = (Short) type.getMethod("highestSupportedVersion").invoke(blank);
        }

        static Kind of(Class<?> type) {
            try {
                return new Kind(type);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException(type.getName() + " is not a generated message with a JsonConverter", e);
            }
        }

        static Kind find(String name, String release) {
            ClassLoader loader = release.isEmpty() ? Messages.class.getClassLoader() : Releases.loader(release);
            for (String pkg : PACKAGES) {
                Class<?> type;
                try {
                    type = Class.forName(pkg + "." + name, true, loader);
                } catch (ClassNotFoundException e) {
                    continue; // not in this package
                }
                return of(type);
            }
            throw new IllegalArgumentException("no generated message named " + name
                + (release.isEmpty() ? "" : " in kafka-clients " + release));
        }

        short supported(short version) {
            if (version < lowest || version > highest) {
                throw new UnsupportedVersionException(type.getSimpleName() + " supports versions " + lowest + " to "
                    + highest + ", not " + version);
            }
            return version;
        }

        Object create() {
            try {
                return type.getConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot create " + type.getName(), e);
            }
        }

        Object fromJson(JsonNode json, short version) throws Exception {
            return call(fromJson, null, json, version);
        }

        JsonNode toJson(Object message, short version) throws Exception {
            return (JsonNode) call(toJson, null, message, version);
        }

        /** Reads a message at {@code version} from the buffer's position on, as Kafka's readers do. */
        Object read(ByteBuffer buffer, short version) throws Exception {
            Object message = create();
            call(read, message, accessor.newInstance(buffer), version);
            return message;
        }

        ByteBuffer write(Object message, short version) throws Exception {
            Object serializationCache = cache.newInstance();
            ByteBuffer buffer = ByteBuffer.allocate((Integer) call(size, message, serializationCache, version));
            call(write, message, accessor.newInstance(buffer), serializationCache, version);
            buffer.flip();
            return buffer;
        }

        private static Object call(Method method, Object target, Object... arguments) throws Exception {
            try {
                return method.invoke(target, arguments);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof Exception) throw (Exception) cause;
                if (cause instanceof Error) throw (Error) cause;
                throw e;
            }
        }
    }
}
