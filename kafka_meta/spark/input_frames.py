"""What the Spark readers of every kind give the analyze job: the frames of each kind of row, and what could
not be read (:class:`Inputs`), one module of its own so every reader can make one without importing the
others (:mod:`kafka_meta.spark.inputs` lists the readers, :mod:`kafka_meta.spark.row_inputs` is two of them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka_meta.inputs import Unreadable

PROVENANCE = ("topic", "partition", "offset", "timestamp")  # where a record was, kept when the input says
# a record's batch: a transactional batch's producer, and how its transaction ended (committed, aborted, open)
TRANSACTION_FIELDS = ("producerId", "transaction")
# the columns of a record every reader gives where its input has them (a broker's log always), in this order:
# its bytes, where it was read, whether it is a transaction marker, its transaction
RECORD_COLUMNS = ("key", "value", *PROVENANCE, "control", *TRANSACTION_FIELDS)


@dataclass
class Inputs:
    offsets: Any = None  # DataFrame: RECORD_COLUMNS (key and value binary) where the input has them
    blobs: Any = None  # DataFrame: type, blob (binary), other columns
    exchanges: Any = None  # DataFrame: the kafka-meta-capture data source's rows
    topics: Any = None  # DataFrame: the __cluster_metadata records of a log directory that name topics
    damage: Any = None  # DataFrame: _error, each a row that could not be read (a member whose bytes do not read)
    bad_lines: int = 0  # JSON Lines lines that are not JSON objects
    neither_lines: int = 0  # JSON Lines lines that are JSON objects but no row the project knows
    neither_rows: int = 0  # Parquet rows that are no row the project knows
    unreadable: list[Unreadable] = field(default_factory=list)  # inputs that could not be read at all
