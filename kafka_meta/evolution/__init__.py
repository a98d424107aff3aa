"""The schema-evolution checker: every breaking or risky change between two versions of Kafka message
specs, by name and by position, with a rule id, a level (breaking / risky / info), what it affects
(wire / json-names / python-api) and where. Works on :class:`~kafka_meta.spec.MessageSpec` objects alone.
"""

from kafka_meta.evolution.check import compare_pair, compare_paths, compare_sets, compare_specs, transitive
from kafka_meta.evolution.findings import EvolutionFinding, EvolutionReport, Level, Severity

__all__ = [
           "EvolutionFinding",
           "EvolutionReport",
           "Level",
           "Severity",
           "compare_pair",
           "compare_paths",
           "compare_sets",
           "compare_specs",
           "transitive",
]
