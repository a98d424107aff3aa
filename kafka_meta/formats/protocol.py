"""Kafka request and response bodies (``schemas/protocol/``), read by :mod:`kafka_meta.protocol`.

Unframed: the version travels in the request header, which the protocol layer reads and passes on. A
version newer than the spec knows is refused rather than guessed at: the exchange then says so and keeps
the raw body.
"""

from __future__ import annotations

from kafka_meta.codec.framing import ForwardPolicy, Unframed
from kafka_meta.formats.family import Family

FAMILIES = {"protocol": Family(lambda spec: Unframed(ForwardPolicy.REFUSE))}
