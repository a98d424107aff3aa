"""Kafka frames out of the real captures in ../shared/captures, without the capture layer.

tshark lists each TCP segment's payload; on loopback the segments arrive in order and unduplicated, so
reassembly is concatenation per direction, then splitting at the int32 size prefixes. The client side of
a connection is the one that speaks first.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from conftest import SHARED

from kafka_meta.protocol import Connection, Correlator, Exchange

CAPTURES = SHARED / "captures"
CAPTURE_FILES = ["cfk_coop.pcapng", "aio_range.pcapng"]
# the capture reader's own fixtures (fixtures/captures/pcap), used when they are there
FIXTURE_CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "pcap"
TSHARK_FIELDS = ["frame.number", "frame.time_epoch", "tcp.stream", "ip.src", "tcp.srcport", "ip.dst", "tcp.dstport",
                 "tcp.payload"]


@dataclass(frozen=True)
class Frame:
    number: int  # the packet that completed the frame (1-based, as tshark counts)
    first: int  # the packet holding its first byte
    ts: float
    stream: int
    src: str
    dst: str
    data: bytes  # without the size prefix


def need_captures() -> None:
    if not CAPTURES.is_dir():
        pytest.skip("../shared/captures is not beside the project")
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (Debian package tshark); it lists the captures' TCP payloads")


def capture_path(name: str) -> Path:
    return CAPTURES / name if (CAPTURES / name).exists() else FIXTURE_CAPTURES / name


@cache
def capture_frames(name: str) -> tuple[Frame, ...]:
    out = subprocess.run(["tshark", "-r", str(capture_path(name)), "-T", "fields", "-Y", "tcp.len>0",
                          *[a for f in TSHARK_FIELDS for a in ("-e", f)]],
                         capture_output=True, text=True, check=True).stdout
    buffers: dict[tuple[int, str, str], bytearray] = defaultdict(bytearray)
    starts: dict[tuple[int, str, str], tuple[int, float]] = {}
    frames = []
    for line in out.splitlines():
        number, ts, stream, sip, sport, dip, dport, payload = line.split("\t")
        key = (int(stream), f"{sip}:{sport}", f"{dip}:{dport}")
        buf = buffers[key]
        if not buf:
            starts[key] = (int(number), float(ts))
        buf += bytes.fromhex(payload)
        while len(buf) >= 4 and len(buf) >= 4 + int.from_bytes(buf[:4], "big"):
            size = int.from_bytes(buf[:4], "big")
            first, first_ts = starts[key]
            frames.append(Frame(int(number), first, first_ts, key[0], key[1], key[2], bytes(buf[4:4 + size])))
            del buf[:4 + size]
            starts[key] = (int(number), float(ts))
    return tuple(frames)


@cache
def client_sides(name: str) -> dict[int, str]:
    """stream -> the client's address: the side that speaks first (Kafka clients always do)."""
    sides: dict[int, str] = {}
    for f in capture_frames(name):
        sides.setdefault(f.stream, f.src)
    return sides


def requests_and_responses(name: str) -> tuple[list[Frame], list[Frame]]:
    sides = client_sides(name)
    frames = capture_frames(name)
    return [f for f in frames if sides[f.stream] == f.src], [f for f in frames if sides[f.stream] != f.src]


def correlate(name: str, correlator: Correlator | None = None) -> list[Exchange]:
    """Every exchange of a capture, in the order the correlator finished them."""
    correlator = correlator or Correlator()
    sides = client_sides(name)
    out: list[Exchange] = []
    for f in capture_frames(name):
        client = sides[f.stream]
        if f.src == client:
            out += correlator.on_request(Connection(client, f.dst, f.stream), f.ts, f.data,
                                         {"file": name, "frame": f.first})
        else:
            out += correlator.on_response(Connection(client, f.src, f.stream), f.ts, f.data)
    return out + correlator.finish()


def member_metadata_cases() -> list[dict]:
    path = CAPTURES / "member-metadata.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
