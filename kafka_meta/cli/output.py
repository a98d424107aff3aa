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
