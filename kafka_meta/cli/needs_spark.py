"""What a verb that runs on Spark does where PySpark is not installed: it still parses, then says how to get it.

``analyze`` and ``stream`` both need the ``spark`` extra; without it their parser takes whatever follows the verb
(so no usage error hides the real reason) and the run ends in the one line naming the extra to install."""

from __future__ import annotations

import argparse

from kafka_meta.cli.output import fail


def without_spark(parser: argparse.ArgumentParser, verb: str) -> None:
    """Make ``verb``'s parser take any arguments and its run fail with how to install PySpark."""
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    parser.set_defaults(run=lambda args: fail(f"{verb} needs Spark: pip install 'kafka-meta[spark]'"))
