"""Every input the project reads, of every kind, recognised by content and read the one way its kind is read:
JSON Lines, Parquet, packet captures, Kafka log segments, and directories holding any of them.

One module per kind (:mod:`~kafka_meta.inputs.capture`, :mod:`~kafka_meta.inputs.parquet`,
:mod:`~kafka_meta.inputs.segment`, :mod:`~kafka_meta.inputs.jsonl`), each its recognition and its reader,
listed in :mod:`kafka_meta.inputs.kinds`; :mod:`~kafka_meta.inputs.detect` finds the sources of an input.
Two rules are stated here once for every face: which kind a row of fields is
(:func:`~kafka_meta.inputs.items.sort_row`) and how the hex or base64 text of its bytes becomes bytes
(:mod:`~kafka_meta.payload_text`); :mod:`kafka_meta.spark.row_rules` is their column form.

>>> from kafka_meta.inputs import read                                  # doctest: +SKIP
>>> inputs = read(["fixtures/captures/pcap", "fixtures/log/kafka-logs"])  # doctest: +SKIP
>>> len(inputs.exchanges), len(inputs.offsets), inputs.complete         # doctest: +SKIP
"""

from kafka_meta.inputs.detect import EMPTY, NO_SUCH, classify, segments_of
from kafka_meta.inputs.items import Damage, Row, Source, Unreadable
from kafka_meta.inputs.kind import Kind
from kafka_meta.inputs.kinds import BY_NAME, CAPTURE, JSONL, KINDS, PARQUET, SEGMENT
from kafka_meta.inputs.read import Inputs, read, rows, source_rows

__all__ = ["BY_NAME", "CAPTURE", "EMPTY", "JSONL", "KINDS", "NO_SUCH", "PARQUET", "SEGMENT", "Damage", "Inputs",
           "Kind", "Row", "Source", "Unreadable", "classify", "read", "rows", "segments_of", "source_rows"]
