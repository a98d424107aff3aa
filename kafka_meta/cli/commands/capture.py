"""``kafka-meta capture``: the Kafka exchanges in packet captures (pcap / pcapng, plain or gzip), as JSON
Lines on stdout; one summary line per file and the damage found on stderr.

Exit status (kafka_meta.cli.status): 1 when a file could not be read as a capture, when damage was read
around (a capture cut off inside a packet or a frame), or when no file held a Kafka connection at all (a
capture of other traffic, ``--port`` naming the wrong port): nothing of what the verb prints was there. An
exchange whose body is read only leniently carries its ``_error`` in its line: the exchange itself was read.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from typing import Any

from kafka_meta.capture import CaptureError, Problem, Summary, iter_capture
from kafka_meta.capture.jsonable import json_line
from kafka_meta.cli.status import OK, PROBLEM, USAGE, require_files
from kafka_meta.inputs import Damage, Unreadable
from kafka_meta.inputs.capture import exchanges as capture_exchanges
from kafka_meta.protocol import APIS

PROGRESS_FROM = 32 << 20  # files at least this big report progress
PROGRESS_EVERY = 2.0  # seconds
COLLECT_EVERY = 64 << 20  # bytes read between passes of the cyclic garbage collector


def add_parsers(sub: Any) -> None:
    p = sub.add_parser("capture", help="decode the Kafka exchanges in pcap/pcapng captures (JSON Lines)",
                       description="Reads pcap or pcapng files (gzip-compressed too), reassembles TCP, pairs Kafka "
                                   "requests with responses and prints one JSON object per exchange, with the "
                                   "group member metadata decoded. Damage is reported on stderr and read around.")
    p.add_argument("files", nargs="+", metavar="FILE", help="capture files")
    p.add_argument("--port", type=int, action="append", default=[], metavar="N",
                   help="Kafka's port (repeat for several); default: found on any port from request headers")
    p.add_argument("--api", action="append", default=[], metavar="NAMES",
                   help="only these apis, by name or key, comma-separated (e.g. JoinGroup,SyncGroup)")
    p.add_argument("--group", help="only exchanges of this group id")
    p.add_argument("--quiet", action="store_true", help="no problem lines on stderr, only the summaries")
    p.set_defaults(run=run_capture)


def wanted_apis(specs: list[str]) -> set[int] | None:
    """Api keys from names or numbers; ValueError naming an unknown one."""
    if not specs:
        return None
    by_name = {api.name.lower(): key for key, api in APIS.items()}
    keys = set()
    for spec in (s.strip() for chunk in specs for s in chunk.split(",") if s.strip()):
        if spec.lstrip("-").isdigit():
            keys.add(int(spec))
        elif spec.lower() in by_name:
            keys.add(by_name[spec.lower()])
        else:
            raise ValueError(f"unknown api {spec!r}; e.g. JoinGroup, SyncGroup, Heartbeat, ConsumerGroupHeartbeat")
    return keys


class Progress:
    """Called after each chunk read: the progress of a big file on stderr, at most every PROGRESS_EVERY
    seconds, and a pass of the cyclic garbage collector every COLLECT_EVERY bytes (the automatic one is off
    while a capture is read, see ``run_capture``)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.last = time.monotonic()
        self.collect_at = COLLECT_EVERY

    def __call__(self, done: int, size: int) -> None:
        if done >= self.collect_at:
            gc.collect()
            self.collect_at = done + COLLECT_EVERY
        now = time.monotonic()
        if size >= PROGRESS_FROM and now - self.last >= PROGRESS_EVERY:
            self.last = now
            print(f"{self.name}: {done * 100 // max(size, 1)}% ({done >> 20} of {size >> 20} MB)", file=sys.stderr)


def run_capture(args: argparse.Namespace) -> int:
    try:
        apis = wanted_apis(args.api)
    except ValueError as exc:
        print(f"kafka-meta capture: {exc}", file=sys.stderr)
        return USAGE
    require_files(args.files)  # a capture is a file (or - for a pipe): a typo is said before anything is read
    ports = set(args.port) or None
    # the heap built so far (specs, generated codecs, models) lives as long as the process: frozen, the
    # cyclic collector's full passes no longer walk it for every few thousand short-lived exchange trees.
    # Reading a capture makes no reference cycles (its trees, frames and connections are freed by their
    # reference counts; tests/test_capture_speedups.py checks it), so the automatic collector, which would
    # walk the young trees after every few hundred allocations, is off while reading; Progress still runs
    # it every COLLECT_EVERY bytes, bounding what an unforeseen cycle could hold.
    gc.freeze()
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _read_all(args, apis, ports)
    finally:
        if collecting:
            gc.enable()


def _read_all(args: argparse.Namespace, apis: set[int] | None, ports: set[int] | None) -> int:
    out = sys.stdout
    failed = False
    connections = opened = 0
    for name in args.files:
        summary = Summary()
        printed = 0
        started = time.perf_counter()
        unreadable = False
        # each exchange is printed and dropped, never changed: bodies may be shared between exchanges
        for item in capture_exchanges(name, name, ports=ports, apis=apis, summary=summary, progress=Progress(name),
                                      shared_bodies=True):
            if isinstance(item, Damage):
                failed = True  # damage read around: part of the file could not be read
                if not args.quiet:
                    print(item, file=sys.stderr)
                continue
            if isinstance(item, Unreadable):
                print(f"kafka-meta capture: {item}", file=sys.stderr)
                failed = unreadable = True
                break
            if apis is not None and item.api_key not in apis:
                continue
            if args.group is not None and item.group_id != args.group:
                continue
            out.write(json_line(item.to_dict()) + "\n")
            printed += 1
        if unreadable:
            continue
        opened += 1
        seconds = time.perf_counter() - started
        print(f"{name}: {summary}; {printed} printed; {summary.bytes / 1e6:.1f} MB in {seconds:.2f} s",
              file=sys.stderr)
        if ports and not summary.connections and name != "-":
            print(f"{name}: {_ports_hint(name, ports)}", file=sys.stderr)
        connections += summary.connections
        gc.collect()  # what the file left, before the next one
    if not connections and opened:  # read, but nothing of what this verb prints was there
        print("kafka-meta capture: no Kafka connection in the input", file=sys.stderr)
        return PROBLEM
    return PROBLEM if failed else OK


def _ports_hint(name: str, ports: set[int]) -> str:
    """Why ``--port`` found nothing: the ports the capture's Kafka brokers do listen on (a second pass over
    the file, without the filter, made only when the first found no Kafka connection at all)."""
    wanted = ", ".join(map(str, sorted(ports)))
    seen: set[str] = set()
    try:
        for item in iter_capture(name, None, apis={3}, shared_bodies=True):  # Metadata: cheap, rarely decoded
            if not isinstance(item, Problem) and item.broker:
                seen.add(item.broker.rpartition(":")[2])
    except CaptureError:
        pass
    if not seen:
        return f"no Kafka on port {wanted}, nor on any other port"
    found = sorted(seen, key=lambda port: int(port) if port.isdigit() else -1)
    return (f"no Kafka on port {wanted}; its brokers answer on port {', '.join(found)} "
            f"(--port {found[0]}, or no --port to find Kafka on any port)")
