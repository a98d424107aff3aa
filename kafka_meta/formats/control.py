"""Control records (transaction markers): key and value both framed by an int16 version; newer versions
are read with the newest layout, as Kafka's ControlRecordType and EndTransactionMarker readers do."""

from __future__ import annotations

from kafka_meta.codec.framing import ForwardPolicy, Int16Prefixed
from kafka_meta.formats.family import Family, FormatPlugin

PLUGIN = FormatPlugin("control", {"control": Family(lambda spec: Int16Prefixed(ForwardPolicy.CLAMP))})

MARKERS = {0: "ABORT", 1: "COMMIT"}
