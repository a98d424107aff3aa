"""Sub-commands of ``kafka-meta``: every module here with an ``add_parsers(subparsers)`` function is one
group of commands, found at start-up, so a new command is a new module and nothing else."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def command_modules() -> list[ModuleType]:
    modules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "add_parsers"):
            modules.append(module)
    return modules
