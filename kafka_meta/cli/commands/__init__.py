"""Sub-commands of ``kafka-meta``: every module here with an ``add_parsers(subparsers)`` function is one
group of commands, found at start-up, so a new command is a new module and nothing else.

A run needs only the module of its own command, and the modules differ widely in what they import (Spark's
job, the analysis, the golden files, the log reader), so ``command_modules(name)`` offers the module named
after a command alone; the caller falls back to every module when that one does not register the command
(``decode`` lives in ``codec``)."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def command_modules(name: str | None = None) -> list[ModuleType]:
    """Every command module, in name order; with ``name``, only the module of that name (none if there is
    no such module or it defines no commands)."""
    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if name is not None and info.name != name:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "add_parsers"):
            modules.append(module)
    return modules
