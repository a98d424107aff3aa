package kafkameta.lab.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import org.apache.kafka.common.metadata.MetadataRecordType;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.CoordinatorRecordType;
import org.apache.kafka.metadata.MetadataRecordSerde;
import org.apache.kafka.server.common.ApiMessageAndVersion;

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
 *   <li>{@code records.metadata.serialize} {apiKey, version, json} / {@code records.metadata.deserialize} {hex}: a
 *       metadata-log record in its frame ({@code MetadataRecordSerde}: frame version, apiKey, version, body; every
 *       record type Kafka 4.4 knows).</li>
 * </ul>
 */
final class Records {
    private static final GroupCoordinatorRecordSerde GROUP = new GroupCoordinatorRecordSerde();

    private Records() {}

    public static void register(Peer peer) {
        peer.register("records.group.serialize", Records::serializeGroup);
        peer.register("records.group.deserialize", Records::deserializeGroup);
        peer.register("records.metadata.serialize", Records::serializeMetadata);
        peer.register("records.metadata.deserialize", Records::deserializeMetadata);
    }

    static JsonNode serializeGroup(ObjectNode r) throws Exception {
        CoordinatorRecordType type = CoordinatorRecordType.fromId((short) r.path("recordType").asInt());
        ApiMessage key = fromJson(type.newRecordKey(), r.get("key"), (short) 0);
        JsonNode valueJson = r.get("value");
        CoordinatorRecord record;
        if (valueJson == null || valueJson.isNull()) {
            record = CoordinatorRecord.tombstone(key);
        } else {
            short version = (short) r.path("version").asInt();
            ApiMessage value = fromJson(type.newRecordValue(), valueJson, version);
            record = CoordinatorRecord.record(key, new ApiMessageAndVersion(value, version));
        }
        byte[] value = GROUP.serializeValue(record);
        return Peer.JSON.createObjectNode()
            .put("key", Hex.of(ByteBuffer.wrap(GROUP.serializeKey(record))))
            .put("value", value == null ? null : Hex.of(ByteBuffer.wrap(value)));
    }

    static JsonNode deserializeGroup(ObjectNode r) throws Exception {
        ByteBuffer key = Hex.buffer(r.path("key").asText());
        ByteBuffer value = Values.bytes(r.get("value"));
        CoordinatorRecord record = GROUP.deserialize(key, value);
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

    /** The message of {@code blank}'s class that {@code json} describes, through its generated JsonConverter. */
    private static ApiMessage fromJson(ApiMessage blank, JsonNode json, short version) throws Exception {
        return (ApiMessage) Messages.kindOf(blank.getClass()).fromJson(json, version);
    }
}
