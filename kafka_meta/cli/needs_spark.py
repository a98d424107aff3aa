"""What a verb that runs on Spark does where PySpark is not installed: it still parses, then says how to get it.

``analyze`` and ``stream`` both need the ``spark`` extra; without it their parser takes whatever follows the verb
(so no usage error hides the real reason) and the run ends in the one line naming the extra to install."""

from __future__ import annotations

import argparse

from kafka_meta.cli.output import fail


def without_spark(parser: argparse.ArgumentParser, message: str) -> None:
    """Make a verb's parser take any arguments and its run fail with ``message`` (the verb's own words, naming
    the extra to install: the README's list of extras is held to them)."""
    parser.add_argument("rest", nargs=argparse.REMAINDER)
    parser.set_defaults(run=lambda args: fail(message))
