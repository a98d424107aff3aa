"""How a reader treats a version newer than the newest it knows: from the format's framing
(:class:`~kafka_meta.codec.framing.ForwardPolicy`), unless the format or its family says otherwise.

* ``clamp``: read with the newest known layout, ignore what follows (consumer protocol);
* ``ranges``: Kafka's generated readers, every field range evaluated at the wire version (KIP-915
  reading of ``__consumer_offsets`` values);
* ``refuse``: a newer version is an error;
* ``probe``: only the version fields are read, and the reader answers with its own version (Kafka
  Streams version probing, KIP-268).

Hooks, for formats whose rule for Kafka's readers is not what their framing does (kafka_meta may read
more leniently than Kafka): a format may carry ``forward_reading`` (a
:class:`ForwardReading` or one of the names above), and a format plugin of the catalogue
(:mod:`kafka_meta.formats.catalogue`) may define ``forward_reading(fmt)`` returning one (or None to
pass). ``note`` is shown with the matrix (e.g. that newer Java brokers refuse what the lenient rule reads).
"""

from __future__ import annotations

from typing import Any

from kafka_meta.codec.framing import ForwardPolicy, ForwardReading
from kafka_meta.formats import catalogue

Forward = ForwardPolicy  # the rules are the framing's policies

__all__ = ["EXPLAIN", "Forward", "ForwardReading", "forward_reading"]

EXPLAIN = {
    Forward.CLAMP: "a newer version is read with the newest layout the reader knows; what follows is ignored",
    Forward.RANGES: "a newer version is read with every field range evaluated at that version (Kafka's generated "
                    "readers); unknown tagged fields are skipped",
    Forward.REFUSE: "a newer version is refused",
    Forward.PROBE: "a newer version is read only for its version fields (version probing): the reader answers "
                   "with the version it supports",
}


def _coerce(value: Any) -> ForwardReading | None:
    if value is None:
        return None
    if isinstance(value, ForwardReading):
        return value
    if isinstance(value, ForwardPolicy):
        return ForwardReading(value)
    return ForwardReading(ForwardPolicy(str(value)))


def forward_reading(fmt: Any) -> ForwardReading:
    """The forward-reading rule of a format: its own declaration, its family's hook, else its framing's."""
    declared = _coerce(getattr(fmt, "forward_reading", None))
    if declared is not None:
        return declared
    found = _coerce(catalogue.forward_reading(fmt))
    if found is not None:
        return found
    framing = getattr(fmt, "framing", None)
    return ForwardReading(getattr(framing, "forward", ForwardPolicy.REFUSE))
