"""The one internal fault of the wire layer: a reason, the byte offset where it was met, and the field path.

Every reader and writer below the public API raises :class:`Fault`: the interpreted constructs (with the
offset, and each struct or array the fault passes through prepends its segment, so the path ends up
reading from the root: ``ownedPartitions[2].partitions``), the generated fast path (a bare reason: the
caller re-reads with the interpreted constructs to locate it), and the helpers both share (varints, Java's
modified UTF-8). The codec turns a fault into the public :class:`~kafka_meta.errors.DecodeError` /
:class:`~kafka_meta.errors.EncodeError`.

The older names stay as aliases, so code written against them keeps working.
"""

from __future__ import annotations

from construct import ConstructError


class Fault(ConstructError):
    """Bytes that cannot be read, or a value that cannot be written."""

    def __init__(self, reason: str, offset: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset
        self.segments: list[str] = []

    def within(self, segment: str) -> Fault:
        self.segments.append(segment)
        return self

    @property
    def field_path(self) -> str:
        return join_path(self.segments)


# what interpreted parsing, interpreted building, the generated decoders and encoders called it
WireError = BuildError = Malformed = Unwritable = Fault


def join_path(segments_innermost_first: list[str]) -> str:
    out = ""
    for seg in reversed(segments_innermost_first):
        if seg.startswith("["):
            out += seg
        else:
            out = f"{out}.{seg}" if out else seg
    return out
