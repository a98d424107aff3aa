"""Exchanges from a real packet capture, for the timeline tests, in the shape the capture reader yields.

When ``kafka_meta.capture.read_capture`` is there it is used. Otherwise the capture is cut here into Kafka
frames (tshark supplies only each TCP segment's payload, and loopback captures arrive in order) and the
frames go through the protocol layer's ``Correlator``, which pairs requests with responses and decodes the
bodies and the nested member metadata; so every value comes from bytes the clients and the broker wrote.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
CAPTURES = {"coop": FIXTURES / "cfk_coop.pcapng", "range": FIXTURES / "aio_range.pcapng"}


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


def exchanges_from_pcap(path: Path) -> list[dict[str, Any]]:
    """The protocol layer's exchanges of a capture whose TCP payloads tshark supplies."""
    from kafka_meta.protocol import Connection, Correlator

    by_direction: dict[tuple[int, str, str], list[tuple[int, float, bytes]]] = defaultdict(list)
    first_sender: dict[int, str] = {}
    for frame, ts, stream, src, dst, payload in _segments(path):
        first_sender.setdefault(stream, src)
        by_direction[(stream, src, dst)].append((frame, ts, payload))
    events = []  # (time, frame number, is response, connection, body)
    for (stream, src, dst), segments in by_direction.items():
        client = first_sender[stream] == src
        conn = Connection(src, dst, stream) if client else Connection(dst, src, stream)
        events += [(ts, frame, not client, conn, body) for frame, ts, body in _frames(segments)]
    correlator, out = Correlator(), []
    for ts, frame, response, conn, body in sorted(events, key=lambda e: (e[0], e[1])):
        source = {"file": str(path), "frame": frame}
        done = correlator.on_response(conn, ts, body, source) if response else correlator.on_request(
            conn, ts, body, source)
        out += done
    out += correlator.finish()
    return sorted((ex.to_dict() for ex in out), key=lambda e: (e["ts"], e["source"]["frame"]))


def capture_exchanges(path: Path) -> list[dict[str, Any]]:
    """The capture reader's exchanges when it exists, else this helper's; skips without tshark."""
    try:
        from kafka_meta.capture import read_capture  # type: ignore[import-not-found]
    except ImportError:
        if shutil.which("tshark") is None:
            pytest.skip("tshark is not installed and kafka_meta.capture is not there yet")
        return exchanges_from_pcap(path)
    return [e if isinstance(e, dict) else e.to_dict() for e in read_capture(str(path))]
