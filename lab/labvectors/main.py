"""``lab/extract_vectors [--recordings fixtures/lab] [--out fixtures/lab/vectors.jsonl]``: read every committed
recording and write the golden vectors taken from it (docs/golden.md, fixtures/README.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from labvectors.candidate import Candidate, Unreadable
from labvectors.captures import CaptureVectors
from labvectors.choose import choose
from labvectors.logs import metadata_records, offsets_records

ROOT = Path(__file__).resolve().parents[2]


def recordings(root: Path) -> list[Path]:
    """The recordings under ``root``: directories with a recording.json, in name order."""
    return sorted(p.parent for p in root.glob("*/recording.json"))


def candidates(recording: Path) -> Iterator[Candidate]:
    """Everything one recording offers: its log directory's records, then its capture's bodies."""
    about = json.loads((recording / "recording.json").read_text())
    scenario, kafka = about["scenario"], about["versions"]["kafka.version"]
    broker = f"Apache Kafka {kafka} broker"
    logs = recording / "kafka-logs"
    yield from offsets_records(logs, f"{broker} (lab recording: {scenario})", scenario)
    yield from metadata_records(logs, f"{broker} (lab recording: {scenario})", scenario)
    yield from CaptureVectors(scenario, broker).read(recording / "capture.pcapng")


def extract(root: Path) -> list[Candidate]:
    """The vectors of every recording under ``root``, one or two of each kind."""
    return choose(c for recording in recordings(root) for c in candidates(recording))


def write(vectors: list[Candidate], out: Path) -> None:
    """One compact JSON object per line, so that a re-extraction of the same recordings gives the same bytes."""
    lines = [json.dumps(v.line(), separators=(",", ":")) for v in vectors]
    out.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="lab/extract_vectors", description=__doc__.split("\n")[0])
    parser.add_argument("--recordings", type=Path, default=ROOT / "fixtures" / "lab",
                        help="the recordings' directory (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=ROOT / "fixtures" / "lab" / "vectors.jsonl",
                        help="the vector file to write (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        vectors = extract(args.recordings)
    except Unreadable as e:
        print(f"not written: {e}", file=sys.stderr)
        return 1
    write(vectors, args.out)
    counts = Counter(v.type for v in vectors)
    print(f"{len(vectors)} vectors, {args.out.stat().st_size} bytes, in {args.out}")
    for name, count in sorted(counts.items()):
        print(f"  {name}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
