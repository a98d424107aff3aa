"""What the capture path does to go fast changes nothing it reports: the decoded-body cache hands out
independent trees and stays bounded, and the CLI's JSON Lines (orjson) read back as the standard library's
text of the same exchanges, uuids in Kafka's form included. Real captures of real clients throughout."""

from __future__ import annotations

import gc
import ipaddress
import json
import random
import uuid
from collections import Counter
from pathlib import Path

import pytest

from kafka_meta.capture import Problem, iter_capture, read_capture
from kafka_meta.capture.connections import KafkaConnections, KafkaFrame, _finds_request, _request_head, address
from kafka_meta.capture.containers import ContainerReader
from kafka_meta.capture.framing import Frame, Framer
from kafka_meta.capture.jsonable import json_default, json_line
from kafka_meta.capture.links import tcp_segment
from kafka_meta.capture.tcp import Data, Gap
from kafka_meta.cli.main import main
from kafka_meta.models.values import kafka_uuid_text
from kafka_meta.protocol import BODIES, api_name, read_request_header
from kafka_meta.protocol import bodies as bodies_module
from kafka_meta.protocol.member_metadata import clear_cache
from kafka_meta.protocol.tree_cache import TreeCache

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
    assert len(BODIES.cache) > 0, "bodies of a real capture are cached"
    warm = dumped(path)
    assert BODIES.cache.hits > 0
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
    monkeypatch.setattr(BODIES, "cache", TreeCache(8))
    for type_name, version, body in small:
        BODIES.decode(type_name, body, version)
    assert len(BODIES.cache) == 8
    type_name, version, body = small[0]
    monkeypatch.setattr(bodies_module, "CACHED_BODY_BYTES", len(body) - 1)
    before = (BODIES.cache.hits, BODIES.cache.misses)
    assert BODIES.decode(type_name, body, version) == BODIES._decode_uncached(type_name, bytes(body), version)
    assert (BODIES.cache.hits, BODIES.cache.misses) == before, "a big body bypasses the cache"


def test_a_miss_and_a_hit_give_independent_trees():
    cache = TreeCache(2)
    tree = {"members": [{"metadata": b"\x00\x01", "id": bodies_module.WireUuid(int=5)}]}
    assert cache.put("k", tree) is tree
    tree["members"].append("changed after it was kept")
    first, second = cache.get("k"), cache.get("k")
    assert first == second == {"members": [{"metadata": b"\x00\x01", "id": uuid.UUID(int=5)}]}
    assert first is not second and first["members"] is not second["members"]
    assert type(first["members"][0]["id"]) is bodies_module.WireUuid
    cache.put("a", {})
    cache.get("k")  # k is now the most recently used: "a" goes when "b" comes
    cache.put("b", {})
    assert cache.get("a") is None and cache.get("k") is not None and len(cache) == 2


def test_trees_come_back_with_the_very_types_they_were_kept_with():
    """Trees of built-in types are kept by marshal, the rest by pickle: either way every value comes back as
    the same type (a bytearray or a uuid subclass is never turned into its base)."""
    cache = TreeCache(8)
    plain = {"a": [1, -2**70, 1.5, True, None, "t\udcff", b"\x00"], "b": ({"c": False},), "": []}
    odd = {"raw": bytearray(b"\x01"), "id": bodies_module.WireUuid(int=9), "ids": [uuid.UUID(int=3)]}
    for key, tree in (("plain", plain), ("odd", odd)):
        cache.put(key, tree)
        back = cache.get(key)
        assert back == tree and back is not tree

        def types(value):
            if isinstance(value, dict):
                return {k: types(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [type(value), *(types(v) for v in value)]
            return type(value)

        assert types(back) == types(tree)


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


def damaged(source: Path, seed: int) -> bytes:
    """A real capture with bytes overwritten at random places (record headers, IP and TCP headers, Kafka
    sizes and bodies alike) and its end cut off: every stage's damage path, deterministically."""
    rng = random.Random(seed)
    data = bytearray(source.read_bytes())
    for _ in range(40 * (seed + 1)):
        data[rng.randrange(24, len(data))] = rng.randrange(256)
    return bytes(data[:len(data) - rng.randrange(1, 5000)])


def inputs(tmp_path: Path) -> list[Path]:
    """Every fixture capture, and damaged copies of two of them (pcap and pcapng)."""
    out = list(CAPTURES)
    for source in (FIXTURES / "cfk_storm.pcap", FIXTURES / "cfk_cooperative.pcapng"):
        for seed in range(3):
            path = tmp_path / f"{source.stem}-{seed}{source.suffix}"
            path.write_bytes(damaged(source, seed))
            out.append(path)
    return out


def test_reading_captures_makes_no_reference_cycles(tmp_path):
    """The capture command turns the automatic cyclic collector off while it reads (its passes over the young
    exchange trees cost more than they find): that is sound only if reading, damage included, leaves nothing
    that only that collector could free."""
    paths = inputs(tmp_path)

    def read_all() -> int:
        seen = 0
        for path in paths:
            for item in iter_capture(path):
                if isinstance(item, Problem):
                    seen += 1
                else:
                    json_line(item.to_dict())
        return seen

    problems = read_all()  # first pass: the codecs and plans each type compiles once
    assert problems > 20, "the damaged copies reach the damage paths"
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        read_all()
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_the_command_prints_the_librarys_exchanges_byte_for_byte(tmp_path, capsys):
    """``kafka-meta capture`` (collector off, bodies and member metadata cached) prints exactly the text of
    the exchanges ``iter_capture`` yields, and its problem lines, for clean and damaged captures."""
    for path in inputs(tmp_path):
        BODIES.clear_cache()
        clear_cache()
        status = main(["capture", str(path)])
        out, err = capsys.readouterr()
        BODIES.clear_cache()
        clear_cache()
        items = list(iter_capture(path))
        assert status == (1 if any(isinstance(ex, Problem) for ex in items) else 0)  # damage read around: 1
        expected = "".join(json_line(ex.to_dict()) + "\n" for ex in items if not isinstance(ex, Problem))
        assert out == expected and out
        problems = [f"{path}: {p}" for p in items if isinstance(p, Problem)]
        assert err.splitlines()[:-1] == problems


def test_addresses_are_written_as_ipaddress_writes_them():
    rng = random.Random(7)
    raws = [bytes(4), b"\xff" * 4, b"\x0a\x00\x00\x01", *(rng.randbytes(4) for _ in range(200)),
            bytes(15) + b"\x01", b"\x00" * 10 + b"\xff\xff\x7f\x00\x00\x01", *(rng.randbytes(16) for _ in range(50))]
    for raw in raws:
        ip = ipaddress.ip_address(raw)
        assert address(raw, 9092) == (f"[{ip}]:9092" if ip.version == 6 else f"{ip}:9092")


def probe_only(events: list) -> bool:
    """The reference: a framer sliding over the held bytes, as the connection table does without shortcut."""
    probe = Framer(_request_head, synced=False)
    for event in events:
        if isinstance(event, Gap):
            break
        if any(isinstance(item, Frame) for item in probe.feed(event)):
            return True
    return False


def test_the_first_bytes_shortcut_agrees_with_the_probe():
    """A connection is Kafka once its client's bytes hold a plausible request; its first whole frame is
    judged without a probe. On real first bytes and on their damaged, cut and shifted forms, the verdict is
    the probe's."""
    firsts = []
    for path in CAPTURES:
        reader = ContainerReader()
        for packet in reader.feed(path.read_bytes()):
            seg = tcp_segment(packet.linktype, packet.data, packet.wire_length) if hasattr(packet, "data") else None
            if seg is not None and seg.payload and len(firsts) < 400:
                firsts.append(seg.payload)
    rng = random.Random(11)
    cases = []
    for payload in firsts:
        cases += [payload, payload[:rng.randrange(len(payload) + 1)], b"\x00" + payload, payload[1:],
                  (len(payload) - 3).to_bytes(4, "big") + payload[4:], bytes([rng.randrange(256)]) + payload[1:],
                  payload[:8] + bytes([rng.randrange(256)]) + payload[9:]]
    verdicts = set()
    for payload in cases:
        for events in ([Data(payload, 0.0, 1)], [Data(payload, 0.0, 1), Data(b"\x00\x00\x00\x0c" + bytes(12), 0.0, 2)]):
            verdict = _finds_request(events)
            assert verdict == probe_only(events), payload[:32].hex()
            verdicts.add(verdict)
    assert verdicts == {True, False}


def test_shared_bodies_are_read_only_views_of_the_same_exchanges():
    """The command reads with ``shared_bodies``: repeated bodies are one tree, never copied, except those the
    correlator nests member metadata into. The exchanges are the library's, value for value."""
    path = FIXTURES / "cfk_storm.pcap"
    BODIES.clear_cache()
    clear_cache()
    own = [ex for ex in iter_capture(path) if not isinstance(ex, Problem)]
    shared = [ex for ex in iter_capture(path, shared_bodies=True) if not isinstance(ex, Problem)]
    assert [ex.to_dict() for ex in shared] == [ex.to_dict() for ex in own]
    trees = [(ex.api_name, tree) for ex in shared for tree in (ex.request, ex.response) if tree]
    uses = Counter(id(tree) for _name, tree in trees)
    reused = {name for name, tree in trees if uses[id(tree)] > 1}
    assert {"Heartbeat", "Metadata", "ApiVersions"} <= reused, "repeated bodies are one tree"
    nested_apis = [tree for name, tree in trees if name in ("JoinGroup", "SyncGroup")]
    assert nested_apis and len({id(tree) for tree in nested_apis}) == len(nested_apis), "nested trees are never shared"
    own_ids = [id(tree) for ex in own for tree in (ex.request, ex.response) if tree]
    assert len(set(own_ids)) == len(own_ids), "without shared_bodies every exchange has its own trees"


def test_shared_trees_are_kept_apart_and_bounded():
    cache = TreeCache(8, maxshared=2)
    for key in "abc":
        cache.put(key, {"key": key, "items": [1, 2]})
    first = cache.get_shared("a")
    assert cache.get_shared("a") is first and cache.get("a") is not first and cache.get("a") == first
    cache.get_shared("b")
    cache.get_shared("c")  # "a" leaves the shared trees, not the cache
    assert cache.get_shared("a") is not first and cache.get_shared("a") == first
    assert cache.get_shared("missing") is None
