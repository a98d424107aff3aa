"""Printing helpers shared by the commands."""

from __future__ import annotations

import json
import sys
from typing import Any

from kafka_meta.cli.status import USAGE

# json.dumps(obj, ensure_ascii=False), built once; what is printed is built from decoded bytes, never cyclic
_ENCODE = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode


def emit_json(obj: Any, indent: int | None = None) -> None:
    text = _ENCODE(obj) if indent is None else json.dumps(obj, indent=indent, ensure_ascii=False)
    sys.stdout.write(text + "\n")


def emit_json_document(doc: Any) -> None:
    """A large document, indented, to standard output as it is encoded, a megabyte at a time: the text of a
    report of thousands of groups is never held whole, nor written in a million small pieces."""
    pieces: list[str] = []
    size = 0
    for piece in json.JSONEncoder(indent=2, default=str).iterencode(doc):
        pieces.append(piece)
        size += len(piece)
        if size >= 1 << 20:
            sys.stdout.write("".join(pieces))
            pieces, size = [], 0
    sys.stdout.write("".join(pieces) + "\n")


def emit_json_text(text: str) -> None:
    """A line already written as :func:`emit_json` writes it (``json.dumps``' text, without indentation)."""
    sys.stdout.write(text + "\n")


def json_text(obj: Any) -> str:
    """What :func:`emit_json` writes of ``obj``, without the newline."""
    return _ENCODE(obj)


def fail(message: str, code: int = USAGE) -> int:
    """Say what went wrong in one line and give the exit status (kafka_meta.cli.status): by default a usage
    error, the commonest kind a verb finds itself; a verb passes PROBLEM for an input it could not read."""
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
