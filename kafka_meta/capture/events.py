"""The values the capture pipeline passes between its stages, and the problems it reports.

Every stage is sans-IO: it takes bytes (or the values of the stage below) and returns these, so the file
face, the CLI, Spark and the tests drive the same code. Damage never raises past a stage: it becomes a
``Problem`` naming where it was found, and the stage reads on around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_meta.errors import KafkaMetaError


class CaptureError(KafkaMetaError, ValueError):
    """A file that cannot be read as a packet capture at all (not pcap/pcapng, empty, unreadable)."""


@dataclass(slots=True)
class Packet:
    """One captured packet: its 1-based number in the file (as Wireshark counts), time, link type and the
    captured bytes; ``wire_length`` is the packet's length on the wire (more than ``len(data)`` when the
    capture's snap length cut it)."""

    number: int
    ts: float
    linktype: int
    data: bytes
    wire_length: int


@dataclass(slots=True)
class Problem:
    """Damage found and read around: ``stage`` (container, link, tcp, kafka), what, and where (the file's
    byte offset or packet number; for streams the connection and the offset within its byte stream)."""

    stage: str
    message: str
    frame: int | None = None
    offset: int | None = None
    stream: int | None = None

    def to_dict(self) -> dict:
        return {"stage": self.stage, "message": self.message, "frame": self.frame, "offset": self.offset,
                "stream": self.stream}

    def __str__(self) -> str:
        places = (("packet", self.frame), ("stream", self.stream), ("byte", self.offset))
        where = [f"{name} {value}" for name, value in places if value is not None]
        return f"{self.stage}: {', '.join(where)}: {self.message}" if where else f"{self.stage}: {self.message}"
