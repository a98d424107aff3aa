"""Decode a batch of blobs (an Arrow binary array) into an Arrow struct array, one row per blob.

This is the work done inside Spark's Python workers, kept free of Spark so it can be measured and
tested on its own. Per batch: the decoder is looked up once, the garbage collector is paused (decoding
allocates many small objects and gc passes would dominate), and rows go to Arrow in one conversion.
PERMISSIVE: a bad blob gives a row with ``_error`` set and no fields; FAILFAST: the batch raises the
DecodeError. A null blob gives a null row. Rows out = rows in, always.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import cache
from typing import Any

import pyarrow as pa

from kafka_meta.api import get_format
from kafka_meta.codec.format import SpecFormat
from kafka_meta.codec.registry import REGISTRY
from kafka_meta.errors import DecodeError, KafkaMetaError
from kafka_meta.spark.columnar import batch_program
from kafka_meta.spark.columns import InvalidUtf8, arrow_text
from kafka_meta.spark.rows import row_decoder, row_from_model
from kafka_meta.spark.schema import ERROR_FIELD, VERSION_FIELD, message_row_type

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


def _spec_row_reader(fmt: SpecFormat, strict: bool, version: int | None) -> Callable[[bytes], dict]:
    read_header = fmt.framing.read
    versions, name = fmt.spec.valid_versions, fmt.name
    decoders: dict[int, Callable] = {}

    def read(buf: bytes) -> dict:
        header = read_header(buf, versions, version, name, strict)
        fn = decoders.get(header[1])
        if fn is None:
            fn = decoders[header[1]] = row_decoder(fmt, header[1], strict)
        try:
            row, end = fn(buf, header[2], len(buf))
        except Exception as exc:  # noqa: BLE001 - explained by the reference reader
            raise fmt.explain_decode(buf, header, strict, exc) from None
        if strict and end != len(buf):
            raise DecodeError(f"{len(buf) - end} bytes follow the last field (strict reading)", type_name=name,
                              version=header[0], offset=end)
        row[VERSION_FIELD] = header[0]
        return row

    return read


def _model_row_reader(fmt: Any, strict: bool, version: int | None) -> Callable[[bytes], dict]:
    def read(buf: bytes) -> dict:
        message = fmt.decode(buf, version=version, strict=strict)
        row = row_from_model(message)
        row[VERSION_FIELD] = message.version
        return row

    return read


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
        self.program = batch_program(fmt, self.failfast, version, strict) if isinstance(fmt, SpecFormat) else None
        if isinstance(fmt, SpecFormat):
            self.read = _spec_row_reader(fmt, strict, version)
        else:
            self.read = _model_row_reader(fmt, strict, version)

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
            values = blobs.to_pylist()
            if self.program is not None:
                try:
                    return self.program.decode(values)
                except InvalidUtf8:  # a string column did not validate: find the rows one by one
                    pass
            rows = self.rows(values)
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
