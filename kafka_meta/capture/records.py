"""The part every capture container shares: a sans-IO record reader that buffers what it is fed, lets
its format parse whole records from the front, and reports what is left when the input ends.

Memory is the unconsumed tail of the input plus one record: no length read from the file is allocated
before the bytes it claims have arrived.
"""

from __future__ import annotations

from kafka_meta.capture.events import Packet, Problem


class RecordReader:
    """Subclasses parse records from ``self._buf`` (whose first byte is at file offset ``self._base``),
    numbering packets from 1 in ``self._number`` and setting ``self._resync`` after damage."""

    def __init__(self, base: int = 0) -> None:
        self._buf = bytearray()
        self._base = base
        self._closed = False
        self._number = 0
        self._resync = False  # looking for the next plausible record after damage

    @property
    def packets(self) -> int:
        return self._number

    def feed(self, data: bytes) -> list[Packet | Problem]:
        self._buf += data
        out: list[Packet | Problem] = []
        consumed = self._parse(out)
        if consumed:
            del self._buf[:consumed]
            self._base += consumed
        return out

    def close(self) -> list[Packet | Problem]:
        self._closed = True
        out = self.feed(b"")
        while self._buf and not self._resync:
            # the input ends inside the last record: the file was cut short there, unless sound records
            # follow its header, in which case its length is what is damaged
            found, _keep = self._resync_at(1, len(self._buf))
            if found is None:
                break
            out.append(Problem("container", f"a record claims more bytes than the file has left, but sound "
                               f"records follow {found} bytes after it: its length is damaged", frame=self._number + 1,
                               offset=self._base))
            del self._buf[:found]
            self._base += found
            out.extend(self.feed(b""))
        if self._buf:
            out.extend(self._truncated() if not self._resync else [])
            if self._resync:
                out.append(Problem("container", f"{len(self._buf)} bytes at the end of the file are not a whole "
                                   "record", offset=self._base))
            self._base += len(self._buf)
            self._buf.clear()
        return out

    def _parse(self, out: list) -> int:
        """Append the packets and problems of the whole records at the front; return the bytes consumed."""
        raise NotImplementedError

    def _resync_at(self, pos: int, end: int) -> tuple[int | None, int]:
        """(where the next sound record from ``pos`` starts, or None and the first offset worth keeping)."""
        raise NotImplementedError

    def _resume(self, pos: int, end: int) -> int:
        """After damage, where parsing goes on: the next sound record (ending the search), or, while none is
        found in the bytes at hand, the first offset worth keeping (``self._resync`` stays set). Formats call
        it only while ``self._resync`` is set, so sound input pays nothing for it."""
        found, keep = self._resync_at(pos, end)
        if found is None:
            return keep
        self._resync = False
        return found

    def _truncated(self) -> list[Packet | Problem]:
        """What is left when the input ends inside a record: the packet's bytes that are there, and why."""
        raise NotImplementedError
