"""Kafka's control record types (``ControlRecordType``): what the key of a control record says its value is.

A control record is a record of a batch with the control bit set. Its key (``ControlRecordKey``: an int16
version, an int16 type) names one of these types, and the type alone chooses the layout its value is read with:
the one table every reader of control records goes through (the ``control`` format family registers the
layouts, :mod:`kafka_meta.metadata_log` reads the KRaft log's control records by it, and the transaction markers
of ``__consumer_offsets`` are its first two rows).

* 0 ABORT / 1 COMMIT: transaction markers, ``EndTxnMarker``, framed by an int16 version;
* 2-6, written only to the KRaft log (``__cluster_metadata``) and its snapshots: ``LeaderChangeMessage``,
  ``SnapshotHeaderRecord``, ``SnapshotFooterRecord``, ``KRaftVersionRecord``, ``VotersRecord``. Their values carry
  no version on the wire: Kafka's ``ControlRecordUtils`` reads each at version 0 (its ``*_CURRENT_VERSION``
  constants, all 0 in 4.4) whatever the message's own ``Version`` field says, so they are read at
  :data:`KRAFT_VALUE_VERSION`: a ``LeaderChangeMessage`` v1 field is never on the wire Kafka writes.

Any other type is Kafka's ``UNKNOWN``: its value has no layout (DumpLogSegments prints ``controlType:
UNKNOWN(n)``). The names are Kafka's ``ControlRecordType`` constants; :data:`DUMP_NAMES` are the words
DumpLogSegments prints before a KRaft control record's JSON.
"""

from __future__ import annotations

from typing import NamedTuple


class ControlType(NamedTuple):
    """One control record type: its number, Kafka's name for it and the type its value is read as."""

    number: int
    name: str
    value_type: str

    @property
    def marker(self) -> bool:
        """Whether it is a transaction marker (ABORT, COMMIT) rather than one of the KRaft log's own."""
        return self.value_type == MARKER_VALUE


KEY_TYPE = "ControlRecordKey"
MARKER_VALUE = "EndTxnMarker"  # the value of a transaction marker, of either kind
CONTROL_TYPES: dict[int, ControlType] = {t.number: t for t in (
    ControlType(0, "ABORT", MARKER_VALUE),
    ControlType(1, "COMMIT", MARKER_VALUE),
    ControlType(2, "LEADER_CHANGE", "LeaderChangeMessage"),
    ControlType(3, "SNAPSHOT_HEADER", "SnapshotHeaderRecord"),
    ControlType(4, "SNAPSHOT_FOOTER", "SnapshotFooterRecord"),
    ControlType(5, "KRAFT_VERSION", "KRaftVersionRecord"),
    ControlType(6, "KRAFT_VOTERS", "VotersRecord"),
)}
# the transaction markers' types by number, as the table names them (every topic's control batches hold them)
MARKERS = {t.number: t.name for t in CONTROL_TYPES.values() if t.marker}
UNKNOWN = "UNKNOWN"  # Kafka's name for any other type
KRAFT_VALUE_VERSION = 0  # the version ControlRecordUtils reads every KRaft control value at
KRAFT_VALUES = frozenset(t.value_type for t in CONTROL_TYPES.values() if not t.marker)
# what DumpLogSegments prints before each KRaft control record's JSON
DUMP_NAMES = {2: "LeaderChange", 3: "SnapshotHeader", 4: "SnapshotFooter", 5: "KRaftVersion", 6: "KRaftVoters"}


def control_type(number: int) -> ControlType | None:
    """The control record type of a key's type number; None for one Kafka calls ``UNKNOWN``."""
    return CONTROL_TYPES.get(number)


def marker_name(number: int) -> str:
    """What a transaction marker of this key type is called (``ABORT``, ``COMMIT``), or ``type N`` for a type
    that is no marker: how the readers of a topic's markers name each (``kafka-meta offsets``, ``log --decode``)."""
    kind = CONTROL_TYPES.get(number)
    return kind.name if kind is not None and kind.marker else f"type {number}"


def value_version(kind: ControlType) -> int | None:
    """The version a value of this type is read at: the KRaft values' fixed one, None for the markers (their
    int16 prefix says)."""
    return None if kind.marker else KRAFT_VALUE_VERSION
