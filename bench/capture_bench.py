"""Reading packet captures: ``kafka-meta capture`` against tshark's Kafka dissector, in one run.

The input is a real capture (fixtures/captures/pcap/cfk_storm.pcap: a librdkafka rebalance storm) repeated
until it reaches each size, every repetition on its own client addresses and later in time, so it reads as
that many more connections of real group traffic. Both tools read the same file:

* ``kafka-meta capture FILE`` (JSON Lines of every exchange, member metadata decoded, to /dev/null);
* ``tshark -r FILE -d tcp.port==P,kafka -Y kafka -T json`` (Wireshark's Kafka dissector, which leaves
  member metadata as bytes), to /dev/null.

For each size (default 10 and 100 MB, tshark at every one of them) it prints the CPU time, MB/s and
exchanges/s of each tool, the ratio, the peak memory of each, and the time of ``kafka-meta capture --api``
with the group membership apis only (what a rebalance investigation reads; the rest is framed, not
decoded); then each size's throughput against the first, for both tools (linear in the file's size: 1.0).

Our command runs as an installed tool does: from compiled bytecode (pip compiles it at install; here a
warm-up run writes it under a temporary ``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says),
so the timings do not include compiling the package's source on every start.

Run: ``python bench/capture_bench.py [--sizes 10,100] [--tshark-sizes 10,100]`` (tshark needs about a
minute of CPU per 100 MB), alone on the machine if it is shared: the ratios hold under some load.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

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


class Run(NamedTuple):
    """What one command cost: CPU seconds (user + system; on a shared machine wall time mostly measures
    the neighbours, while CPU time is what the tool itself costs), peak memory, and what it said on stderr."""

    cpu: float
    peak_mb: float
    stderr: str


def timed(argv: list[str], env: dict[str, str] | None = None) -> Run:
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"{argv[0]} failed with exit code {os.waitstatus_to_exitcode(status)}")
        err.seek(0)
        return Run(usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, err.read().decode(errors="replace"))


def exchanges_read(run: Run) -> int:
    """The exchanges our command counted, from its summary line (no second pass over the file)."""
    found = re.search(r"(\d+) exchanges, ", run.stderr)
    if found is None:
        raise SystemExit(f"no summary line from kafka-meta capture: {run.stderr[-300:]!r}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100", help="file sizes in MB (default 10,100)")
    parser.add_argument("--tshark-sizes", default="10,100", help="sizes at which tshark runs too (default 10,100)")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    tshark_sizes = {int(s) for s in args.tshark_sizes.split(",") if s}
    tshark = shutil.which("tshark")
    header, packets = records(SOURCE)
    port = broker_port(packets)
    ours_cmd = [sys.executable, "-m", "kafka_meta.cli.main", "capture", "--quiet"]
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   PYTHONPYCACHEPREFIX=str(Path(tmp) / "pycache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        timed([*ours_cmd, str(SOURCE)], env)  # the warm-up: writes the bytecode
        first: dict[str, float] = {}
        for size in sizes:
            path = Path(tmp) / f"storm-{size}mb.pcap"
            reps = build(path, size, header, packets, port)
            mb = path.stat().st_size / 1e6
            ours = timed([*ours_cmd, str(path)], env)
            exchanges = exchanges_read(ours)
            print(f"{mb:6.1f} MB ({reps} x {SOURCE.name}, {exchanges} exchanges):", flush=True)
            print(f"    kafka-meta capture  {ours.cpu:6.2f} CPU s = {mb / ours.cpu:5.2f} MB/s, "
                  f"{exchanges / ours.cpu:6.0f} exchanges/s, peak {ours.peak_mb:4.0f} MB", flush=True)
            rates = {"kafka-meta capture": mb / ours.cpu}
            theirs = None
            if tshark and size in tshark_sizes:
                theirs = timed([tshark, "-r", str(path), "-d", f"tcp.port=={port},kafka", "-Y", "kafka", "-T", "json"])
                rates["tshark -T json"] = mb / theirs.cpu
                print(f"    tshark -T json      {theirs.cpu:6.2f} CPU s = {mb / theirs.cpu:5.2f} MB/s, "
                      f"{exchanges / theirs.cpu:6.0f} exchanges/s, peak {theirs.peak_mb:4.0f} MB; "
                      f"ratio {theirs.cpu / ours.cpu:4.2f}x", flush=True)
            group_only = timed([*ours_cmd, "--api", GROUP_APIS, str(path)], env)
            line = (f"    with --api {GROUP_APIS}  {group_only.cpu:6.2f} CPU s = "
                    f"{mb / group_only.cpu:5.2f} MB/s")
            if theirs is not None:
                line += f" ({theirs.cpu / group_only.cpu:4.2f}x tshark)"
            print(line, flush=True)
            for tool, rate in rates.items():
                first.setdefault(tool, rate)
            print("    throughput vs the first size: " + ", ".join(
                f"{tool} {rate / first[tool]:4.2f}" for tool, rate in rates.items()), flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
