"""Kafka Streams metadata beyond the golden vectors: version probing, Java's validation rules, Java's string
encodings, the topic dictionary, malformed input, task ids and the active-task/partition pairing."""

from __future__ import annotations

import tracemalloc

import pytest

import kafka_meta as km
from kafka_meta.codec.probe import VersionProbe
from kafka_meta.java_hash import JavaOrderError, topic_partition_hash
from kafka_meta.streams import (
    StreamsAssignmentError,
    active_task_partitions,
    parse_task_id,
    task_id_text,
    with_topic_dictionary,
)
from kafka_meta.wire.javaio import decode_modified_utf8, encode_modified_utf8

SUB, ASG = "SubscriptionInfo", "AssignmentInfo"
PID = "0123456789abcdeffedcba9876543210"


def fails(type_name: str, hex_text: str, **kw) -> km.DecodeError:
    with pytest.raises(km.DecodeError) as info:
        km.decode(type_name, bytes.fromhex(hex_text), **kw)
    return info.value


def i32(n: int) -> str:
    return n.to_bytes(4, "big", signed=True).hex()


def utf(text: str) -> str:
    data = encode_modified_utf8(text)
    return len(data).to_bytes(2, "big").hex() + data.hex()


# ---------------------------------------------------------------- version probing (KIP-268)
def test_future_subscription_reads_only_its_header():
    data = bytes.fromhex(i32(13) + i32(14) + "deadbeef")
    probe = km.decode(SUB, data)
    assert isinstance(probe, VersionProbe) and type(probe).kafka_type == SUB
    assert (probe.version, probe.version_, probe.latest_supported_version) == (13, 13, 14)
    assert probe.read_forward and probe.unknown_trailing == bytes.fromhex("deadbeef")
    assert probe.model_dump(by_alias=True) == {"version": 13, "latestSupportedVersion": 14}
    assert km.encode(probe) == data
    assert km.decode_plain(SUB, data) == ({"version_": 13, "latest_supported_version": 14}, 13)
    with pytest.raises(km.EncodeError, match="its own version"):
        km.encode(probe, 11)


def test_future_assignment_is_a_probe_too():
    data = bytes.fromhex(i32(12) + i32(12) + "00")
    probe = km.decode(ASG, data)
    assert isinstance(probe, VersionProbe) and (probe.version, probe.commonly_supported_version) == (12, 12)
    assert km.encode(probe) == data
    assert "newer than the newest known (11)" in fails(ASG, data.hex(), strict=True).reason


def test_future_subscription_with_a_lower_latest_version_is_refused_like_java():
    e = fails(SUB, i32(12) + i32(11))
    assert (e.path, e.offset, e.version) == ("latestSupportedVersion", 4, 12)
    assert "below the version it accompanies" in e.reason
    e = fails(SUB, i32(12))
    assert (e.path, e.offset) == ("latestSupportedVersion", 4)


# ---------------------------------------------------------------- Java's validation of the versions
def v3_subscription(version: int, latest: int) -> str:
    return i32(version) + i32(latest) + PID + i32(0) + i32(0) + i32(0)


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("latest", [-1, 0, 4])
def test_latest_supported_version_below_the_version_is_refused(latest, strict):
    e = fails(SUB, v3_subscription(5, latest), strict=strict)
    assert (e.path, e.offset, e.version) == ("latestSupportedVersion", 4, 5)


def test_latest_supported_version_at_or_above_the_version_is_fine():
    assert km.decode(SUB, bytes.fromhex(v3_subscription(5, 5))).latest_supported_version == 5
    assert km.decode(SUB, bytes.fromhex(v3_subscription(3, 11))).latest_supported_version == 3 + 8


def test_encoding_keeps_the_rule():
    message = km.decode(SUB, bytes.fromhex(v3_subscription(5, 5)))
    message.latest_supported_version = 4
    with pytest.raises(km.EncodeError) as info:
        km.encode(message)
    assert info.value.path == "latestSupportedVersion"


@pytest.mark.parametrize("type_name", [SUB, ASG])
@pytest.mark.parametrize("version", [0, -1, -2147483648])
def test_versions_below_one_are_refused(type_name, version):
    e = fails(type_name, i32(version) + "00" * 40)
    assert e.offset == 0 and "unsupported version" in e.reason


# ---------------------------------------------------------------- the version field follows the version written
def test_reencoding_at_another_version_rewrites_the_version_field():
    message = km.model(ASG)(commonly_supported_version=11, active_tasks=[{"topic_group_id": 1, "partition": 2}],
                            next_rebalance_ms=0)
    v11 = km.encode(message, 11)
    v7 = km.encode(km.decode(ASG, v11), 7)
    again = km.decode(ASG, v7)
    assert again.version == again.version_ == 7 and v7[:4] == bytes.fromhex(i32(7))
    assert again.active_tasks == message.active_tasks and again.next_rebalance_ms == 0
    assert km.encode(message, 11)[:4] == bytes.fromhex(i32(11))  # a new model's version_ is ignored


def test_fields_a_version_lacks_are_dropped_as_java_drops_them():
    message = km.model(ASG)(commonly_supported_version=11, err_code=4, next_rebalance_ms=5,
                            partitions_by_host=[{"host": "h", "port": 1, "partitions": []}])
    v1 = km.decode(ASG, km.encode(message, 1))
    assert (v1.commonly_supported_version, v1.err_code, v1.partitions_by_host) == (-1, 0, [])
    assert v1.next_rebalance_ms == 2**63 - 1


def test_named_topologies_cannot_be_written_below_v10():
    asg = km.model(ASG)(active_tasks=[{"topic_group_id": 0, "partition": 1, "named_topology": "orders"}])
    assert km.decode(ASG, km.encode(asg, 10)).active_tasks[0].named_topology == "orders"
    with pytest.raises(km.EncodeError) as info:
        km.encode(asg, 9)
    assert info.value.path == "activeTasks[0].namedTopology"
    sub = km.model(SUB)(latest_supported_version=11, task_offset_sums=[
        {"topic_group_id": 0, "partition": 0, "offset_sum": 0, "named_topology": "orders"}])
    assert km.decode(SUB, km.encode(sub, 10)).task_offset_sums[0].named_topology == "orders"
    with pytest.raises(km.EncodeError) as info:
        km.encode(sub, 9)
    assert info.value.path == "taskOffsetSums[0].namedTopology" and "has no field namedTopology" in info.value.reason


# ---------------------------------------------------------------- Java's strings
@pytest.mark.parametrize(("text", "encoded"), [
    ("abc", "616263"),
    ("\0", "c080"),  # NUL is two bytes in modified UTF-8
    ("é", "c3a9"),
    ("主", "e4b8bb"),
    ("🎉", "eda0bcedbe89"),  # a supplementary character: two 3-byte surrogates, never a 4-byte sequence
])
def test_modified_utf8(text, encoded):
    assert encode_modified_utf8(text).hex() == encoded
    assert decode_modified_utf8(bytes.fromhex(encoded)) == text


def host_assignment(host_bytes_hex: str) -> str:
    """An AssignmentInfo v2 with one host (given as raw writeUTF bytes) and no partitions."""
    return i32(2) + i32(0) + i32(0) + i32(1) + host_bytes_hex + i32(80) + i32(0)


@pytest.mark.parametrize(("raw", "why"), [
    ("0002c328", "malformed input"),  # a continuation byte is missing
    ("0001c3", "partial character"),
    ("000180", "malformed input"),  # a lone continuation byte
    ("0001f0", "malformed input"),  # 4-byte sequences do not exist in modified UTF-8
    ("00ff616263", "exceeds the 11 bytes left"),
])
def test_bad_modified_utf8_names_the_field(raw, why):
    e = fails(ASG, host_assignment(raw))
    assert (e.path, e.offset) == ("partitionsByHost[0].host", 16) and why in e.reason


def test_what_java_reads_but_never_writes_is_refused_only_when_strict():
    raw_nul, overlong = "00026100", "0002c1a1"  # "a" + raw 00; 'a' written in two bytes
    for raw, text in ((raw_nul, "a\0"), (overlong, "a")):
        assert km.decode(ASG, bytes.fromhex(host_assignment(raw))).partitions_by_host[0].host == text
        e = fails(ASG, host_assignment(raw), strict=True)
        assert e.path == "partitionsByHost[0].host"


def test_named_topology_chars():
    good = i32(10) + i32(11) + i32(1) + i32(0) + i32(1) + i32(2) + "d83cdf89" + i32(0) + i32(0) + i32(0) + i32(0) \
        + i32(0) + "7fffffffffffffff"
    message = km.decode(ASG, bytes.fromhex(good))
    assert message.active_tasks[0].named_topology == "🎉" and km.encode(message).hex() == good
    assert str(message.active_tasks[0]) == "🎉__0_1"
    # a negative count: Kafka Streams reads no characters (no named topology), and so does lenient reading;
    # strict reading refuses it (tests/test_malformed.py reads one leniently)
    e = fails(ASG, i32(10) + i32(11) + i32(1) + i32(0) + i32(1) + i32(-1), strict=True)
    assert (e.path, e.offset) == ("activeTasks[0].namedTopology", 20) and "negative" in e.reason
    e = fails(ASG, i32(10) + i32(11) + i32(1) + i32(0) + i32(1) + i32(1000) + "0061")
    assert e.path == "activeTasks[0].namedTopology" and "cannot fit" in e.reason


# ---------------------------------------------------------------- the topic dictionary
def dictionary_assignment(entries: list[tuple[int, str]], refs: list[tuple[int, int]]) -> str:
    """An AssignmentInfo v5: no tasks, the dictionary, one host whose partitions are (index, partition) pairs."""
    body = i32(5) + i32(11) + i32(0) + i32(0)
    body += i32(len(entries)) + "".join(i32(i) + utf(t) for i, t in entries)
    body += i32(1) + utf("h") + i32(1) + i32(len(refs)) + "".join(i32(i) + i32(p) for i, p in refs)
    return body + i32(0)


def test_dictionary_keeps_wire_order_and_resolves_names():
    data = dictionary_assignment([(1, "b"), (0, "a")], [(0, 7), (1, 3), (0, 2)])
    message = km.decode(ASG, bytes.fromhex(data))
    assert [(e.index, e.topic) for e in message.topic_dictionary] == [(1, "b"), (0, "a")]
    assert [str(p) for p in message.partitions_by_host[0].partitions] == ["a-7", "b-3", "a-2"]
    assert km.encode(message).hex() == data


def test_missing_dictionary_index():
    e = fails(ASG, dictionary_assignment([(0, "a")], [(0, 1), (5, 2)]))
    assert e.path == "partitionsByHost[0].partitions[1].topic" and e.offset == 50
    assert "index 5 is not in the dictionary" in e.reason


def test_repeated_dictionary_entries():
    repeated_index = dictionary_assignment([(0, "a"), (0, "b")], [(0, 1)])
    assert km.decode(ASG, bytes.fromhex(repeated_index)).partitions_by_host[0].partitions[0].topic == "b"  # Java
    e = fails(ASG, repeated_index, strict=True)
    assert e.path == "topicDictionary[1]" and "repeats index 0" in e.reason
    e = fails(ASG, dictionary_assignment([(0, "a"), (1, "a")], [(0, 1)]), strict=True)
    assert "repeats name 'a'" in e.reason


def test_writing_v5_needs_every_topic_in_the_dictionary():
    message = km.model(ASG)(
        partitions_by_host=[{"host": "h", "port": 1, "partitions": [{"topic": "t", "partition": 0}]}],
        standby_partitions_by_host=[{"host": "g", "port": 2, "partitions": [
            {"topic": "u", "partition": 1}, {"topic": "t", "partition": 2}]}])
    assert km.decode(ASG, km.encode(message, 4)).partitions_by_host == message.partitions_by_host
    with pytest.raises(km.EncodeError) as info:
        km.encode(message, 6)
    assert info.value.path == "partitionsByHost[0].partitions[0].topic" and "not in the dictionary" in info.value.reason
    complete = with_topic_dictionary(message)
    assert [(e.index, e.topic) for e in complete.topic_dictionary] == [(0, "t"), (1, "u")]
    back = km.decode(ASG, km.encode(complete, 6))
    assert back.standby_partitions_by_host == message.standby_partitions_by_host


def test_dictionary_order_a_java_tree_bucket_decides_is_a_fallback_or_refused_when_exact():
    def bucket(topic: str, partition: int) -> int:  # HashMap's spread hash, at a table of 128
        h = topic_partition_hash(topic, partition) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & 127

    crowded = [(t, p) for p in range(200_000) for t in ("u", "t") if bucket(t, p) == 0][:64]
    message = km.model(ASG)(partitions_by_host=[{"host": "h", "port": 1, "partitions": [
        {"topic": t, "partition": p} for t, p in crowded]}])
    first_seen = list(dict.fromkeys(t for t, _ in crowded))
    fallback = with_topic_dictionary(message, 6)
    assert [(e.index, e.topic) for e in fallback.topic_dictionary] == list(enumerate(first_seen))
    with pytest.raises(JavaOrderError):
        with_topic_dictionary(message, 6, exact=True)
    assert with_topic_dictionary(km.model(ASG)(partitions_by_host=[{"host": "h", "port": 1, "partitions": [
        {"topic": "t", "partition": 0}]}]), 6, exact=True).topic_dictionary[0].topic == "t"


@pytest.mark.parametrize("count", [0x7FFFFFFF, 0x00100000])
def test_lying_counts_fail_before_allocating(count):
    tracemalloc.start()
    try:
        e = fails(ASG, i32(7) + i32(11) + i32(0) + i32(0) + i32(count) + "00" * 8)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert e.path == "topicDictionary" and "cannot fit" in e.reason and peak < 2_000_000
    e = fails(SUB, i32(11) + i32(11) + PID + i32(0) + i32(0) + "00" + i32(0) + i32(count))
    assert e.path == "clientTags" and "cannot fit" in e.reason


# ---------------------------------------------------------------- task ids and the task/partition pairing
def test_task_ids_print_as_kafka_prints_them():
    # TaskId.toString(): a named topology, then Kafka's NAMED_TOPOLOGY_DELIMITER "__" (checked against Kafka's
    # own TaskId by the conformance run, tests/test_conformance.py)
    assert task_id_text(0, 1) == "0_1" and task_id_text(3, 12, "orders") == "orders__3_12"
    assert task_id_text(0, 1, "") == "0_1"
    assert parse_task_id("orders__3_12") == (3, 12, "orders") and parse_task_id("0_1") == (0, 1, None)
    assert parse_task_id("my_topology__1_2") == (1, 2, "my_topology")
    for bad in ("0-1", "orders_3_12", "__0_1"):
        with pytest.raises(ValueError, match="not a task id"):
            parse_task_id(bad)


def test_subscription_view_maps_task_lists_to_offset_sums():
    v6 = i32(6) + i32(11) + PID + i32(1) + i32(0) + i32(1) + i32(1) + i32(2) + i32(0) + i32(4) + "68747470"
    view = km.decode(SUB, bytes.fromhex(v6)).streams_view
    assert [(s.task, s.offset_sum) for s in view.task_offset_sums] == [("0_1", -2), ("2_0", -3)]
    assert (view.prev_tasks, view.standby_tasks, view.user_end_point) == (["0_1"], ["2_0"], "http")
    v9 = (i32(9) + i32(11) + PID + i32(0) + i32(1) + i32(3) + i32(2) + i32(0) + "fffffffffffffffe" + i32(5)
          + "0000000000000064" + "07" + i32(4))
    view = km.decode(SUB, bytes.fromhex(v9)).streams_view
    assert [(s.task, s.offset_sum) for s in view.task_offset_sums] == [("3_0", -2), ("3_5", 100)]
    assert (view.error, view.user_end_point) == ("SHUTDOWN_REQUESTED", None)


def consumer_assignment(pairs: list[tuple[str, list[int]]]):
    return km.model("ConsumerProtocolAssignment")(assigned_partitions=[
        {"topic": t, "partitions": ps} for t, ps in pairs])


def test_active_tasks_pair_with_sorted_partitions():
    info = km.model(ASG)(active_tasks=[{"topic_group_id": 0, "partition": 0}, {"topic_group_id": 0, "partition": 1},
                                       {"topic_group_id": 1, "partition": 0, "named_topology": "x"}])
    assigned = consumer_assignment([("b", [0]), ("a", [1, 0])])
    pairs = active_task_partitions(info, assigned)
    assert [(p.task, p.topic, p.partition) for p in pairs] == [("0_0", "a", 0), ("0_1", "a", 1), ("x__1_0", "b", 0)]
    assert active_task_partitions(info, [("b", 0), ("a", 0), ("a", 1)]) == pairs


def test_pairing_refuses_lists_of_different_lengths():
    info = km.model(ASG)(active_tasks=[{"topic_group_id": 0, "partition": 0}])
    with pytest.raises(StreamsAssignmentError, match="1 active tasks but the member was assigned 2 partitions"):
        active_task_partitions(info, consumer_assignment([("a", [0, 1])]))


def test_the_streams_bytes_travel_inside_the_consumer_protocol():
    info = km.model(ASG)(active_tasks=[{"topic_group_id": 2, "partition": 5}])
    outer = km.model("ConsumerProtocolAssignment")(assigned_partitions=[{"topic": "in", "partitions": [5]}],
                                                   user_data=km.encode(info, 11))
    read = km.decode("ConsumerProtocolAssignment", km.encode(outer, 3))
    pairs = active_task_partitions(km.decode(ASG, read.user_data), read)
    assert [(p.task, p.topic, p.partition) for p in pairs] == [("2_5", "in", 5)]


def test_command_line_decode_and_encode(capsys):
    from kafka_meta.cli.main import main

    info = km.model(ASG)(commonly_supported_version=11, active_tasks=[{"topic_group_id": 1, "partition": 0}],
                         topic_dictionary=[{"index": 0, "topic": "t"}],
                         partitions_by_host=[{"host": "h", "port": 9, "partitions": [{"topic": "t", "partition": 0}]}])
    data = km.encode(info, 11)
    assert main(["decode", ASG, "--hex", data.hex(), "--views"]) == 0
    printed = capsys.readouterr().out
    assert '"activeTasks": [\n        "1_0"' in printed and '"h:9"' in printed

    import io
    import sys

    stdin = sys.stdin
    sys.stdin = io.StringIO(printed)
    try:
        assert main(["encode", ASG]) == 0
    finally:
        sys.stdin = stdin
    assert capsys.readouterr().out.strip() == data.hex()


def _structs(struct):
    """Every struct of a construct tree, the root first."""
    yield struct
    for m in struct.members:
        if m.struct is not None:
            yield from _structs(m.struct)


# fields whose model default (what Kafka's constructors write when it is left out) is not what Java reads where a
# version lacks the field: AssignmentInfo's constructor without commonlySupportedVersion writes the newest version,
# while Java's decode of v1-v2 reports UNKNOWN (-1)
READ_APART_FROM_DEFAULT = {("AssignmentInfo", "commonly_supported_version")}


@pytest.mark.parametrize("type_name", ["AssignmentInfo", "MetadataRecord"])
def test_declared_models_agree_with_their_layout_tables(type_name):
    """A declared format states each field twice (model class and layout table): the names must match, and
    a field a version lacks must read as the default the model gives it (but for the fields Kafka itself reads
    apart from the default it builds)."""
    from kafka_meta.codec.registry import REGISTRY
    from kafka_meta.models.factory import to_plain

    fmt = REGISTRY.get(type_name)
    checked = 0
    for version in fmt.versions:
        for struct in _structs(fmt.construct(version)):
            cls = fmt.models.class_for(struct.shape.name)
            assert set(cls.model_fields) == {m.py for m in struct.members}, (version, struct.shape.name)
            for m in struct.members:
                if m.role == "absent" and (struct.shape.name, m.py) not in READ_APART_FROM_DEFAULT:
                    default = cls.model_fields[m.py].get_default(call_default_factory=True)
                    assert to_plain(default) == m.default, (version, struct.shape.name, m.py)
                    checked += 1
    assert checked or type_name == "MetadataRecord"
