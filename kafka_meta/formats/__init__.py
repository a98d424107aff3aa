"""Format families and hand-declared formats, one module each, found when the registry first loads.

A module here may define:

* ``FAMILIES``: ``{directory: Family}``: how the specs in ``schemas/<directory>/`` are framed and which
  model bases add derived views to them;
* ``register(registry)``: adds formats that are not (only) a spec, e.g. hand-declared layouts.

So a new family or format is a new module (plus spec files), with no list to edit elsewhere.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType


def format_modules() -> list[ModuleType]:
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]
