"""Cost of the evolution tools, against the work they cannot avoid, measured in this run.

Run: ``python bench/tools_bench.py`` from the checkout root (uses ``fixtures/golden`` and, when present,
``../shared/kafka-spec``). Prints milliseconds per run and ratios:

* golden verify of the whole corpus vs. a bare decode + encode of the same bytes (the floor: verification
  adds reading the files, rendering Kafka's JSON and comparing it field by field);
* the evolution checker on Kafka's 2024 and 2026 specs vs. loading those specs (its input);
* the compatibility matrix of a type, with and without its check against golden bytes.
"""

from __future__ import annotations

import sys
import timeit
from collections.abc import Callable
from pathlib import Path

from kafka_meta.compat import matrix, verify
from kafka_meta.evolution import compare_paths
from kafka_meta.golden import find_cases, subjects, verify_directory
from kafka_meta.golden.verify import load_document, read_bytes
from kafka_meta.spec.loader import load_specs

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fixtures" / "golden"
SPECS = ROOT.parent / "shared" / "kafka-spec"


def timed(fn: Callable[[], object], number: int = 3, repeat: int = 5) -> float:
    """Best-of-``repeat`` milliseconds per call."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def bare_round_trips() -> Callable[[], object]:
    known = subjects()
    cases = [(known[c.subject], read_bytes(c), c.version, load_document(c)) for c in find_cases(CORPUS)[0]]

    def run() -> None:
        for subject, blob, version, doc in cases:
            subject.read(blob, version)
            if not doc.get("decodeOnly"):
                subject.write(doc)

    return run


def main() -> int:
    cases = len(find_cases(CORPUS)[0])
    verify_ms = timed(lambda: verify_directory(CORPUS))
    floor_ms = timed(bare_round_trips())
    print(f"golden verify, {cases} cases: {verify_ms:8.1f} ms   decode+encode alone: {floor_ms:8.1f} ms   "
          f"ratio {verify_ms / floor_ms:.2f}x")
    if SPECS.is_dir():
        load_ms = timed(lambda: (load_specs(SPECS), load_specs(SPECS / "newer")))
        check_ms = timed(lambda: compare_paths(SPECS, SPECS / "newer"))
        print(f"evolution, Kafka 2024 -> 2026 (loading included): {check_ms:8.1f} ms   "
              f"loading alone: {load_ms:8.1f} ms   ratio {check_ms / load_ms:.2f}x")
    for type_name in ("ConsumerProtocolSubscription", "GroupMetadataValue", "SubscriptionInfo"):
        matrix_ms = timed(lambda t=type_name: matrix(t))
        checked_ms = timed(lambda t=type_name: verify(t, CORPUS), number=1, repeat=3)
        print(f"compat {type_name}: matrix {matrix_ms:8.1f} ms   with the decoding check {checked_ms:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
