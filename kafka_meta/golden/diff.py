"""Field-level differences between two JSON documents, and a readable account of two byte strings.

A golden failure names the field (``data.ownedPartitions[0].partitions[2]``) and both values, so the
reader sees at once what changed instead of two hex dumps.
"""

from __future__ import annotations

from typing import Any

_MISSING = object()


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else f'"{value}"'
    return text if len(text) <= 80 else text[:77] + "..."


def json_diff(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Every place where ``actual`` differs from ``expected``, as ``path: expected X, got Y`` lines."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out: list[str] = []
        for key in expected:
            sub = f"{path}.{key}" if path else key
            if key not in actual:
                out.append(f"{sub}: expected {_show(expected[key])}, missing")
            else:
                out += json_diff(expected[key], actual[key], sub)
        for key in actual:
            if key not in expected:
                sub = f"{path}.{key}" if path else key
                out.append(f"{sub}: not expected, got {_show(actual[key])}")
        return out
    if isinstance(expected, list) and isinstance(actual, list):
        out = []
        for i in range(max(len(expected), len(actual))):
            sub = f"{path}[{i}]"
            if i >= len(actual):
                out.append(f"{sub}: expected {_show(expected[i])}, missing (got {len(actual)} elements)")
            elif i >= len(expected):
                out.append(f"{sub}: not expected (expected {len(expected)} elements), got {_show(actual[i])}")
            else:
                out += json_diff(expected[i], actual[i], sub)
        return out
    if type(expected) is not type(actual) or expected != actual:
        return [f"{path or '(document)'}: expected {_show(expected)}, got {_show(actual)}"]
    return []


def bytes_diff(expected: bytes, actual: bytes) -> str:
    """Where two byte strings part: the first differing offset, the bytes around it, the lengths."""
    at = next((i for i, (a, b) in enumerate(zip(expected, actual, strict=False)) if a != b),
              min(len(expected), len(actual)))
    lo = max(0, at - 4)
    head = f"first difference at byte {at}" if at < min(len(expected), len(actual)) else (
        f"one is a prefix of the other, up to byte {at}")
    return (f"{head}; lengths {len(expected)} (expected) vs {len(actual)} (got); "
            f"expected ...{expected[lo:at + 8].hex(' ')}..., got ...{actual[lo:at + 8].hex(' ')}... (from byte {lo})")
