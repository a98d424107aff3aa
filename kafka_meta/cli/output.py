"""Printing helpers shared by the commands."""

from __future__ import annotations

import json
import sys
from typing import Any


def emit_json(obj: Any, indent: int | None = None) -> None:
    sys.stdout.write(json.dumps(obj, indent=indent, ensure_ascii=False) + "\n")


def fail(message: str, code: int = 2) -> int:
    print(f"kafka-meta: {message}", file=sys.stderr)
    return code


def validation_summary(error: Any) -> str:
    """A pydantic ValidationError in one line: the first problem with its field path (Kafka's JSON names,
    as the user wrote them), and how many more there are."""
    problems = error.errors(include_url=False)
    if not problems:
        return str(error).splitlines()[0]
    first = problems[0]
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in first.get("loc", ())).lstrip(".")
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{path or 'the message'}: {first.get('msg', 'invalid')}{more}"
