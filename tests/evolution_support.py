"""Crafted spec pairs for the evolution rules: a message spec from a few fields, and the findings of a pair."""

from __future__ import annotations

import json
from typing import Any

from kafka_meta.evolution import compare_specs
from kafka_meta.evolution.findings import EvolutionFinding
from kafka_meta.spec import load_spec_text


def spec(fields: list[dict[str, Any]], valid: str = "0-2", flexible: str = "none", name: str = "Widget",
         mtype: str = "data", **extra: Any):
    doc = {"type": mtype, "name": name, "validVersions": valid, "flexibleVersions": flexible, "fields": fields,
           **extra}
    return load_spec_text(json.dumps(doc))


def field(name: str, ftype: str = "int32", versions: str = "0+", **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": ftype, "versions": versions, **extra}


def findings(old, new, tagged_only=()) -> list[EvolutionFinding]:
    return sorted(set(compare_specs(old, new, tagged_only)), key=EvolutionFinding.sort_key)


def by_rule(found: list[EvolutionFinding], rule: str) -> list[EvolutionFinding]:
    return [f for f in found if f.rule == rule]


def rules(found: list[EvolutionFinding]) -> list[str]:
    return sorted({f.rule for f in found})


def one(found: list[EvolutionFinding], rule: str) -> EvolutionFinding:
    hits = by_rule(found, rule)
    assert len(hits) == 1, (rule, found)
    return hits[0]
