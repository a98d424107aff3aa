"""Speed of the protocol layer on real traffic: the two captures of ../shared/captures, frames in memory.

Run: ``python bench/protocol_bench.py``. Contenders, each over every Kafka frame of both captures:

* the ``Correlator`` (headers, pairing, bodies of the covered apis, nested member metadata);
* the same without nested member metadata;
* kafka-python 3 decoding the same frames' headers and bodies (no pairing, no nesting), the baseline;
* tshark's Kafka dissector over the same files, every Kafka field as JSON (it also reads the pcapng and
  reassembles TCP: the whole job a capture reader replaces; skipped without tshark).

Prints CPU milliseconds per pass over the frames (best of ``--repeat``) and each contender's ratio to
kafka-python.
"""

from __future__ import annotations

import argparse
import importlib
import resource
import shutil
import struct
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import dpkt

from kafka_meta.protocol import APIS, BODIES, Connection, Correlator, read_request_header
from kafka_meta.protocol.member_metadata import clear_cache

SHARED = Path(__file__).resolve().parents[2] / "shared" / "captures"
CAPTURES = {"cfk_coop.pcapng": 44251, "aio_range.pcapng": 41923}  # file -> broker port (see its README)
KAFKA_PYTHON_MODULES = ["kafka.protocol.consumer.group", "kafka.protocol.metadata", "kafka.protocol.admin"]

Frame = tuple[bool, Connection, float, bytes]  # (is request, connection, ts, frame without size prefix)


def read_frames(path: Path, broker_port: int) -> list[Frame]:
    """Loopback, in-order TCP: concatenate each direction's payloads and cut at the size prefixes."""
    buffers: dict[tuple[str, str], bytearray] = defaultdict(bytearray)
    streams: dict[tuple[str, str], int] = {}
    frames: list[Frame] = []
    with path.open("rb") as f:
        for ts, packet in dpkt.pcapng.Reader(f):
            ip = dpkt.ethernet.Ethernet(packet).data
            tcp = ip.data
            if not isinstance(tcp, dpkt.tcp.TCP) or not tcp.data:
                continue
            src, dst = f"127.0.0.1:{tcp.sport}", f"127.0.0.1:{tcp.dport}"
            is_request = tcp.dport == broker_port
            client, broker = (src, dst) if is_request else (dst, src)
            conn = Connection(client, broker, streams.setdefault((client, broker), len(streams)))
            buf = buffers[(src, dst)]
            buf += tcp.data
            while len(buf) >= 4 and len(buf) >= 4 + int.from_bytes(buf[:4], "big"):
                size = int.from_bytes(buf[:4], "big")
                frames.append((is_request, conn, ts, bytes(buf[4:4 + size])))
                del buf[:4 + size]
    return frames


def correlate(frames: list[Frame], nested: bool) -> int:
    clear_cache()  # each pass starts cold: only repeats within the captures may hit
    BODIES.clear_cache()
    correlator = Correlator(nested=nested)
    count = 0
    for is_request, conn, ts, frame in frames:
        count += len(correlator.on_request(conn, ts, frame) if is_request else correlator.on_response(conn, ts, frame))
    return count + len(correlator.finish())


def kafka_python_classes() -> dict[str, object]:
    classes = {}
    for name in KAFKA_PYTHON_MODULES:
        module = importlib.import_module(name)
        classes.update({n: getattr(module, n) for n in dir(module) if n.endswith(("Request", "Response"))})
    return classes


def kafka_python_decode(frames: list[Frame], classes: dict[str, object]) -> int:
    """Decode what kafka-python can of the same frames; responses need their request's api and version."""
    pending: dict[tuple[Connection, int], tuple[str, int]] = {}
    count = 0
    for is_request, conn, _ts, frame in frames:
        if is_request:
            header = read_request_header(frame)
            api = APIS[header.api_key].name
            pending[(conn, header.correlation_id)] = (api, header.api_version)
            count += _decode(classes.get(api + "Request"), frame, header.api_version)
        else:
            api, version = pending.pop((conn, int.from_bytes(frame[:4], "big")))
            count += _decode(classes.get(api + "Response"), frame, version)
    return count


def _decode(cls: object, frame: bytes, version: int) -> int:
    if cls is None:
        return 0
    try:
        cls.decode(frame, version=version, header=True)  # type: ignore[attr-defined]
    except (struct.error, ValueError, IndexError):  # kafka-python misreads some ApiVersions answers
        return 0
    return 1


def tshark_dissect() -> None:
    for name, port in CAPTURES.items():
        subprocess.run(["tshark", "-r", str(SHARED / name), "-d", f"tcp.port=={port},kafka", "-Y", "kafka",
                        "-T", "json", "-O", "kafka"], check=True, capture_output=True)


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (tshark): steadier than the wall clock on a
    shared machine."""
    own = time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own + children.ru_utime + children.ru_stime


def best_ms(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = cpu_seconds()
        fn()
        best = min(best, cpu_seconds() - start)
    return best * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="timings per contender; the best is kept")
    args = parser.parse_args()
    if not SHARED.is_dir():
        print(f"needs the real captures in {SHARED}", file=sys.stderr)
        return 2
    frames = [f for name, port in CAPTURES.items() for f in read_frames(SHARED / name, port)]
    classes = kafka_python_classes()
    exchanges = correlate(frames, nested=True)
    decoded = kafka_python_decode(frames, classes)
    print(f"{len(frames)} frames, {exchanges} exchanges; kafka-python decodes {decoded} of the frames")
    rows = [
        ("kafka-python (covered frames only)", lambda: kafka_python_decode(frames, classes)),
        ("Correlator, nested member metadata", lambda: correlate(frames, nested=True)),
        ("Correlator, bodies only", lambda: correlate(frames, nested=False)),
    ]
    if shutil.which("tshark"):
        rows.append(("tshark Kafka dissector (whole files)", tshark_dissect))
    print(f"\n{'contender':<40} {'CPU ms/pass':>12} {'x kafka-python':>15}")
    base = None
    for name, fn in rows:
        ms = best_ms(fn, args.repeat if "tshark" not in name else max(args.repeat // 3, 1))
        base = base or ms
        print(f"{name:<40} {ms:>12.2f} {ms / base:>15.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
