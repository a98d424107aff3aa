"""The codec checks: every registered type against Kafka's own code, through each family of the peer's operations.

``run(peer, cases, types, seed)`` is the entry point the command calls (every check module has one): it builds the
subjects of each family, the project's types that Kafka's code can write or read, and runs ``cases`` cases of each.
"""

from __future__ import annotations

from kafka_meta.testing.conformance import assignor_data, consumer, messages, records, streams_info
from kafka_meta.testing.conformance.engine import Subject, run_subjects
from kafka_meta.testing.conformance.peer import Peer
from kafka_meta.testing.conformance.results import Result


def subjects(peer: Peer, types: set[str] | None) -> list[Subject]:
    """Every codec subject, family by family (``types``: only those covering one of these registered types)."""
    return [*messages.subjects(peer, types), *consumer.subjects(types), *assignor_data.subjects(types),
            *streams_info.subjects(types), *records.subjects(peer, types)]


def run(peer: Peer, cases: int, types: set[str] | None, seed: int, shard: tuple[int, int] = (0, 1)) -> list[Result]:
    return list(run_subjects(peer, subjects(peer, types), cases, seed, shard))
