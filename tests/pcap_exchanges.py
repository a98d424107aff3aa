"""The bundled packet captures of real clients (fixtures/captures/pcap), read by the capture reader into
the exchange dicts the timeline takes."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from kafka_meta.capture import read_capture

PCAP = Path(__file__).resolve().parents[1] / "fixtures" / "captures" / "pcap"
CAPTURES = {
    "coop": PCAP / "cfk_coop.pcapng",  # confluent-kafka, cooperative-sticky, staged joins and a leave
    "range": PCAP / "aio_range.pcapng",  # aiokafka, range (eager), staged joins and a leave
    "sticky": PCAP / "aio_sticky_any.pcapng",  # aiokafka, sticky (eager) with roundrobin offered too
    "kip848": PCAP / "cfk_consumer_protocol.pcapng",  # librdkafka, group.protocol=consumer
    "storm": PCAP / "cfk_storm.pcap",  # librdkafka consumers joining and leaving in quick succession
    "upgrade": PCAP / "upgrade_stuck.pcapng",  # aiokafka members, one replaced by librdkafka: v0 and v3 mixed
    "cooperative": PCAP / "cfk_cooperative.pcapng",  # librdkafka, cooperative-sticky, staged joins and leaves
    "streams": PCAP / "aio_streams.pcapng",  # aiokafka members rebalancing as Kafka Streams does (v11 metadata)
}


@cache
def _read(path: Path) -> tuple[dict[str, Any], ...]:
    return tuple(e.to_dict() for e in read_capture(str(path)))


def capture_exchanges(path: Path) -> list[dict[str, Any]]:
    """Fresh dicts each call (tests may damage them)."""
    import copy

    return copy.deepcopy(list(_read(path)))
