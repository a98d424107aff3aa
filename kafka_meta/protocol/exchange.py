"""One Kafka request paired with its response on one connection: what every reader of traffic produces.

The dict form (:meth:`Exchange.to_dict`) is the contract between the protocol layer, the capture reader,
the analysis and the Spark source: Kafka-style camelCase names, decoded bodies under Kafka's field names,
and ``_error`` for whatever did not decode (never fatal: the rest is still there). Its shape is declared
once, as :class:`~kafka_meta.protocol.shapes.ExchangeRow`, which the readers and the analysis are typed with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from kafka_meta.protocol.shapes import Body, ExchangeRow, ExchangeSource


class Connection(NamedTuple):
    """A convenient connection key: the two ends as ``ip:port`` and the caller's connection number."""

    client: str
    broker: str
    stream: int


@dataclass(slots=True)
class Exchange:
    ts: float
    api_key: int | None
    api_name: str | None
    api_version: int | None
    correlation_id: int | None
    client_id: str | None = None
    client: str | None = None
    broker: str | None = None
    stream: int | None = None
    response_ts: float | None = None
    group_id: str | None = None
    member_id: str | None = None
    generation_id: int | None = None
    error_code: int | None = None
    request: Body | None = None
    response: Body | None = None
    errors: list[str] = field(default_factory=list)
    source: ExchangeSource | None = None

    @property
    def error(self) -> str | None:
        """Everything that did not decode, in one line; None when everything did."""
        return "; ".join(self.errors) if self.errors else None

    @property
    def latency_ms(self) -> float | None:
        if self.response_ts is None:
            return None
        return (self.response_ts - self.ts) * 1000.0

    def to_dict(self) -> ExchangeRow:
        return {
            "ts": self.ts,
            "responseTs": self.response_ts,
            "latencyMs": self.latency_ms,
            "client": self.client,
            "broker": self.broker,
            "stream": self.stream,
            "apiKey": self.api_key,
            "apiName": self.api_name,
            "apiVersion": self.api_version,
            "correlationId": self.correlation_id,
            "clientId": self.client_id,
            "groupId": self.group_id,
            "memberId": self.member_id,
            "generationId": self.generation_id,
            "errorCode": self.error_code,
            "request": self.request,
            "response": self.response,
            "_error": self.error,
            "source": self.source,
        }
