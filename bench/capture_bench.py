"""Reading packet captures: ``kafka-meta capture`` against tshark's Kafka dissector, in one run.

The input is a real capture (fixtures/captures/pcap/cfk_storm.pcap: a librdkafka rebalance storm) repeated
until it reaches each size, every repetition on its own client addresses and later in time, so it reads as
that many more connections of real group traffic. Both tools read the same file:

* ``kafka-meta capture FILE`` (JSON Lines of every exchange, member metadata decoded, to /dev/null);
* ``tshark -r FILE -d tcp.port==P,kafka -Y kafka -T json`` (Wireshark's Kafka dissector, which leaves
  member metadata as bytes), to /dev/null.

Prints MB/s and exchanges/s of each and the ratio, and the time of ``kafka-meta capture --api`` with the
group membership apis only (what a rebalance investigation reads; the rest is framed, not decoded), for
each size (default 10 and 100 MB; tshark at the
sizes in --tshark-sizes, default 10 MB only, since it needs minutes per 100 MB on a small machine).

Our command runs as an installed tool does: from compiled bytecode (pip compiles it at install; here a
warm-up run writes it under a temporary ``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says),
so the timings do not include compiling the package's source on every start.

Run: ``python bench/capture_bench.py [--sizes 10,100] [--tshark-sizes 10,100]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "fixtures" / "captures" / "pcap" / "cfk_storm.pcap"
GROUP_APIS = "JoinGroup,SyncGroup,Heartbeat,LeaveGroup,ConsumerGroupHeartbeat"


def records(path: Path) -> tuple[bytes, list[tuple[int, int, bytes, int]]]:
    """The pcap header and (seconds, microseconds, data, wire length) of every packet (little-endian pcap)."""
    data = path.read_bytes()
    assert data[:4] == b"\xd4\xc3\xb2\xa1", "the bench source is a little-endian microsecond pcap"
    out, at = [], 24
    while at + 16 <= len(data):
        sec, usec, incl, orig = struct.unpack_from("<IIII", data, at)
        out.append((sec, usec, data[at + 16:at + 16 + incl], orig))
        at += 16 + incl
    return data[:24], out


def broker_port(packets: list[tuple[int, int, bytes, int]]) -> int:
    """The port of the side that answered the first SYN (Ethernet, IPv4 without options)."""
    for _sec, _usec, frame, _orig in packets:
        if frame[23] == 6 and frame[47] & 0x12 == 0x12:  # SYN+ACK
            return struct.unpack_from("!H", frame, 34)[0]
    raise SystemExit("no SYN+ACK in the bench source")


def build(path: Path, megabytes: int, header: bytes, packets: list, port: int) -> int:
    """Repeat the packets until the file holds ``megabytes``; returns the number of repetitions."""
    span = packets[-1][0] - packets[0][0] + 1
    target = megabytes * 1_000_000
    reps = 0
    with open(path, "wb") as f:
        f.write(header)
        written = len(header)
        while written < target:
            reps += 1
            client = bytes((10, (reps >> 16) & 0xFF, (reps >> 8) & 0xFF, reps & 0xFF))
            chunk = []
            for sec, usec, frame, orig in packets:
                to_broker = struct.unpack_from("!H", frame, 36)[0] == port
                at = 26 if to_broker else 30  # the client's address: source towards the broker, else destination
                frame = frame[:at] + client + frame[at + 4:]
                chunk.append(struct.pack("<IIII", sec + reps * span, usec, len(frame), orig) + frame)
            block = b"".join(chunk)
            f.write(block)
            written += len(block)
    return reps


def timed(argv: list[str], env: dict[str, str] | None = None) -> float:
    """CPU seconds (user + system) the command used: on a shared machine wall time mostly measures the
    neighbours, while CPU time is what the tool itself costs."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{argv[0]} failed with exit code {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def count_exchanges(path: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from kafka_meta.capture import read_capture

    return sum(1 for _ in read_capture(path))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100", help="file sizes in MB (default 10,100)")
    parser.add_argument("--tshark-sizes", default="10", help="sizes at which tshark runs too (default 10)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    tshark_sizes = {int(s) for s in args.tshark_sizes.split(",") if s}
    tshark = shutil.which("tshark")
    header, packets = records(SOURCE)
    port = broker_port(packets)
    ours_cmd = [sys.executable, "-m", "kafka_meta.cli.main", "capture", "--quiet"]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        timed([*ours_cmd, str(SOURCE)], env)  # the warm-up: writes the bytecode
        base_rate = None
        for size in sizes:
            path = Path(tmp) / f"storm-{size}mb.pcap"
            reps = build(path, size, header, packets, port)
            mb = path.stat().st_size / 1e6
            exchanges = count_exchanges(path)
            ours = timed([*ours_cmd, str(path)], env)
            line = (f"{mb:6.1f} MB ({reps} x {SOURCE.name}, {exchanges} exchanges): kafka-meta capture "
                    f"{ours:6.2f} CPU s "
                    f"= {mb / ours:5.2f} MB/s, {exchanges / ours:8.0f} exchanges/s")
            if tshark and size in tshark_sizes:
                theirs = timed([tshark, "-r", str(path), "-d", f"tcp.port=={port},kafka", "-Y", "kafka", "-T", "json"])
                line += (f"; tshark -T json {theirs:6.2f} CPU s = {mb / theirs:5.2f} MB/s, {exchanges / theirs:8.0f} "
                         f"exchanges/s; ratio {theirs / ours:4.1f}x")
            group_only = timed([*ours_cmd, "--api", GROUP_APIS, str(path)], env)
            line += f"; with --api {GROUP_APIS} {group_only:6.2f} CPU s = {mb / group_only:5.2f} MB/s"
            if tshark and size in tshark_sizes:
                line += f" ({theirs / group_only:4.1f}x tshark)"
            rate = mb / ours
            base_rate = base_rate or rate
            line += f"; throughput vs the first size {rate / base_rate:4.2f}"
            print(line, flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
