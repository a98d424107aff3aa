"""Rolling-upgrade simulator: a group of members, each on its own Kafka release, bounced in a given order.

Every join/sync round passes real encoded bytes through kafka_meta's decoders and applies the
release-specific rules of :mod:`kafka_meta.negotiation`. See docs/negotiation.md for what is modelled.
"""

from __future__ import annotations

from kafka_meta.simulate.coordinator import Succession
from kafka_meta.simulate.engine import Simulation
from kafka_meta.simulate.report import SimulationReport, render_table
from kafka_meta.simulate.scenario import (
    CONSUMER,
    KEEP,
    STREAMS,
    Bounce,
    Join,
    Leave,
    MemberSetup,
    Resubscribe,
    Scenario,
    rolling_upgrade,
)


def simulate(scenario: Scenario) -> SimulationReport:
    """Run a scenario and report its rounds, failures, invariant violations and convergence."""
    if scenario.kind == CONSUMER:
        from kafka_meta.simulate.consumer import ConsumerBehaviour

        behaviour = ConsumerBehaviour(scenario.topic_partitions)
    else:
        from kafka_meta.simulate.streams import StreamsBehaviour

        behaviour = StreamsBehaviour(scenario.topic, scenario.partitions)  # type: ignore[assignment]
    return Simulation(scenario, behaviour).run()


__all__ = [
    "CONSUMER",
    "KEEP",
    "STREAMS",
    "Bounce",
    "Join",
    "Leave",
    "MemberSetup",
    "Resubscribe",
    "Scenario",
    "SimulationReport",
    "Succession",
    "render_table",
    "rolling_upgrade",
    "simulate",
]
