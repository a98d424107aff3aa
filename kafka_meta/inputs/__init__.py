"""Every input the project reads, of every kind, recognised by content and read the one way its kind is read:
JSON Lines, Parquet, packet captures, Kafka log segments, and directories holding any of them.

>>> from kafka_meta.inputs import read                                  # doctest: +SKIP
>>> inputs = read(["fixtures/captures/pcap", "fixtures/log/kafka-logs"])  # doctest: +SKIP
>>> len(inputs.exchanges), len(inputs.offsets), inputs.complete         # doctest: +SKIP
"""

from kafka_meta.inputs.detect import Source, Unreadable, classify
from kafka_meta.inputs.kinds import BY_NAME, CAPTURE, JSONL, KINDS, PARQUET, SEGMENT, Kind
from kafka_meta.inputs.read import Damage, Inputs, Row, read, rows

__all__ = ["BY_NAME", "CAPTURE", "JSONL", "KINDS", "PARQUET", "SEGMENT", "Damage", "Inputs", "Kind", "Row", "Source",
           "Unreadable", "classify", "read", "rows"]
