"""The ``kafka-meta`` command.

Every verb ends with one of three exit statuses (README.md, "Exit status", says the same for users):

* **0**: everything given was read, and for the verbs that check something (``evolution``, ``golden verify``,
  ``compat --verify``, ``simulate``) the check passed;
* **1**: some input or payload could not be read, and the rest was read and reported: an input that exists but
  holds nothing readable (an empty directory or file, a file of no known kind, a capture cut off before its
  first packet), damage read around (a bad CRC, a cut-off packet, a line that is not JSON, a record or payload
  that does not decode), an input of the wrong kind for the verb, inputs holding nothing of what the verb
  prints (no Kafka connection in a capture, no record in a dump), a cluster that does not answer (Kafka within
  ``--connect-timeout``, or Spark's master); or a check that failed;
* **2**: the command line is wrong, found before anything is read: an unknown verb or option, a value the
  option does not take (a threshold out of range, an unknown type or api, bad hex), options that do not go
  together, a path that does not exist or a directory where only a file will do, a ``--command-config`` file
  with a setting the verb cannot take.

Filters (``--group``, ``--api``, ``--type``) never change the status: what they leave out was read. A run
interrupted by Ctrl-C ends with 130, and a bug with 70 (one line; the traceback only when
``KAFKA_META_TRACEBACK=1`` asks for it). The statuses are named in :mod:`kafka_meta.cli.status`.

Every failure a user can cause ends the same way: one line on stderr, ``kafka-meta[ COMMAND]: what and
where``; a bad line of an input is said as ``FILE line N: what``, in the order of the input, and the rest is
read.

:class:`~kafka_meta.errors.InputError` that reaches this module is a usage error (2), any other
:class:`~kafka_meta.errors.KafkaMetaError` is an input that could not be read (1): a verb that learns a
problem with what an input *holds* through an InputError (a binary file where text is expected) says it with
status 1 itself.
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
from kafka_meta.cli.status import BUG, INTERRUPTED, PROBLEM, USAGE, require_paths
from kafka_meta.errors import InputError, KafkaMetaError


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (the usage itself is one ``--help`` away); sub-command
    parsers are made by ``add_parser`` with the parent's class, so every verb gets this."""

    def error(self, message: str) -> NoReturn:
        self.exit(USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


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
            status = _load_specs(args.specs)
            if status:
                return status
        return int(args.run(args) or 0)
    except InputError as e:
        return fail(str(e), USAGE)
    except KafkaMetaError as e:
        return fail(str(e), PROBLEM)
    except BrokenPipeError:  # e.g. piped into head
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return fail("interrupted", INTERRUPTED)
    except OSError as e:  # a path given that cannot be opened (no permission, not a file)
        where = f"{e.filename}: " if e.filename else ""
        return fail(f"{where}{e.strerror or e}", USAGE)
    except UnicodeDecodeError as e:  # what an input holds: it was opened, and is not text
        return fail(f"the input is not UTF-8 text: byte {e.start} of the part read is {e.object[e.start]:#04x}",
                    PROBLEM)
    except Exception as e:  # noqa: BLE001 - a bug: still one line, the traceback only on request
        if os.environ.get("KAFKA_META_TRACEBACK"):
            traceback.print_exc()
        return fail(f"unexpected {type(e).__name__} (a bug in kafka_meta; KAFKA_META_TRACEBACK=1 shows where): "
                    f"{str(e).splitlines()[0] if str(e) else ''}", BUG)


def _load_specs(paths: list[str]) -> int:
    """Load the ``--specs`` files: a path that does not exist is a usage error (raised), one that holds no spec
    or something that is not text is an input that could not be read (1, said here); a spec that breaks the
    dialect's rules raises its SpecError (1)."""
    import kafka_meta

    require_paths(paths, "specs")
    for path in paths:
        try:
            spec_paths(path)
        except InputError as e:
            return fail(str(e), PROBLEM)
        kafka_meta.load_specs(path, replace=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
