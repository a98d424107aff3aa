"""Errors raised inside the wire layer, carrying the byte offset and the field path as they unwind.

Each struct or array that an error passes through prepends its segment, so the path ends up reading from
the root (``ownedPartitions[2].partitions``). The public API turns these into
:class:`~kafka_meta.errors.DecodeError` / :class:`~kafka_meta.errors.EncodeError`.
"""

from __future__ import annotations

from construct import ConstructError


class WireError(ConstructError):
    """Malformed bytes met by an interpreted parse."""

    def __init__(self, reason: str, offset: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset
        self.segments: list[str] = []

    def within(self, segment: str) -> WireError:
        self.segments.append(segment)
        return self

    @property
    def field_path(self) -> str:
        return join_path(self.segments)


class BuildError(ConstructError):
    """A value that cannot be written, met by an interpreted build."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.segments: list[str] = []

    def within(self, segment: str) -> BuildError:
        self.segments.append(segment)
        return self

    @property
    def field_path(self) -> str:
        return join_path(self.segments)


def join_path(segments_innermost_first: list[str]) -> str:
    out = ""
    for seg in reversed(segments_innermost_first):
        if seg.startswith("["):
            out += seg
        else:
            out = f"{out}.{seg}" if out else seg
    return out
