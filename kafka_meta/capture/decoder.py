"""The whole capture pipeline as one sans-IO object: file bytes in, exchanges and problems out.

container (pcap/pcapng records) -> links (TCP segments) -> connections (reassembly, Kafka frames) ->
the protocol layer's ``Correlator`` (requests paired with responses, bodies and member metadata decoded).
The file face, the CLI and the Spark source all drive this class, so they read a capture identically.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_meta.capture.connections import KafkaConnections, KafkaFrame
from kafka_meta.capture.containers import ContainerReader
from kafka_meta.capture.events import Packet, Problem
from kafka_meta.protocol import Correlator, Exchange

JOIN_GROUP = 11


@dataclass
class Summary:
    """What one capture held: counts for the per-file summary line."""

    bytes: int = 0
    packets: int = 0
    connections: int = 0
    requests: int = 0
    responses: int = 0
    exchanges: int = 0
    problems: int = 0

    def __str__(self) -> str:
        return (f"{self.packets} packets, {self.connections} Kafka connections, {self.requests} requests, "
                f"{self.responses} responses, {self.exchanges} exchanges, {self.problems} problems")


class CaptureDecoder:
    """``feed`` slices of a capture file (uncompressed) in order, then ``close``; each returns the exchanges
    completed and the problems found so far. ``source_file`` names the file in each exchange's ``source``;
    ``ports`` limits Kafka to connections with a side on one of them; ``apis`` (api keys) limits the
    exchanges decoded to those apis: the others are framed and counted but never decoded, which is most of
    the work (JoinGroup is always decoded: SyncGroup assignments are read by the protocol it chose).
    ``shared_bodies``: see the protocol layer's ``Correlator`` (for callers that never change an exchange)."""

    def __init__(self, source_file: str = "", ports: set[int] | frozenset[int] | None = None,
                 apis: set[int] | frozenset[int] | None = None, *, shared_bodies: bool = False) -> None:
        self.source_file = source_file
        self._apis = None if apis is None else frozenset(apis) | {JOIN_GROUP}
        self._skipped: set[tuple[object, int]] = set()  # (connection, correlation id) of requests not decoded
        self._container = ContainerReader()
        self._connections = KafkaConnections(ports)
        self._correlator = Correlator(shared_bodies=shared_bodies)
        self.summary = Summary()

    def feed(self, data: bytes) -> list[Exchange | Problem]:
        self.summary.bytes += len(data)
        return self._packets(self._container.feed(data))

    def close(self) -> list[Exchange | Problem]:
        out = self._packets(self._container.close())
        out.extend(self._frames(self._connections.finish()))
        out.extend(self._count(self._correlator.finish()))
        self.summary.packets = self._container.packets
        self.summary.connections = self._connections.kafka_connections
        return out

    def _packets(self, items: list[Packet | Problem]) -> list[Exchange | Problem]:
        out: list = []
        connections = self._connections
        for item in items:
            if isinstance(item, Packet):
                found = connections.packet(item)
                if found:
                    out.extend(self._frames(found))
            else:
                out.append(self._problem(item))
        return out

    def _frames(self, items: list[KafkaFrame | Problem]) -> list[Exchange | Problem]:
        out: list = []
        correlator, source, summary, apis = self._correlator, self.source_file, self.summary, self._apis
        for item in items:
            if type(item) is KafkaFrame:
                conn, is_request, frame = item
                if apis is not None and self._skip(item):
                    continue
                where = {"file": source, "frame": frame.packet}
                if is_request:
                    summary.requests += 1
                    done = correlator.on_request(conn, frame.ts, frame.payload, where)
                else:
                    summary.responses += 1
                    done = correlator.on_response(conn, frame.ts, frame.payload, where)
                if done:
                    summary.exchanges += len(done)
                    out += done
            else:
                out.append(self._problem(item))
        return out

    def _skip(self, item: KafkaFrame) -> bool:
        """Whether a frame belongs to an api not asked for (its response is recognised by correlation id)."""
        payload = item.frame.payload
        if item.is_request:
            if len(payload) < 8 or int.from_bytes(payload[:2], "big", signed=True) in self._apis:  # type: ignore[operator]
                return False
            self.summary.requests += 1
            self._skipped.add((item.conn, int.from_bytes(payload[4:8], "big", signed=True)))
            return True
        if len(payload) < 4:
            return False
        skipped = (item.conn, int.from_bytes(payload[:4], "big", signed=True))
        if skipped in self._skipped:
            self.summary.responses += 1
            self._skipped.discard(skipped)
            return True
        return False

    def _problem(self, problem: Problem) -> Problem:
        """Every problem a stage below reports passes here on its way out, so the summary counts them all."""
        self.summary.problems += 1
        return problem

    def _count(self, exchanges: list[Exchange]) -> list[Exchange]:
        self.summary.exchanges += len(exchanges)
        return exchanges
