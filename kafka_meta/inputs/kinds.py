"""The kinds of input every verb and every Spark read take, each recognised by its content, never its name.

One entry per kind in :data:`KINDS`, in the order they are tried on a file: a kind's ``recognise`` looks at
the file's first bytes (and may read further, a log segment's first entry and its CRC); the first kind that
claims a file reads it, with the kind's one reader. Adding a kind is one module of this package defining
its :class:`~kafka_meta.inputs.kind.Kind`, and one line here (plus its Spark reader in
:mod:`kafka_meta.spark.inputs`, which refuses to start without one).

A directory is no kind of its own: its files are recognised one by one (see :mod:`kafka_meta.inputs.detect`),
so a log directory, a directory of captures and a directory holding both read the same way.
"""

from __future__ import annotations

from kafka_meta.inputs import capture, jsonl, parquet, segment
from kafka_meta.inputs.kind import Kind

KINDS: tuple[Kind, ...] = (
    capture.KIND,
    parquet.KIND,
    segment.KIND,
    jsonl.KIND,
)
BY_NAME = {kind.name: kind for kind in KINDS}
CAPTURE, SEGMENT, PARQUET, JSONL = capture.KIND.name, segment.KIND.name, parquet.KIND.name, jsonl.KIND.name
