"""The part every subject of one registered type shares: its format, its values, and Kafka's reading of bytes.

The consumer protocol's and Kafka Streams' subjects each cover one registered type: values are drawn from the
type's construct tree by the :class:`~kafka_meta.testing.conformance.values.Sampler` (one per random source, so a
shard's own source draws its cases), written by the type's format (a refusal is a result, not an error), and read on
Kafka's side by one peer operation that takes the bytes as hex and answers a value or the exception it threw.
"""

from __future__ import annotations

import random
from typing import Any

from kafka_meta.errors import EncodeError
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.testing.conformance.engine import Drawn, Read, Subject
from kafka_meta.testing.conformance.peer import Answer
from kafka_meta.testing.conformance.values import Sampler


class RegisteredSubject(Subject):
    """A subject covering the registered type ``type_name``; Kafka reads its bytes with the operation ``read_op``
    and :meth:`kafka_view` says what its answer is compared on."""

    def __init__(self, type_name: str, name: str, read_op: str) -> None:
        self.type_name = type_name
        self.name = name
        self.types = (type_name,)
        self.fmt = REGISTRY.get(type_name)
        self.read_op = read_op
        self.sampler: Sampler | None = None

    def sample(self, rng: random.Random, version: int) -> tuple[Any, dict[str, Any]]:
        """The construct tree of ``version`` and a value drawn for it with ``rng``."""
        if self.sampler is None or self.sampler.rng is not rng:
            self.sampler = Sampler(rng)
        tree = self.fmt.construct(version)  # type: ignore[attr-defined]
        return tree, self.sampler.value(tree)

    def encode(self, value: dict[str, Any], version: int) -> tuple[bytes | None, str | None]:
        """The project's bytes of ``value`` at ``version``, or why it refused to write them."""
        try:
            return self.fmt.encode(value, version), None
        except EncodeError as e:
            return None, str(e)

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        return {"op": self.read_op, "hex": data.hex()}

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        return self.kafka_view(answer.result) if answer.ok else Read(refused=answer.error)

    def kafka_view(self, result: dict[str, Any]) -> Read:
        """What Kafka's reading (``result``, the peer's answer) is compared on."""
        raise NotImplementedError


__all__ = ["RegisteredSubject"]
