"""The ``kafka-meta`` command.

Every failure a user can cause ends the same way: one line on stderr, ``kafka-meta[ COMMAND]: what and
where``, and a non-zero exit status (1: the input was read and is bad; 2: the command line or a path is
wrong). Only a bug shows a traceback, and only when ``KAFKA_META_TRACEBACK=1`` asks for it.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from kafka_meta.cli.commands import command_modules
from kafka_meta.cli.files import spec_paths
from kafka_meta.cli.output import fail
from kafka_meta.errors import InputError, KafkaMetaError

BUG = 70  # EX_SOFTWARE: something kafka_meta did not expect


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the usage itself is one ``--help`` away); sub-command
    parsers are made by ``add_parser`` with the parent's class, so every verb gets this."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``command`` (the command a run names), only that command's when
    its module is named after it, so a run imports what its own command needs and no other's (``capture``
    does not load Spark's job, the analysis or the golden files). Anything else gets the whole parser."""
    if command is not None:
        parser, sub = _parser(command_modules(command))
        if command in sub.choices:
            return parser
    return _parser(command_modules())[0]


def _parser(groups: list[ModuleType]) -> tuple[argparse.ArgumentParser, Any]:
    parser = Parser(
        prog="kafka-meta",
        description="Decode, encode and check the metadata Kafka exchanges during group rebalances.",
    )
    parser.add_argument("--specs", action="append", default=[], metavar="PATH",
                        help="also load message specs (Kafka's JSON dialect) from a file or directory")
    sub = parser.add_subparsers(dest="command", required=True)
    for group in groups:
        group.add_parsers(sub)
    return parser, sub


def command_word(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first word after the global options (``--specs PATH``);
    None for anything else (``--help``, an abbreviated option), which the whole parser then reads."""
    words = iter(argv)
    for word in words:
        if word == "--specs":
            next(words, None)
        elif not word.startswith("--specs="):
            return None if word.startswith("-") else word
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(command_word(argv)).parse_args(argv)  # usage errors exit with 2 after one line, --help with 0
    try:
        if args.specs:
            import kafka_meta

            for path in args.specs:
                spec_paths(path)
                kafka_meta.load_specs(path, replace=True)
        return int(args.run(args) or 0)
    except InputError as e:
        return fail(str(e), 2)
    except KafkaMetaError as e:
        return fail(str(e), 1)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        return fail(f"{where}{e.strerror or e}", 2)
    except UnicodeDecodeError as e:
        return fail(f"the input is not UTF-8 text: byte {e.start} of the part read is {e.object[e.start]:#04x}", 2)
    except Exception as e:  # noqa: BLE001 - a bug: still one line, the traceback only on request
        if os.environ.get("KAFKA_META_TRACEBACK"):
            traceback.print_exc()
        return fail(f"unexpected {type(e).__name__} (a bug in kafka_meta; KAFKA_META_TRACEBACK=1 shows where): "
                    f"{str(e).splitlines()[0] if str(e) else ''}", BUG)


if __name__ == "__main__":
    sys.exit(main())
