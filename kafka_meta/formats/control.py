"""Control records: the records of a batch with the control bit set, whose key's type chooses the value's layout.

The key (``ControlRecordKey``) is framed by an int16 version, read with the newest layout when newer, as
Kafka's ``ControlRecordType.parse`` does. Its type says what the value is (:data:`CONTROL_TYPES`):

* 0 ABORT / 1 COMMIT: a transaction marker, ``EndTxnMarker``, framed by an int16 version (newer versions read
  with the newest layout, as ``EndTransactionMarker.deserialize`` does);
* 2-6, the KRaft log's own (``__cluster_metadata``, and snapshots): ``LeaderChangeMessage``,
  ``SnapshotHeaderRecord``, ``SnapshotFooterRecord``, ``KRaftVersionRecord``, ``VotersRecord``. These values carry
  no version on the wire: Kafka's ``ControlRecordUtils`` reads each at version 0 (its ``*_CURRENT_VERSION``
  constants), whatever the message's own ``Version`` field says, so they are registered unframed and read at
  :data:`KRAFT_VALUE_VERSION`.

Any other type is Kafka's ``UNKNOWN``: its value has no layout.
"""

from __future__ import annotations

from typing import NamedTuple

from kafka_meta.codec.framing import ForwardPolicy, Framing, Int16Prefixed, Unframed
from kafka_meta.formats.family import Family, FormatPlugin
from kafka_meta.spec.model import MessageSpec


class ControlType(NamedTuple):
    """One control record type: Kafka's ``ControlRecordType`` name and the type its value is read as."""

    name: str
    value_type: str


CONTROL_TYPES: dict[int, ControlType] = {
    0: ControlType("ABORT", "EndTxnMarker"),
    1: ControlType("COMMIT", "EndTxnMarker"),
    2: ControlType("LEADER_CHANGE", "LeaderChangeMessage"),
    3: ControlType("SNAPSHOT_HEADER", "SnapshotHeaderRecord"),
    4: ControlType("SNAPSHOT_FOOTER", "SnapshotFooterRecord"),
    5: ControlType("KRAFT_VERSION", "KRaftVersionRecord"),
    6: ControlType("KRAFT_VOTERS", "VotersRecord"),
}
MARKERS = {0: "ABORT", 1: "COMMIT"}  # the transaction markers among them
KRAFT_VALUE_VERSION = 0  # the version ControlRecordUtils reads every KRaft control value at
KRAFT_VALUES = frozenset(t.value_type for n, t in CONTROL_TYPES.items() if n not in MARKERS)
KEY_TYPE = "ControlRecordKey"


def control_type(number: int) -> ControlType | None:
    """The control record type of a key's type number; None for one Kafka calls ``UNKNOWN``."""
    return CONTROL_TYPES.get(number)


def _framing(spec: MessageSpec) -> Framing:
    if spec.name in KRAFT_VALUES:
        return Unframed(ForwardPolicy.RANGES)
    return Int16Prefixed(ForwardPolicy.CLAMP)


PLUGIN = FormatPlugin("control", {"control": Family(_framing)})
