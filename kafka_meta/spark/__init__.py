"""Bulk decoding on Spark (needs the ``spark`` extra: ``pip install 'kafka-meta[spark]'``).

The names below are imported on first use, so importing a module of this package (the analyze job's
arguments, a data source) does not start PySpark and pyarrow in every ``kafka-meta`` command.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {"FAILFAST": "batch", "PERMISSIVE": "batch", "from_kafka_meta": "functions", "schema_for": "functions",
          "register": "sources"}

__all__ = ["FAILFAST", "PERMISSIVE", "from_kafka_meta", "register", "schema_for"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
