"""``from_kafka_meta``: decode a binary column into a typed struct column, like Spark's ``from_avro``.

The work runs in Spark's Python workers as an Arrow UDF (``arrow_udf``, PySpark 4.1+): Arrow batches in,
Arrow struct arrays out, no per-row pickling. Executors need kafka_meta installed (see docs/spark.md).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from kafka_meta.api import get_format
from kafka_meta.codec.registry import REGISTRY, USER_FAMILY, register_spec
from kafka_meta.spark.batch import PERMISSIVE, batch_decoder
from kafka_meta.spark.schema import message_row_type, spark_type
from kafka_meta.spec.loader import spec_from_dict

OPTIONS = {"mode", "version", "strict"}


def _options(options: dict[str, Any] | None) -> tuple[str, int | None, bool]:
    options = dict(options or {})
    unknown = set(options) - OPTIONS
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; known: {sorted(OPTIONS)}")
    mode = str(options.get("mode", PERMISSIVE)).upper()
    version = options.get("version")
    strict = str(options.get("strict", "false")).lower() in ("true", "1", "yes")
    return mode, None if version is None else int(version), strict


def schema_for(type_name: str) -> Any:
    """The Spark type ``from_kafka_meta`` returns for a type: the union of every version's fields (absent
    ones null... or at their defaults), plus ``_version`` and ``_error``."""
    return spark_type(message_row_type(get_format(type_name).model))


def portable_spec(type_name: str) -> dict[str, Any] | None:
    """The spec of a type the user registered (``load_specs``), to register it again in Spark's workers,
    which are other processes; None for the types bundled with kafka_meta."""
    fmt = get_format(type_name)
    if getattr(fmt, "family", None) != USER_FAMILY:
        return None
    return {"raw": fmt.spec.raw, "source": fmt.spec.source}


def ensure_registered(type_name: str, portable: dict[str, Any] | None) -> None:
    if portable is None or type_name in REGISTRY.names():
        return
    register_spec(REGISTRY, spec_from_dict(portable["raw"], portable["source"]), replace=True)


def from_kafka_meta(col: Any, type_name: str, options: dict[str, Any] | None = None) -> Any:
    """Decode ``col`` (binary) as ``type_name``; returns a struct column.

    options: ``mode`` PERMISSIVE (default: a bad blob gives a row with ``_error`` set, nothing is dropped)
    or FAILFAST (the job fails with the DecodeError); ``version`` for types whose version is not on the
    wire; ``strict`` ("true") for Kafka 4.0+'s refusals of unknown versions, tags and trailing bytes.
    """
    from pyspark.sql.functions import arrow_udf

    mode, version, strict = _options(options)
    batch_decoder(type_name, mode, version, strict)  # fail on the driver for an unknown type or bad option
    portable = portable_spec(type_name)

    def decode(blobs: pa.Array) -> pa.Array:
        ensure_registered(type_name, portable)
        return batch_decoder(type_name, mode, version, strict)(blobs)

    udf = arrow_udf(decode, schema_for(type_name))
    return udf(col)
