"""The exchange as a row: the one shape every reader of traffic hands to the analysis.

:meth:`Exchange.to_dict` produces it, ``kafka-meta capture`` writes it as JSON Lines, the capture data source
gives it as a Spark row (the same names as columns) and the timeline's builders read it. It is declared here,
once, as a ``TypedDict``: the rows stay plain dicts (Spark, JSON and Arrow take them as they are), while a
type checker holds every producer and every reader to the same names, so a field renamed on one side is a
type error on the other rather than a ``.get`` that quietly answers None (``tests/test_shapes.py``).

The keys are the JSON names (Kafka-style camelCase, ``_error`` for what did not decode). The bodies are
Kafka's own messages under their spec's JSON field names: their shape is the specs' (``schemas/protocol``),
not declared again here.
"""

from __future__ import annotations

from typing import Any, TypedDict

Body = dict[str, Any]  # a decoded request or response, keyed by the spec's JSON names; {"_raw": bytes} if unread


class ExchangeSource(TypedDict):
    """Where an exchange was read: the capture file and the packet (1-based, as Wireshark counts) that
    completed it."""

    file: str | None
    frame: int | None


class ExchangeRow(TypedDict):
    """One request and its response on one connection (see :class:`~kafka_meta.protocol.exchange.Exchange`).
    Every key is always present: what is not known is None (a request never answered has ``responseTs``,
    ``latencyMs`` and ``response`` None)."""

    ts: float  # the request's capture time, epoch seconds
    responseTs: float | None
    latencyMs: float | None
    client: str | None  # ip:port of each end
    broker: str | None
    stream: int | None  # the reader's connection number
    apiKey: int | None
    apiName: str | None
    apiVersion: int | None
    correlationId: int | None
    clientId: str | None
    groupId: str | None  # the group facts, lifted from the bodies (kafka_meta.protocol.summary)
    memberId: str | None
    generationId: int | None
    errorCode: int | None
    request: Body | None
    response: Body | None
    _error: str | None  # everything that did not decode, in one line
    source: ExchangeSource | None


EXCHANGE_KEYS: tuple[str, ...] = tuple(ExchangeRow.__annotations__)  # in the order to_dict writes them
