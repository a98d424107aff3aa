"""Reading broker log segments: kafka_meta.log against kafka-python 3's MemoryRecords on the same bytes.

Run: ``python bench/log_bench.py [--mb 240] [--analyze-gb 1]`` (``pip install -e '.[bench]'``).

Builds a log directory in a temporary folder by repeating the real batches of ``fixtures/log`` (written by
kafka-python and librdkafka: magic 0, 1 and 2, every codec, transaction markers), each copy at new offsets,
then reads it with both readers in this run and prints records/s, MB/s and the ratio, at a quarter of the
size and at the full size (linear: the same rate at both), for record batches (magic 2) and for legacy
message sets (magic 0 and 1). kafka-python checks every batch's CRC, as its consumer does by default.
Also compares cramjam with the per-codec bindings (lz4, zstandard, python-snappy, zlib) inflating the same
batches. ``--analyze-gb`` also times ``kafka-meta analyze`` on a log directory of that size (slow: minutes).
"""

from __future__ import annotations

import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "log" / "kafka-logs"
SEGMENT_BYTES = 64 << 20  # roll segments at this size, as a broker does at log.segment.bytes


def real_batches(magics: tuple[int, ...] = (0, 1, 2)) -> list[tuple[bytes, int]]:
    """(entry bytes, number of offsets it spans) of every intact entry of the fixtures with these magics."""
    from kafka_meta.log import SegmentDamage, read_segment
    from kafka_meta.log.events import Batch

    out = []
    for path in sorted(FIXTURES.rglob("*.log")):
        data = path.read_bytes()
        events = list(read_segment(data))
        damaged = {e.position for e in events if isinstance(e, SegmentDamage)}
        for e in events:
            if isinstance(e, Batch) and e.position not in damaged and e.magic in magics:
                span = e.last_offset - e.base_offset + 1 if e.magic == 2 else e.count
                out.append((data[e.position:e.position + e.size], span))
    return out


def group_partition(batch: bytes, partitions: int) -> int:
    """The partition of ``__consumer_offsets`` a batch's group lives in, as Kafka places a group
    (``abs(groupId.hashCode()) % partitions``): a broker keeps each group's records in one partition."""
    from kafka_meta.java_hash import string_hash
    from kafka_meta.log import read_segment
    from kafka_meta.log.events import Record
    from kafka_meta.offsets import decode_record

    record = next(e for e in read_segment(batch) if isinstance(e, Record))
    group = decode_record(bytes(record.key), None).group_id or ""
    return abs(string_hash(group)) % partitions


def build_log(directory: Path, total: int, magics: tuple[int, ...] = (0, 1, 2),
              batches: list[tuple[bytes, int]] | None = None) -> int:
    """A log directory of about ``total`` bytes of repeated batches over 4 partitions; returns bytes. Without
    ``batches``, the fixtures' real batches of these magics, repeated in every partition (a reader's work
    alone); with them (one group's records each, as the coordinator writes them), each batch in the
    partition its group lives in, as on a broker."""
    placed = None if batches is None else [group_partition(entry, 4) for entry, _ in batches]
    batches = batches if batches is not None else real_batches(magics)
    written = 0
    for partition in range(4):
        part = directory / f"__consumer_offsets-{partition}"
        part.mkdir(parents=True)
        mine = batches if placed is None else [b for b, p in zip(batches, placed, strict=True) if p == partition]
        share = total // 4 if placed is None else total * sum(len(b) for b, _ in mine) // sum(
            len(b) for b, _ in batches)  # each group's share of the records, as in the block
        offset, out, size = 0, None, 0
        while mine and size < share:
            if out is None or out.tell() >= SEGMENT_BYTES:
                if out is not None:
                    out.close()
                out = open(part / f"{offset:020d}.log", "wb")  # noqa: SIM115
            for entry, span in mine:
                data = bytearray(entry)
                # a batch's base offset; a legacy entry's own offset, or a wrapper's last inner offset
                struct.pack_into(">q", data, 0, offset if data[16] == 2 else offset + span - 1)
                out.write(data)
                offset += span
                size += len(data)
        if out is not None:
            out.close()
        written += size
    return written


def read_ours(directory: Path) -> int:
    from kafka_meta.log import read_batches

    n = 0
    for _, item in read_batches(directory):
        if type(item) is tuple:
            for record in item[1]:
                record.key, record.value  # noqa: B018 - as a consumer reads them
                n += 1
    return n


def read_kafka_python(directory: Path) -> int:
    from kafka.record import MemoryRecords

    n = 0
    for path in sorted(directory.rglob("*.log")):
        batches = MemoryRecords(path.read_bytes())
        while (batch := batches.next_batch()) is not None:
            if not batch.validate_crc():  # as its consumer does (check_crcs)
                continue
            for record in batch:
                record.key, record.value  # noqa: B018 - as a consumer reads them
                n += 1
    return n


def timed(fn, *args) -> tuple[float, int]:
    start = time.perf_counter()
    n = fn(*args)
    return time.perf_counter() - start, n


def compare_readers(directory: Path, size: int) -> None:
    print(f"\n{size / 1e6:.0f} MB of segments ({len(list(directory.rglob('*.log')))} files)")
    print(f"{'reader':<28} {'records':>10} {'seconds':>8} {'records/s':>12} {'MB/s':>8} {'ratio':>6}")
    rows = []
    for name, fn in (("kafka-python MemoryRecords", read_kafka_python), ("kafka_meta.log", read_ours)):
        seconds, n = timed(fn, directory)
        rows.append((name, n, seconds))
    base = rows[0][2]
    for name, n, seconds in rows:
        print(f"{name:<28} {n:>10} {seconds:>8.2f} {n / seconds:>12,.0f} {size / 1e6 / seconds:>8.1f} "
              f"{base / seconds:>6.2f}")
    if rows[0][1] != rows[1][1]:
        print(f"(the readers disagree on the number of records: {rows[0][1]} and {rows[1][1]})")


def compare_codecs() -> None:
    """Inflate the compressed bodies of the real magic 2 batches, repeated, with each library: kafka-python's
    codec functions (on lz4, zstandard, python-snappy, gzip), cramjam alone, and ours (bounded)."""
    import cramjam
    from kafka import codec as kafka_codec

    from kafka_meta.log.compression import XERIAL_MAGIC, Inflater

    bodies: dict[int, list[bytes]] = {}
    for entry, _ in real_batches((2,)):
        attributes = struct.unpack_from(">h", entry, 21)[0]
        if attributes & 7:
            bodies.setdefault(attributes & 7, []).append(entry[61:])
    theirs = {1: kafka_codec.gzip_decode, 2: kafka_codec.snappy_decode, 3: kafka_codec.lz4_decode,
              4: kafka_codec.zstd_decode}
    alone = {1: cramjam.gzip.decompress, 3: cramjam.lz4.decompress, 4: cramjam.zstd.decompress,
             2: lambda b: b"" if b.startswith(XERIAL_MAGIC) else cramjam.snappy.decompress_raw(b)}
    names = {1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
    inflater = Inflater()
    print(f"\nmicroseconds per batch  {'kafka-python codec':>19} {'cramjam':>8} {'ours (bounded)':>15}")
    for codec, items in sorted(bodies.items()):
        items = items * 2000
        results = []
        for fn in (theirs[codec], alone[codec], lambda b, c=codec: inflater.inflate(c, b)):
            start = time.perf_counter()
            for body in items:
                fn(body)
            results.append((time.perf_counter() - start) / len(items) * 1e6)
        print(f"{names[codec]:<23} {results[0]:>19.2f} {results[1]:>8.2f} {results[2]:>15.2f}")
    print("(cramjam has no xerial snappy framing: its snappy figure covers librdkafka's raw snappy batches only)")


def time_analyze(directory: Path) -> None:
    out = directory.parent / "analyze-out"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "analyze", str(directory), "--output",
                           str(out)], capture_output=True, text=True, env={**os.environ})
    seconds = time.perf_counter() - start
    print("\n".join(proc.stdout.splitlines()[:12]))
    size = sum(p.stat().st_size for p in directory.rglob("*.log"))
    print(f"\nkafka-meta analyze on {size / 1e9:.2f} GB of segments: exit {proc.returncode}, {seconds:.0f} s")
    if proc.returncode:
        print(proc.stderr[-2000:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=240, help="size of the log directories (default 240)")
    parser.add_argument("--analyze-only", action="store_true", help="skip the reader comparison")
    parser.add_argument("--analyze-gb", type=float, help="also time kafka-meta analyze on a log directory of "
                                                         "this many GB")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafka-meta-log-bench-"))
    try:
        runs = [("magic 2, every codec", (2,), args.mb // 4), ("magic 2, every codec", (2,), args.mb),
                ("magic 0 and 1, every codec", (0, 1), args.mb // 4), ("magic 0 and 1, every codec", (0, 1), args.mb)]
        for label, magics, mb in [] if args.analyze_only else runs:
            directory = work / "logs"
            size = build_log(directory, mb << 20, magics)
            print(f"\n{label}:", end="")
            compare_readers(directory, size)
            shutil.rmtree(directory)
        if not args.analyze_only:
            compare_codecs()
        if args.analyze_gb:
            directory = work / "analyze-logs"
            build_log(directory, int(args.analyze_gb * (1 << 30)), (0, 1, 2))
            time_analyze(directory)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
