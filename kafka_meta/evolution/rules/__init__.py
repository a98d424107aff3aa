"""The rules, one module per family of changes. Each module defines ``check(comparison)`` returning its
findings; every module here is found and run, so a new rule is a new module."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from types import ModuleType

from kafka_meta.evolution.context import Comparison
from kafka_meta.evolution.findings import EvolutionFinding


def rule_modules() -> list[ModuleType]:
    return [importlib.import_module(f"{__name__}.{info.name}")
            for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name)]


def run_rules(comparison: Comparison) -> list[EvolutionFinding]:
    out: list[EvolutionFinding] = []
    for module in rule_modules():
        check: Callable[[Comparison], list[EvolutionFinding]] = module.check
        out += check(comparison)
    return out
