"""Control records: the layouts of their keys and values, registered from ``schemas/control``.

The key (``ControlRecordKey``) and the transaction markers' value (``EndTxnMarker``) are framed by an int16
version, newer versions read with the newest layout as Kafka's ``ControlRecordType.parse`` and
``EndTransactionMarker.deserialize`` do. The KRaft log's control values (``LeaderChangeMessage``...) have no
version on the wire: they are registered unframed and read at the version Kafka reads them at. Which value a key's
type stands for is :data:`kafka_meta.kraft.control.CONTROL_TYPES`.
"""

from __future__ import annotations

from kafka_meta.codec.framing import ForwardPolicy, Framing, Int16Prefixed, Unframed
from kafka_meta.formats.family import Family, FormatPlugin
from kafka_meta.kraft.control import (
    CONTROL_TYPES,
    KEY_TYPE,
    KRAFT_VALUES,
    MARKERS,
    control_type,
    marker_name,
    value_version,
)
from kafka_meta.spec.model import MessageSpec

KRAFT_CONTROL_VALUES = KRAFT_VALUES  # the KRaft control records' value types (LeaderChangeMessage...)

# the one table of control types, for the readers of the layers above formats (offsets: the transaction markers)
__all__ = ["CONTROL_TYPES", "KEY_TYPE", "KRAFT_CONTROL_VALUES", "MARKERS", "PLUGIN", "control_type", "marker_name",
           "value_version"]


def _framing(spec: MessageSpec) -> Framing:
    """Unframed for the KRaft control values (read at a version the reader supplies), an int16 prefix else."""
    if spec.name in KRAFT_CONTROL_VALUES:
        return Unframed(ForwardPolicy.RANGES)
    return Int16Prefixed(ForwardPolicy.CLAMP)


PLUGIN = FormatPlugin("control", {"control": Family(_framing)})
