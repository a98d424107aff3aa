"""Fuzzing kafka_meta's readers: ``python -m kafka_meta.testing.fuzz TARGET --runs N``.

Each target (:mod:`.targets`) is one reader fed arbitrary bytes: a decoder family through ``decode`` and
``decode_plain``, the Spark batch decoder, ``offsets.decode_record``, and the capture and log readers when
they are installed. Every input is checked (:mod:`.check`) for the three promises the readers make about
bad input: only the documented exceptions (``KafkaMetaError`` and its kin), no input slower than 50 ms, no
allocation beyond 64 times the input's size plus 1 MiB. Inputs are seeded from the golden corpus and the
captures (:mod:`.seeds`) and grown by atheris (coverage-guided, when installed) or by a built-in mutator
(:mod:`.mutate`, deterministic, what the test suite runs). docs/fuzzing.md has the long runs.
"""

from kafka_meta.testing.fuzz.check import Checker, FuzzFinding, Limits
from kafka_meta.testing.fuzz.targets import TARGETS, Target, available

__all__ = ["TARGETS", "Checker", "FuzzFinding", "Limits", "Target", "available"]
