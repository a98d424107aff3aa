"""What a directory of ``schemas/`` means: its framing, and model bases that add derived views."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kafka_meta.codec.framing import Framing
from kafka_meta.models.base import Message
from kafka_meta.spec.model import MessageSpec


@dataclass(frozen=True)
class Family:
    framing: Callable[[MessageSpec], Framing]
    model_bases: dict[str, type[Message]] = field(default_factory=dict)
    # the type name a spec is registered under, when it differs from the spec's own name
    type_names: dict[str, str] = field(default_factory=dict)
