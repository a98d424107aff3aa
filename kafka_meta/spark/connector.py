"""Spark's Kafka connector (``spark-sql-kafka-0-10``), fetched from Maven Central once and cached.

PySpark ships no Kafka source; Spark fetches it at start-up from ``spark.jars.packages`` with Ivy. Three
settings make that dependable:

* **which version**: the installed Spark's own (the connector uses Spark's internals, so the two should be of
  one release), unless Maven Central has no connector of that release yet: then the newest one that is
  there, :data:`NEWEST_PUBLISHED` (see docs/spark.md, "Reading from Kafka", for the rule and what it was
  checked on). ``KAFKA_META_KAFKA_PACKAGE`` names another coordinate outright;
* **where it is kept**: Ivy's cache in the user's cache directory (``~/.cache/kafka-meta/ivy``, or
  ``$XDG_CACHE_HOME/kafka-meta/ivy``, or ``$KAFKA_META_IVY``), so only the first start downloads anything;
* **where it comes from**: Maven Central alone (``ivysettings.xml`` beside this file). Spark's default chain
  looks in the local Maven repository (``~/.m2``) first and takes a module from there as soon as its pom is
  there, even when its jar is not (Maven keeps poms alone for what it only manages), then fails on the
  missing jar: any machine that has built something with Maven can hit it.

The jars Spark already ships (Hadoop's client, lz4, snappy, slf4j) are left out of the download
(:data:`SHIPPED_WITH_SPARK`): the copies in Spark's own ``jars/`` come first on the classpath anyway.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

PACKAGE = "org.apache.spark:spark-sql-kafka-0-10_2.13"
# the newest spark-sql-kafka-0-10_2.13 release Maven Central serves, checked when it is raised (docs/spark.md)
NEWEST_PUBLISHED = "4.2.0"
IVY_SETTINGS = Path(__file__).with_name("ivysettings.xml")
SHIPPED_WITH_SPARK = ("org.apache.hadoop:hadoop-client-runtime", "org.apache.hadoop:hadoop-client-api",
                      "at.yawk.lz4:lz4-java", "org.xerial.snappy:snappy-java", "org.slf4j:slf4j-api")
PACKAGE_VARIABLE = "KAFKA_META_KAFKA_PACKAGE"
IVY_VARIABLE = "KAFKA_META_IVY"


def _release(version: str) -> tuple[int, ...]:
    """A Spark version's numbers (``4.3.0.dev1`` -> (4, 3, 0))."""
    return tuple(int(n) for n in re.findall(r"\d+", version)[:3])


def connector_version(spark_version: str) -> str:
    """The connector release for a Spark version: the same release, or :data:`NEWEST_PUBLISHED` when Spark is
    newer than any connector Maven Central serves."""
    release = ".".join(str(n) for n in _release(spark_version))
    return NEWEST_PUBLISHED if _release(spark_version) > _release(NEWEST_PUBLISHED) else release


def installed_spark() -> str:
    import pyspark

    return pyspark.__version__


def coordinate(spark_version: str | None = None) -> str:
    """The connector's Maven coordinate (group:artifact:version) for a Spark version (default: installed)."""
    named = os.environ.get(PACKAGE_VARIABLE)
    if named:
        return named
    return f"{PACKAGE}:{connector_version(spark_version or installed_spark())}"


def ivy_cache() -> Path:
    """Where Ivy keeps what it fetched, across runs."""
    if os.environ.get(IVY_VARIABLE):
        return Path(os.environ[IVY_VARIABLE])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "kafka-meta" / "ivy"


def connector_conf(spark_version: str | None = None) -> dict[str, str]:
    """The Spark settings that put the connector on a session's classpath (set before the session starts)."""
    return {"spark.jars.packages": coordinate(spark_version), "spark.jars.ivy": str(ivy_cache()),
            "spark.jars.ivySettings": str(IVY_SETTINGS), "spark.jars.excludes": ",".join(SHIPPED_WITH_SPARK)}
