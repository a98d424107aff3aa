"""What every data source of this package has in common: a short name, a fixed schema, and a reader made
from the options of ``spark.read``.

Each source declares these three as class attributes, so PySpark's ``DataSource`` methods are written once
and a new source is its reader plus three lines.
"""

from __future__ import annotations

import json
import os
from typing import Any, ClassVar

from pyspark.sql.datasource import DataSource, DataSourceReader
from pyspark.sql.types import StructType


class KafkaMetaSource(DataSource):
    """A data source whose ``NAME``, ``SCHEMA`` and ``READER`` (a reader class taking the options) are given
    by the subclass."""

    NAME: ClassVar[str]
    SCHEMA: ClassVar[StructType | str]
    READER: ClassVar[type[DataSourceReader]]

    @classmethod
    def name(cls) -> str:
        return cls.NAME

    def schema(self) -> StructType | str:
        return self.SCHEMA

    def reader(self, schema: Any) -> DataSourceReader:
        # Spark's case-insensitive options, kept as Spark gives them
        return self.READER(self.options)  # type: ignore[call-arg]


def option_paths(options: dict[str, str]) -> list[str]:
    """``load(path)`` passes ``path``; ``load([a, b])`` passes ``paths`` as a JSON array."""
    paths: list[str] = []
    if options.get("paths"):
        paths += json.loads(options["paths"])
    if options.get("path"):
        paths.append(options["path"])
    return [os.path.abspath(p[len("file:"):] if p.startswith("file:") else p) for p in paths]
