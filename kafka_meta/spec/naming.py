"""Names: Kafka spec names (``GenerationId``) to Python attributes and to Kafka's JSON names.

Kafka's generated JSON converters write a field under its name with the first letter lower-cased
(``generationId``); that is the alias our models use, so JSON we print matches Kafka's tools.
"""

from __future__ import annotations

import keyword
import re

_BOUNDARY_1 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_BOUNDARY_2 = re.compile(r"([a-z0-9])([A-Z])")

# Attributes every message model already has; a spec field with one of these names gets a trailing "_".
RESERVED = frozenset({"version", "model_config", "model_fields", "unknown_trailing"})


def snake_case(name: str) -> str:
    s = _BOUNDARY_1.sub(r"\1_\2", name)
    s = _BOUNDARY_2.sub(r"\1_\2", s)
    s = s.replace("-", "_").lower()
    if keyword.iskeyword(s) or s.startswith("model_"):
        s += "_"
    return s


def json_name(name: str) -> str:
    return name[:1].lower() + name[1:] if name else name
