"""The exit statuses every ``kafka-meta`` verb ends with, and the one check that decides between the first
two kinds of failure before anything is read.

The policy (README.md, "Exit status", and :mod:`kafka_meta.cli.main`): 0 when everything given was read (and
a check passed), 1 when some input or payload could not be read or a check failed, 2 when the command line is
wrong. A path that does not exist is the command line's fault, found before any input is opened, so a typo is
never taken for an input that could not be read, and a long read is not wasted on a run that ends in a usage
error anyway.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kafka_meta.errors import InputError

OK = 0
PROBLEM = 1  # some input or payload could not be read (the rest was read and reported), or a check failed
USAGE = 2  # the command line is wrong: an option, a value, a path that does not exist
BUG = 70  # EX_SOFTWARE: something kafka_meta did not expect
INTERRUPTED = 130  # Ctrl-C, as a shell reports a command ended by SIGINT

STDIN = "-"


def require_paths(paths: Iterable[str], what: str = "") -> None:
    """An InputError (a usage error) naming every path that does not exist; ``-`` (standard input) always
    does. What a path holds is not looked at here: an empty or unreadable input is the input's problem."""
    absent = [p for p in paths if p != STDIN and not Path(p).exists()]
    if absent:
        named = f"{what} " if what else ""
        raise InputError(f"{named}{', '.join(absent)}: no such file or directory")


def require_files(paths: Iterable[str], what: str = "") -> None:
    """As :func:`require_paths`, and a directory given where only files are read is a usage error too."""
    paths = list(paths)
    require_paths(paths, what)
    directories = [p for p in paths if p != STDIN and Path(p).is_dir()]
    if directories:
        named = f"{what} " if what else ""
        raise InputError(f"{named}{', '.join(directories)}: is a directory, not a file")
