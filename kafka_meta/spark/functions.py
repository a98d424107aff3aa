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
    if version is not None:
        try:
            version = int(version)
        except (TypeError, ValueError):
            raise ValueError(f"option version must be an integer, not {version!r}") from None
    return mode, version, strict


def check_arguments(col: Any, type_name: Any) -> None:
    """Wrong argument kinds said on the driver, where the call is, not as a worker's traceback later."""
    from pyspark.sql import Column

    if not isinstance(col, (str, Column)):
        raise TypeError(f"from_kafka_meta: col must be a column or a column name, not {type(col).__name__}")
    if not isinstance(type_name, str):
        raise TypeError(f"from_kafka_meta: type_name must be a type name (a str, see kafka_meta.types()), "
                        f"not {type(type_name).__name__}")


def binary_blobs(blobs: pa.Array, type_name: str) -> pa.Array:
    """The column's values as Arrow binary; any other column type is a mistake in the call, said plainly
    (Spark cannot check a Python UDF's argument type before the job runs)."""
    if pa.types.is_binary(blobs.type) or pa.types.is_large_binary(blobs.type):
        return blobs
    if pa.types.is_null(blobs.type):
        return blobs.cast(pa.binary())
    raise TypeError(f"from_kafka_meta({type_name!r}): the column holds {blobs.type}, not binary; decode text "
                    f"first (unhex, unbase64) or select the bytes column")


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

    check_arguments(col, type_name)
    mode, version, strict = _options(options)
    batch_decoder(type_name, mode, version, strict)  # fail on the driver for an unknown type or bad option
    portable = portable_spec(type_name)

    def decode(blobs: pa.Array) -> pa.Array:
        ensure_registered(type_name, portable)
        return batch_decoder(type_name, mode, version, strict)(binary_blobs(blobs, type_name))

    udf = arrow_udf(decode, schema_for(type_name))
    return udf(col)
