"""What the capture path does to go fast changes nothing it reports: the decoded-body cache hands out
independent trees and stays bounded, and the CLI's JSON Lines (orjson) read back as the standard library's
text of the same exchanges, uuids in Kafka's form included. Real captures of real clients throughout."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from kafka_meta.capture import read_capture
from kafka_meta.capture.connections import KafkaConnections, KafkaFrame
from kafka_meta.capture.containers import ContainerReader
from kafka_meta.capture.jsonable import json_default, json_line
from kafka_meta.models.values import kafka_uuid_text
from kafka_meta.protocol import BODIES, api_name, read_request_header
from kafka_meta.protocol import bodies as bodies_module
from kafka_meta.protocol.member_metadata import clear_cache

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "pcap"
CAPTURES = sorted(FIXTURES.glob("*.pcap*"))


def request_bodies(path: Path) -> list[tuple[str, int, bytes]]:
    """(request type, version, body bytes) of every request frame of a capture whose body we decode."""
    reader, connections = ContainerReader(), KafkaConnections()
    frames = []
    for packet in reader.feed(path.read_bytes()) + reader.close():
        frames += connections.packet(packet) if hasattr(packet, "linktype") else []
    frames += connections.finish()
    out = []
    for item in frames:
        if isinstance(item, KafkaFrame) and item.is_request:
            header = read_request_header(item.frame.payload)
            type_name = api_name(header.api_key) + "Request"
            if BODIES.has_spec(type_name):
                out.append((type_name, header.api_version, item.frame.payload[header.body_offset:]))
    return out


def dumped(path: Path) -> list[str]:
    return [json.dumps(ex.to_dict(), sort_keys=True, default=json_default) for ex in read_capture(path)]


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_a_warm_cache_reads_a_capture_exactly_as_a_cold_one(path):
    BODIES.clear_cache()
    clear_cache()
    cold = dumped(path)
    assert BODIES._cached.cache_info().currsize > 0, "bodies of a real capture are cached"
    warm = dumped(path)
    assert BODIES._cached.cache_info().hits > 0
    assert warm == cold and cold


def test_each_caller_gets_its_own_tree():
    type_name, version, body = next(b for b in request_bodies(FIXTURES / "cfk_storm.pcap")
                                    if b[0] == "JoinGroupRequest")
    first = BODIES.decode(type_name, body, version)
    pristine = json.dumps(first, default=json_default)
    first["groupId"] = "changed"
    first["protocols"][0]["metadata"] = {"nested": True}
    first["protocols"].append({"name": "added"})
    second = BODIES.decode(type_name, body, version)
    assert json.dumps(second, default=json_default) == pristine
    assert second is not first and second["protocols"] is not first["protocols"]


def test_the_cache_is_bounded_in_entries_and_skips_big_bodies(monkeypatch):
    found = [b for path in CAPTURES for b in request_bodies(path)]
    small = [b for b in found if len(b[2]) <= bodies_module.CACHED_BODY_BYTES]
    distinct = {(t, v, bytes(b)) for t, v, b in small}
    assert len(distinct) > 8
    monkeypatch.setattr(BODIES, "_cached", bodies_module.lru_cache(maxsize=8)(BODIES._decode_pickled))
    for type_name, version, body in small:
        BODIES.decode(type_name, body, version)
    assert BODIES._cached.cache_info().currsize == 8
    type_name, version, body = small[0]
    monkeypatch.setattr(bodies_module, "CACHED_BODY_BYTES", len(body) - 1)
    before = BODIES._cached.cache_info()
    assert BODIES.decode(type_name, body, version) == BODIES._decode_uncached(type_name, bytes(body), version)
    after = BODIES._cached.cache_info()
    assert (after.hits, after.misses) == (before.hits, before.misses), "a big body bypasses the cache"


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_json_lines_read_back_as_the_standard_librarys(path):
    exchanges = [ex.to_dict() for ex in read_capture(path)]
    assert exchanges
    for ex in exchanges:
        assert json.loads(json_line(ex)) == json.loads(json.dumps(ex, ensure_ascii=False, default=json_default))


def test_uuids_are_written_in_kafkas_form():
    """Metadata responses v10+ carry topic ids: the line holds Kafka's base64 text, never 8-4-4-4-12."""
    seen = 0
    for path in CAPTURES:
        for ex in read_capture(path):
            for topic in ((ex.response or {}).get("topics") or []) if ex.api_name == "Metadata" else []:
                topic_id = topic.get("topicId")
                if isinstance(topic_id, uuid.UUID):
                    seen += 1
                    line = json.loads(json_line(ex.to_dict()))
                    texts = [t["topicId"] for t in line["response"]["topics"]]
                    assert kafka_uuid_text(topic_id) in texts
                    assert str(topic_id) not in texts
    assert seen, "the fixtures hold Metadata responses with topic ids"


def test_what_orjson_refuses_is_written_by_the_standard_library():
    value = {"clientId": "bad \udcff text", 7: b"\x00\x01", "id": bodies_module.WireUuid(int=1)}
    assert json.loads(json_line(value)) == {"clientId": "bad \udcff text", "7": "AAE=",
                                            "id": kafka_uuid_text(uuid.UUID(int=1))}
