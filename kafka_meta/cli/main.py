"""The ``kafka-meta`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from kafka_meta.cli.commands import command_modules
from kafka_meta.cli.output import fail
from kafka_meta.errors import KafkaMetaError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kafka-meta",
        description="Decode, encode and check the metadata Kafka exchanges during group rebalances.",
    )
    parser.add_argument("--specs", action="append", default=[], metavar="PATH",
                        help="also load message specs (Kafka's JSON dialect) from a file or directory")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in command_modules():
        group.add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.specs:
            import kafka_meta

            for path in args.specs:
                kafka_meta.load_specs(path, replace=True)
        return int(args.run(args) or 0)
    except KafkaMetaError as e:
        return fail(str(e), 1)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
