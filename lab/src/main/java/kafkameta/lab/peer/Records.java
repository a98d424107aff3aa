package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.common.metadata.MetadataRecordType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.share.ShareCoordinatorRecordSerde;
import org.apache.kafka.coordinator.transaction.TransactionCoordinatorRecordSerde;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.serialization.BytesApiMessageSerde;
import org.apache.kafka.server.log.remote.metadata.storage.serialization.RemoteLogMetadataSerde;

/**
 * Records as Kafka's logs hold them, through the serdes its coordinators and its metadata log use:
 *
 * <ul>
 *   <li>{@code records.group.serialize} {recordType, key, version, value}: a {@code __consumer_offsets} record
 *       (key and value as JSON of the record type's generated key and value messages; value null: a tombstone)
 *       written by {@code GroupCoordinatorRecordSerde} as {key, value} hex;</li>
 *   <li>{@code records.group.deserialize} {key, value}: {@code GroupCoordinatorRecordSerde.deserialize}: the record
 *       type, the key and value as JSON, the value's version, and the bytes left unread after each. It refuses
 *       unknown record types ({@code UnknownRecordTypeException}) and value versions outside the value class's
 *       range ({@code UnknownRecordVersionException}), which the coordinator's loader skips;</li>
 *   <li>{@code records.transaction.*} and {@code records.share.*}: the same for {@code __transaction_state}
 *       ({@code TransactionCoordinatorRecordSerde}) and {@code __share_group_state}
 *       ({@code ShareCoordinatorRecordSerde}), the coordinators' own serdes of one base class;</li>
 *   <li>{@code records.metadata.serialize} {apiKey, version, json} / {@code records.metadata.deserialize} {hex}: a
 *       metadata-log record in its frame ({@code MetadataRecordSerde}: frame version, apiKey, version, body; every
 *       record type Kafka 4.4 knows);</li>
 *   <li>{@code records.remote.serialize} {apiKey, version, json} / {@code records.remote.deserialize} {hex}: a
 *       {@code __remote_log_metadata} record's value in the same frame, written and read by the
 *       {@code BytesApiMessageSerde} of the remote-log metadata records (as {@code RemoteLogMetadataSerde} has
 *       one), and the reading also handed to {@code RemoteLogMetadataSerde.deserialize} itself, whose refusal
 *       (or {@code toString()}, what DumpLogSegments prints) is returned beside it.</li>
 * </ul>
 */
final class Records {
    /** A coordinator's serde and the record type factories of its generated CoordinatorRecordType. */
    private record Coordinator(CoordinatorRecordSerde serde, IntFunction<ApiMessage> key, IntFunction<ApiMessage> value) {}

    private static final Map<String, Coordinator> COORDINATORS = Map.of(
        "group", new Coordinator(new GroupCoordinatorRecordSerde(),
            t -> org.apache.kafka.coordinator.group.generated.CoordinatorRecordType.fromId((short) t).newRecordKey(),
            t -> org.apache.kafka.coordinator.group.generated.CoordinatorRecordType.fromId((short) t).newRecordValue()),
        "transaction", new Coordinator(new TransactionCoordinatorRecordSerde(),
            t -> org.apache.kafka.coordinator.transaction.generated.CoordinatorRecordType.fromId((short) t).newRecordKey(),
            t -> org.apache.kafka.coordinator.transaction.generated.CoordinatorRecordType.fromId((short) t).newRecordValue()),
        "share", new Coordinator(new ShareCoordinatorRecordSerde(),
            t -> org.apache.kafka.coordinator.share.generated.CoordinatorRecordType.fromId((short) t).newRecordKey(),
            t -> org.apache.kafka.coordinator.share.generated.CoordinatorRecordType.fromId((short) t).newRecordValue()));

    /** The framing of RemoteLogMetadataSerde (its own BytesApiMessageSerde is private): the same base class over
     *  the same generated record types. */
    private static final BytesApiMessageSerde REMOTE = new BytesApiMessageSerde() {
        @Override
        public ApiMessage apiMessageFor(short apiKey) {
            return org.apache.kafka.server.log.remote.metadata.storage.generated.MetadataRecordType.fromId(apiKey)
                .newMetadataRecord();
        }
    };
    private static final RemoteLogMetadataSerde REMOTE_SERDE = new RemoteLogMetadataSerde();

    private Records() {}

    public static void register(Peer peer) {
        for (Map.Entry<String, Coordinator> c : COORDINATORS.entrySet()) {
            Coordinator coordinator = c.getValue();
            peer.register("records." + c.getKey() + ".serialize", r -> serializeCoordinator(coordinator, r));
            peer.register("records." + c.getKey() + ".deserialize", r -> deserializeCoordinator(coordinator, r));
        }
        peer.register("records.remote.serialize", Records::serializeRemote);
        peer.register("records.remote.deserialize", Records::deserializeRemote);
        peer.register("records.metadata.serialize", Records::serializeMetadata);
        peer.register("records.metadata.deserialize", Records::deserializeMetadata);
    }

    static JsonNode serializeCoordinator(Coordinator coordinator, ObjectNode r) throws Exception {
        int type = r.path("recordType").asInt();
        ApiMessage key = fromJson(coordinator.key().apply(type), r.get("key"), (short) 0);
        JsonNode valueJson = r.get("value");
        CoordinatorRecord record;
        if (valueJson == null || valueJson.isNull()) {
            record = CoordinatorRecord.tombstone(key);
        } else {
            short version = (short) r.path("version").asInt();
            ApiMessage value = fromJson(coordinator.value().apply(type), valueJson, version);
            record = CoordinatorRecord.record(key, new ApiMessageAndVersion(value, version));
        }
        byte[] value = coordinator.serde().serializeValue(record);
        return Peer.JSON.createObjectNode()
            .put("key", Hex.of(ByteBuffer.wrap(coordinator.serde().serializeKey(record))))
            .put("value", value == null ? null : Hex.of(ByteBuffer.wrap(value)));
    }

    static JsonNode deserializeCoordinator(Coordinator coordinator, ObjectNode r) throws Exception {
        ByteBuffer key = Hex.buffer(r.path("key").asText());
        ByteBuffer value = Values.bytes(r.get("value"));
        CoordinatorRecord record = coordinator.serde().deserialize(key, value);
        ObjectNode out = Peer.JSON.createObjectNode()
            .put("recordType", record.key().apiKey())
            .put("keyRemaining", key.remaining());
        out.set("key", Messages.kindOf(record.key().getClass()).toJson(record.key(), (short) 0));
        if (record.value() == null) {
            out.putNull("value");
        } else {
            short version = record.value().version();
            out.put("version", version).put("valueRemaining", value.remaining());
            out.set("value", Messages.kindOf(record.value().message().getClass()).toJson(record.value().message(), version));
        }
        return out;
    }

    static JsonNode serializeMetadata(ObjectNode r) throws Exception {
        short version = (short) r.path("version").asInt();
        ApiMessage message = MetadataRecordType.fromId((short) r.path("apiKey").asInt()).newMetadataRecord();
        ApiMessageAndVersion record = new ApiMessageAndVersion(fromJson(message, r.get("json"), version), version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(MetadataRecordSerde.INSTANCE.recordSize(record, cache));
        MetadataRecordSerde.INSTANCE.write(record, cache, new ByteBufferAccessor(buffer));
        buffer.flip();
        return Peer.JSON.createObjectNode().put("hex", Hex.of(buffer));
    }

    static JsonNode deserializeMetadata(ObjectNode r) throws Exception {
        ByteBuffer buffer = Hex.buffer(r.path("hex").asText());
        ApiMessageAndVersion record = MetadataRecordSerde.INSTANCE.read(new ByteBufferAccessor(buffer), buffer.remaining());
        ApiMessage message = record.message();
        ObjectNode out = Peer.JSON.createObjectNode().put("apiKey", message.apiKey()).put("version", record.version());
        out.set("json", Messages.kindOf(message.getClass()).toJson(message, record.version()));
        return out;
    }

    static JsonNode serializeRemote(ObjectNode r) throws Exception {
        short version = (short) r.path("version").asInt();
        ApiMessage message = REMOTE.apiMessageFor((short) r.path("apiKey").asInt());
        byte[] bytes = REMOTE.serialize(new ApiMessageAndVersion(fromJson(message, r.get("json"), version), version));
        return Peer.JSON.createObjectNode().put("hex", Hex.of(ByteBuffer.wrap(bytes)));
    }

    static JsonNode deserializeRemote(ObjectNode r) throws Exception {
        byte[] bytes = Hex.buffer(r.path("hex").asText()).array();
        ApiMessageAndVersion record = REMOTE.deserialize(bytes);
        ApiMessage message = record.message();
        ObjectNode out = Peer.JSON.createObjectNode().put("apiKey", message.apiKey()).put("version", record.version());
        out.set("json", Messages.kindOf(message.getClass()).toJson(message, record.version()));
        try {
            out.put("serde", REMOTE_SERDE.deserialize(bytes).toString());
        } catch (RuntimeException e) {
            out.put("serdeError", String.valueOf(e.getMessage()));
        }
        return out;
    }

    /** The message of {@code blank}'s class that {@code json} describes, through its generated JsonConverter. */
    private static ApiMessage fromJson(ApiMessage blank, JsonNode json, short version) throws Exception {
        return (ApiMessage) Messages.kindOf(blank.getClass()).fromJson(json, version);
    }
}
