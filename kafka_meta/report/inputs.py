"""What a report reads: packet captures, JSON Lines of exchanges or of ``__consumer_offsets`` records, and
broker log directories; each handed to the reader that knows it, the rows sorted into the two kinds the
timeline takes.

Nothing unreadable stops the report: a line that is not JSON, a row of neither kind or a file no reader
takes becomes an error naming the file and line, and the report is made from the rest.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka_meta.errors import KafkaMetaError

CAPTURE_SUFFIXES = (".pcap", ".pcapng", ".cap")


@dataclass
class Inputs:
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    offsets: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _capture(path: Path, inputs: Inputs) -> None:
    from kafka_meta.capture import Problem, iter_capture

    try:
        for item in iter_capture(str(path)):
            if isinstance(item, Problem):  # damage the reader read around: said, with its place
                inputs.errors.append(f"{path}: {item}")
            else:
                inputs.exchanges.append(item.to_dict())
    except (KafkaMetaError, OSError, ValueError) as e:
        inputs.errors.append(f"{path}: {e}")


def _log_dir(path: Path, inputs: Inputs) -> None:
    from kafka_meta.log import read_log

    try:
        for row in read_log(str(path)):
            row = row if isinstance(row, dict) else dict(row)
            if row.get("_error"):
                inputs.errors.append(f"{path}: {row['_error']}")
            else:  # transaction markers too: they decide whether transactional offset commits count
                where = f"{path}/{row.get('topic')}-{row.get('partition')}" if row.get("topic") else str(path)
                inputs.offsets.append(row | {"_file": where})
    except (KafkaMetaError, OSError, ValueError) as e:
        inputs.errors.append(f"{path}: {e}")


def _json_lines(path: Path, inputs: Inputs) -> None:
    try:
        lines: Iterator[str] = iter(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError as e:
        inputs.errors.append(f"{path}: {e}")
        return
    skipped = 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            inputs.errors.append(f"{path} line {n}: not JSON ({e.msg})")
            continue
        if not isinstance(row, dict):
            inputs.errors.append(f"{path} line {n}: not a JSON object")
        elif "apiKey" in row:
            inputs.exchanges.append(row)
        elif "key" in row:
            row["_file"], row["_line"] = str(path), n
            inputs.offsets.append(row)
        else:
            skipped += 1  # captured payloads (type + bytes) and other rows carry no timeline
    if skipped and not inputs.exchanges and not inputs.offsets:
        inputs.errors.append(f"{path}: {skipped} line(s) are neither exchanges nor __consumer_offsets records")


def _is_capture(path: Path) -> bool:
    """A capture by its magic number, whatever its name (``.gz``, no suffix...)."""
    from kafka_meta.capture import capture_kind

    try:
        return capture_kind(path) is not None
    except OSError:
        return False


def read_inputs(paths: list[str]) -> Inputs:
    inputs = Inputs()
    for name in paths:
        path = Path(name)
        if not path.exists():
            inputs.errors.append(f"{path}: no such file or directory")
        elif path.is_dir():
            _log_dir(path, inputs)
        elif path.suffix.lower() in CAPTURE_SUFFIXES or _is_capture(path):
            _capture(path, inputs)
        else:
            _json_lines(path, inputs)
    return inputs
