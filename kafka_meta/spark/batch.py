"""Decode a batch of blobs (an Arrow binary array) into an Arrow struct array, one row per blob.

This is the work done inside Spark's Python workers, kept free of Spark so it can be measured and
tested on its own. Per batch: the decoder is looked up once, the garbage collector is paused (decoding
allocates many small objects and gc passes would dominate), and rows go to Arrow in one conversion.
PERMISSIVE: a bad blob gives a row with ``_error`` set and no fields; FAILFAST: the batch raises the
DecodeError. A null blob gives a null row. Rows out = rows in, always.
"""

from __future__ import annotations

import gc
from functools import cache, partial

import pyarrow as pa

from kafka_meta.api import get_format
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import REGISTRY
from kafka_meta.errors import KafkaMetaError
from kafka_meta.spark.columnar import batch_program
from kafka_meta.spark.columns import InvalidUtf8, arrow_text
from kafka_meta.spark.rows import model_row
from kafka_meta.spark.schema import ERROR_FIELD, message_row_type

PERMISSIVE = "PERMISSIVE"
FAILFAST = "FAILFAST"


class paused_gc:
    """Pause the cyclic garbage collector for a batch (decoded values hold no reference cycles)."""

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            gc.enable()


class BatchDecoder:
    def __init__(self, type_name: str, mode: str = PERMISSIVE, version: int | None = None,
                 strict: bool = False) -> None:
        mode = mode.upper()
        if mode not in (PERMISSIVE, FAILFAST):
            raise ValueError(f"mode must be {PERMISSIVE} or {FAILFAST}, not {mode!r}")
        self.type_name = type_name
        self.failfast = mode == FAILFAST
        fmt = get_format(type_name)
        self.row_type = message_row_type(fmt.model)
        # Spec-described formats decode straight into columns. Hand-declared ones (Streams AssignmentInfo, the
        # metadata-log frame) read values back while decoding (a topic dictionary, an apiKey), which needs the
        # values the columnar mode never builds, so they decode row by row.
        self.program = batch_program(fmt, self.failfast, version, strict) if isinstance(fmt, SpecFormat) else None
        self.read = partial(model_row, fmt, version=version, strict=strict)

    def rows(self, blobs: list[bytes | None]) -> list[dict | None]:
        read, failfast = self.read, self.failfast
        out: list[dict | None] = []
        append = out.append
        for blob in blobs:
            if blob is None:
                append(None)
                continue
            try:
                append(read(blob))
            except KafkaMetaError as e:
                if failfast:
                    raise
                append({ERROR_FIELD: str(e)})
        return out

    def __call__(self, blobs: pa.Array) -> pa.Array:
        """Spec-described formats decode straight into columns; others go through rows."""
        with paused_gc():
            if self.program is not None:
                try:
                    return self.program.decode_array(blobs)
                except InvalidUtf8:  # a string column did not validate: find the rows one by one
                    pass
            rows = self.rows(blobs.to_pylist())
            try:
                return pa.array(rows, type=self.row_type)
            except UnicodeEncodeError:  # an unpaired surrogate from Java's modified UTF-8
                return pa.array(arrow_text(rows), type=self.row_type)


def batch_decoder(type_name: str, mode: str = PERMISSIVE, version: int | None = None,
                  strict: bool = False) -> BatchDecoder:
    """One decoder per worker process and settings (built on first use, after the process started, and
    again when types are registered: a polymorphic field's columns depend on them)."""
    return _batch_decoder(type_name, mode, version, strict, REGISTRY.generation)


@cache
def _batch_decoder(type_name: str, mode: str, version: int | None, strict: bool, generation: int) -> BatchDecoder:
    return BatchDecoder(type_name, mode, version, strict)
