"""Exchanges from a real packet capture, for the timeline tests, in the shape the capture reader yields.

When ``kafka_meta.capture.read_capture`` is installed it is used. Until then this helper rebuilds the same
shape from the capture itself: tshark supplies only each TCP segment's payload (loopback captures arrive in
order), Kafka frames are cut from each direction's byte stream, headers are read here, and the bodies of
the group APIs are decoded by kafka_meta with Apache Kafka's own message specs (the copies kafka-python
ships), so every value comes from bytes the clients and the broker wrote.
"""

from __future__ import annotations

import importlib.util
import shutil
import struct
import subprocess
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import kafka_meta as km

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
CAPTURES = {"coop": FIXTURES / "cfk_coop.pcapng", "range": FIXTURES / "aio_range.pcapng"}
# api key -> (name, first flexible version) for the bodies the timeline reads
GROUP_APIS = {8: ("OffsetCommit", 8), 11: ("JoinGroup", 6), 12: ("Heartbeat", 4), 13: ("LeaveGroup", 4),
              14: ("SyncGroup", 4)}
OTHER_NAMES = {0: "Produce", 1: "Fetch", 2: "ListOffsets", 3: "Metadata", 9: "OffsetFetch", 10: "FindCoordinator",
               18: "ApiVersions", 71: "GetTelemetrySubscriptions"}


@cache
def _specs() -> None:
    spec = importlib.util.find_spec("kafka")  # located, not imported: only its copies of Kafka's specs are used
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("kafka-python (for its copies of Kafka's message specs) is not installed")
    resources = Path(next(iter(spec.submodule_search_locations))) / "protocol" / "schemas" / "resources"
    for name, _ in GROUP_APIS.values():
        for kind in ("Request", "Response"):
            km.load_specs(resources / f"{name}{kind}.json", replace=True)


def _uvarint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def _skip_tags(data: bytes, pos: int) -> int:
    count, pos = _uvarint(data, pos)
    for _ in range(count):
        _, pos = _uvarint(data, pos)
        size, pos = _uvarint(data, pos)
        pos += size
    return pos


def _nested(type_name: str, value: Any, user_data_type: str | None = None) -> Any:
    if not isinstance(value, bytes | bytearray) or not value:
        return value
    try:
        msg = km.decode(type_name, bytes(value))
    except km.DecodeError as e:
        return {"_type": type_name, "_error": str(e), "_raw": bytes(value)}
    out = msg.model_dump(by_alias=True) | {"_type": type_name, "_version": msg.version}
    if user_data_type and out.get("userData"):
        out["userData"] = _nested(user_data_type, out["userData"])
    return out


USER_DATA = {"cooperative-sticky": "CooperativeStickyAssignorUserData", "sticky": "StickyAssignorUserData"}


def _decode_nested(api: str, request: dict | None, response: dict | None) -> None:
    """The contract: member metadata decoded in place of its bytes."""
    if api == "JoinGroup" and request:
        for p in request.get("protocols", []):
            p["metadata"] = _nested("ConsumerProtocolSubscription", p["metadata"], USER_DATA.get(p["name"]))
        if response:
            for m in response.get("members", []):
                m["metadata"] = _nested("ConsumerProtocolSubscription", m["metadata"],
                                        USER_DATA.get(response.get("protocolName") or ""))
    if api == "SyncGroup":
        name = (request or {}).get("protocolName") or ""
        for a in (request or {}).get("assignments", []):
            a["assignment"] = _nested("ConsumerProtocolAssignment", a["assignment"], USER_DATA.get(name))
        if response:
            response["assignment"] = _nested("ConsumerProtocolAssignment", response["assignment"],
                                             USER_DATA.get(response.get("protocolName") or name))


def _segments(path: Path) -> list[tuple[int, float, int, str, str, bytes]]:
    out = subprocess.run(["tshark", "-r", str(path), "-Y", "tcp.len>0", "-T", "fields", "-e", "frame.number",
                          "-e", "frame.time_epoch", "-e", "tcp.stream", "-e", "ip.src", "-e", "tcp.srcport",
                          "-e", "ip.dst", "-e", "tcp.dstport", "-e", "tcp.payload"],
                         capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        frame, ts, stream, src, sport, dst, dport, payload = line.split("\t")
        rows.append((int(frame), float(ts), int(stream), f"{src}:{sport}", f"{dst}:{dport}",
                     bytes.fromhex(payload)))
    return rows


def _frames(segments: list[tuple[int, float, bytes]]) -> list[tuple[int, float, bytes]]:
    """Kafka frames of one direction: (frame number, time, body) of each, from the packet that starts it."""
    buf, starts, out = b"", [], []
    for frame, ts, payload in segments:
        starts.append((len(buf), frame, ts))
        buf += payload
    pos = 0
    while pos + 4 <= len(buf):
        (size,) = struct.unpack_from(">i", buf, pos)
        if pos + 4 + size > len(buf):
            break
        frame, ts = next((f, t) for off, f, t in reversed(starts) if off <= pos)
        out.append((frame, ts, buf[pos + 4:pos + 4 + size]))
        pos += 4 + size
    return out


def _decode(name: str, body: bytes, version: int) -> tuple[dict | None, str | None]:
    try:
        return km.decode(name, body, version=version).model_dump(by_alias=True), None
    except km.KafkaMetaError as e:
        return None, str(e)


def exchanges_from_pcap(path: Path) -> list[dict[str, Any]]:
    _specs()
    by_direction: dict[tuple[int, str, str], list[tuple[int, float, bytes]]] = defaultdict(list)
    first_sender: dict[int, str] = {}
    for frame, ts, stream, src, dst, payload in _segments(path):
        first_sender.setdefault(stream, src)
        by_direction[(stream, src, dst)].append((frame, ts, payload))
    out = []
    for (stream, src, dst), segments in sorted(by_direction.items()):
        if first_sender[stream] != src:
            continue  # responses are read with their requests
        responses = {}
        for frame, ts, body in _frames(by_direction.get((stream, dst, src), [])):
            responses[struct.unpack_from(">i", body)[0]] = (frame, ts, body)
        for frame, ts, body in _frames(segments):
            key, version, correlation = struct.unpack_from(">hhi", body)
            (n,) = struct.unpack_from(">h", body, 8)
            client_id = body[10:10 + n].decode() if n >= 0 else None
            pos = 10 + max(n, 0)
            name, flexible = GROUP_APIS.get(key, (OTHER_NAMES.get(key, f"Unknown({key})"), None))
            ex: dict[str, Any] = {
                "ts": ts, "responseTs": None, "latencyMs": None, "client": src, "broker": dst, "stream": stream,
                "apiKey": key, "apiName": name, "apiVersion": version, "correlationId": correlation,
                "clientId": client_id, "groupId": None, "memberId": None, "generationId": None,
                "errorCode": None, "request": None, "response": None, "_error": None,
                "source": {"file": str(path), "frame": frame}}
            reply = responses.get(correlation)
            if reply is not None:
                ex["responseTs"] = reply[1]
                ex["latencyMs"] = (reply[1] - ts) * 1000
            if flexible is None:
                ex["request"] = {"_raw": body[pos:]}
                ex["response"] = {"_raw": reply[2][4:]} if reply else None
                out.append(ex)
                continue
            if version >= flexible:
                pos = _skip_tags(body, pos)
            ex["request"], err = _decode(f"{name}Request", body[pos:], version)
            if reply is not None:
                rpos = _skip_tags(reply[2], 4) if version >= flexible else 4
                ex["response"], rerr = _decode(f"{name}Response", reply[2][rpos:], version)
                err = err or rerr
            ex["_error"] = err
            _decode_nested(name, ex["request"], ex["response"])
            req, resp = ex["request"] or {}, ex["response"] or {}
            ex["groupId"] = req.get("groupId")
            ex["memberId"] = req.get("memberId") or resp.get("memberId") or None
            ex["generationId"] = req.get("generationId", req.get("generationIdOrMemberEpoch",
                                                                 resp.get("generationId")))
            ex["errorCode"] = resp.get("errorCode")
            out.append(ex)
    return sorted(out, key=lambda e: (e["ts"], e["source"]["frame"]))


def capture_exchanges(path: Path) -> list[dict[str, Any]]:
    """The capture reader's exchanges when it exists, else this helper's; skips without tshark."""
    try:
        from kafka_meta.capture import read_capture  # type: ignore[import-not-found]
    except ImportError:
        if shutil.which("tshark") is None:
            pytest.skip("tshark is not installed and kafka_meta.capture is not there yet")
        return exchanges_from_pcap(path)
    return [e if isinstance(e, dict) else e.to_dict() for e in read_capture(str(path))]
