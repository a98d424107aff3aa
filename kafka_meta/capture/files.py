"""The file face: read a capture file (plain or gzip-compressed) through ``CaptureDecoder``.

The only module of the package that touches files (``-`` reads a capture piped to stdin, as it arrives;
an open binary stream, such as ``io.BytesIO``, is read the same way and left open).
It reads in chunks, so memory stays at one chunk plus what the pipeline holds (an unfinished record,
unanswered requests, out-of-order segments).
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from kafka_meta.capture.containers import sniff
from kafka_meta.capture.decoder import CaptureDecoder, Summary
from kafka_meta.capture.events import CaptureError, Problem
from kafka_meta.protocol import Exchange

# 64 KiB: each chunk's packets and exchanges are alive together before the caller takes them, and a few
# hundred at a time stay in the processor's caches (1 MiB chunks read 10% slower)
CHUNK = 1 << 16


def capture_kind(path: str | os.PathLike) -> str | None:
    """'pcap', 'pcapng', 'gzip' (of either) or None, from the file's magic number (not its name)."""
    try:
        with open(path, "rb") as f:
            return sniff(f.read(4))
    except OSError:
        return None


def iter_capture(path: str | os.PathLike | BinaryIO, ports: set[int] | frozenset[int] | None = None, *,
                 apis: set[int] | frozenset[int] | None = None, summary: Summary | None = None,
                 progress: Callable[[int, int], None] | None = None, shared_bodies: bool = False
                 ) -> Iterator[Exchange | Problem]:
    """Exchanges and problems of one capture file, in the order the capture completes them.

    ``path`` is a file's path, ``-`` for stdin, or an open binary stream (read to its end, left open).

    Raises ``CaptureError`` (before yielding anything) when the file is not a pcap or pcapng capture or
    cannot be opened; damage inside a capture is yielded as ``Problem``s. ``apis`` (api keys) decodes only
    those apis (see ``CaptureDecoder``). ``summary``, when given, is filled in as the file is read;
    ``progress(bytes read, file size)`` is called after each chunk (the size is 0 when unknown: stdin).
    With ``shared_bodies`` the exchanges are read-only: bodies with the same bytes may be one tree, shared
    (much cheaper than a copy each; for callers that serialize or count exchanges, never change them).
    """
    owned = False  # whether the stream is ours to close
    if hasattr(path, "read"):  # an open binary stream: an upload, an object store's body, bytes in memory
        raw, size, name = path, 0, str(getattr(path, "name", "<stream>"))
    elif str(path) == "-":  # a capture piped in (``tcpdump -U -w - ... | kafka-meta capture -``), read as it comes
        raw, size, name = sys.stdin.buffer, 0, "<stdin>"
    else:
        name = str(path)
        try:
            size = os.path.getsize(path)
            raw = open(path, "rb")  # noqa: SIM115 - closed in the finally below, the generator may stop early
            owned = True
        except OSError as exc:
            raise CaptureError(f"{name}: cannot open: {exc.strerror or exc}") from None
    try:
        # a stream opened in text mode: its characters are not the file's bytes (reading may already fail)
        head = None if isinstance(raw, io.TextIOBase) else raw.read(4)
        if not isinstance(head, bytes):
            raise CaptureError(f"{name}: a text stream; open the capture in binary mode ('rb')")
        kind = sniff(head)
        if kind is None:
            raise CaptureError(f"{name}: not a pcap or pcapng capture (no known magic number)")
        source = _Prefixed(head, raw)
        stream: Any = gzip.GzipFile(fileobj=source, mode="rb") if kind == "gzip" else source
        decoder = CaptureDecoder(name, ports, apis, shared_bodies=shared_bodies)
        if summary is not None:
            decoder.summary = summary
        first = True
        while True:
            try:
                chunk = stream.read1(CHUNK)
            except (EOFError, OSError, zlib.error) as exc:
                yield Problem("container", f"gzip stream damaged or cut short after {decoder.summary.bytes} "
                              f"uncompressed bytes: {exc}")
                chunk = b""
            if not chunk:
                break
            if first and kind == "gzip" and sniff(chunk[:4]) not in ("pcap", "pcapng"):
                raise CaptureError(f"{name}: gzip-compressed, but not a pcap or pcapng capture inside")
            first = False
            try:
                yield from decoder.feed(chunk)
            except CaptureError as exc:
                raise CaptureError(f"{name}: {exc}") from None
            if progress is not None:
                progress(source.consumed, size)
        try:
            yield from decoder.close()
        except CaptureError as exc:
            raise CaptureError(f"{name}: {exc}") from None
    finally:
        if owned:
            raw.close()


class _Prefixed:
    """A binary stream with its first bytes (read to recognise the format) put back in front, so pipes,
    which cannot seek back, read like files."""

    def __init__(self, head: bytes, raw: BinaryIO) -> None:
        self.head = head
        self.raw = raw
        self.consumed = 0

    def read(self, n: int = -1) -> bytes:
        if self.head:
            cut = len(self.head) if n < 0 else n
            out, self.head = self.head[:cut], self.head[cut:]
        else:
            out = self.raw.read1(n if n > 0 else CHUNK) if hasattr(self.raw, "read1") else self.raw.read(n)
        self.consumed += len(out)
        return out

    read1 = read


def read_capture(path: str | os.PathLike | Path | BinaryIO, ports: set[int] | frozenset[int] | None = None
                 ) -> Iterator[Exchange]:
    """Every Kafka exchange in a pcap/pcapng file (plain or gzip), as the protocol layer's ``Exchange``
    (``.to_dict()`` gives the camelCase shape, :class:`~kafka_meta.protocol.shapes.ExchangeRow`). Kafka is
    found on any port, or only on ``ports``. Damage is read around (see ``iter_capture`` for the problems
    themselves)."""
    for item in iter_capture(path, ports):
        if not isinstance(item, Problem):
            yield item
