"""Packets in, Kafka request and response frames out, per TCP connection (sans-IO).

A connection is told apart from other traffic and its client side found, in this order: the SYN (its
sender is the client), the ports the user named (the side on such a port is the broker; connections on
other ports are ignored), or, failing both, the bytes: the direction in which a plausible request header
appears is the client's. Bytes are held until that is decided (at most ``MAX_UNDECIDED`` per connection;
a connection with no plausible request by then is not Kafka and is dropped).

Requests are framed with the protocol layer's request-header plausibility check; responses, when out of
sync, by a correlation id still waiting for its response on that connection.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from socket import AF_INET, inet_ntop
from typing import NamedTuple

from kafka_meta.capture.events import Packet, Problem
from kafka_meta.capture.framing import HEAD, MAX_FRAME, Frame, Framer
from kafka_meta.capture.links import ACK, FIN, RST, SYN, NotTcp, tcp_segment
from kafka_meta.capture.tcp import Data, Gap, HalfStream
from kafka_meta.protocol import Connection, looks_like_request
from kafka_meta.protocol.headers import MAX_CLIENT_ID

MAX_UNDECIDED = 256 << 10
PRODUCE_HEAD = 64  # bytes of a Produce body the plausibility check may read (transactional id, acks)


class KafkaFrame(NamedTuple):
    """A request (``is_request``) or response frame of connection ``conn``."""

    conn: Connection  # client and broker as ip:port, and the stream number (Wireshark's tcp.stream)
    is_request: bool
    frame: Frame


_new_tuple = tuple.__new__  # builds a KafkaFrame per frame without the NamedTuple's Python-level __new__


def address(raw: bytes, port: int) -> str:
    """``ip:port``, ``[ip]:port`` for IPv6 (in ipaddress's text: IPv4-mapped addresses as ``::ffff:7f00:1``)."""
    if len(raw) == 4:
        return f"{inet_ntop(AF_INET, raw)}:{port}"  # the same dotted quad as ipaddress, ten times faster
    return f"[{ipaddress.ip_address(raw)}]:{port}"


@dataclass(eq=False)
class _Connection:
    stream: int
    first: tuple[bytes, int]  # the side that sent the connection's first packet
    second: tuple[bytes, int]
    halves: tuple[HalfStream, HalfStream] = field(default_factory=lambda: (HalfStream(), HalfStream()))
    client: int | None = None  # 0: the first side is the client, 1: the second
    ignored: bool = False
    framers: list[Framer] | None = None
    held: tuple[list, list] = field(default_factory=lambda: ([], []))
    held_bytes: int = 0
    outstanding: set[int] = field(default_factory=set)
    ended: bool = False  # a FIN or RST was seen
    endpoints: Connection | None = None


def _request_head(head: bytes, size: int) -> bool | None:
    """Whether a frame of ``size`` bytes starting with ``head`` is a plausible request (the protocol layer's
    check: header fields, the client id's text, a Produce body's first fields). Header fields that rule
    the frame out do so from its first ten bytes, without waiting for the rest to arrive."""
    if len(head) < min(size, 10):
        return None
    if size <= len(head) or size < 10:
        return looks_like_request(head)
    client_id = min(max(int.from_bytes(head[8:10], "big", signed=True), 0), MAX_CLIENT_ID + 1)
    if len(head) >= min(size, 10 + client_id + PRODUCE_HEAD, HEAD):
        return looks_like_request(head)
    # the client id's bytes that are here, the rest stood in for by text
    if head[:2] != b"\0\0" and not looks_like_request(head[:10 + client_id].ljust(10 + client_id, b"a")):
        return False
    return None


class KafkaConnections:
    """The connection table. ``packet`` returns the frames and problems a packet releases; ``finish`` the
    rest at the end of the capture."""

    def __init__(self, ports: set[int] | frozenset[int] | None = None) -> None:
        self.ports = frozenset(ports) if ports else None
        self._table: dict[tuple[bytes, int, bytes, int], tuple[_Connection, int]] = {}
        self._streams = 0
        self._unread_links: set[int] = set()
        self.packets = 0
        self.kafka_connections = 0
        self._last_packet = 0

    # --- packets -------------------------------------------------------------------------------------

    def packet(self, pkt: Packet) -> list[KafkaFrame | Problem]:
        self.packets += 1
        self._last_packet = pkt.number
        try:
            seg = tcp_segment(pkt.linktype, pkt.data, pkt.wire_length)
        except NotTcp as exc:
            if str(exc).startswith("link type"):
                if pkt.linktype in self._unread_links:
                    return []
                self._unread_links.add(pkt.linktype)
            return [Problem("link", str(exc), frame=pkt.number)]
        if seg is None:
            return []
        src, sport, dst, dport, seq, ack, flags, payload, missing = seg
        found = self._table.get((src, sport, dst, dport))
        if found is not None and not flags & (SYN | FIN | RST) and not missing:
            conn, side = found
            if not payload:
                if not conn.halves[1 - side].waiting:
                    return []  # a bare acknowledgement: nothing to deliver, no hole it could close
            elif conn.framers is not None and not conn.halves[1 - side].waiting \
                    and conn.halves[side].in_order(seq, len(payload)):
                # the common case: the next bytes of an established Kafka connection, straight to its framer
                found_frames = conn.framers[side].data(payload, pkt.ts, pkt.number)
                return self._wrap(conn, side, found_frames) if found_frames else []
        if found is None or (flags & (SYN | ACK) == SYN and found[0].ended):
            out: list = self._close(found[0]) if found else []
            conn = self._open(src, sport, dst, dport)
            side = 0
        else:
            out = []
            conn, side = found
        if conn.ignored:
            return out
        if flags & (FIN | RST):
            conn.ended = True
        if conn.client is None:
            if flags & SYN:
                conn.client = side if not flags & ACK else 1 - side
            elif self.ports is not None:
                conn.client = side if dport in self.ports else 1 - side
        if flags & ACK and conn.halves[1 - side].waiting:
            acked = conn.halves[1 - side].acked(ack)
            if acked:
                out.extend(self._deliver(conn, 1 - side, acked))
        events = conn.halves[side].segment(seq, flags, payload, missing, pkt.ts, pkt.number)
        if events:
            out.extend(self._deliver(conn, side, events))
        if flags & RST or (flags & FIN and conn.halves[0].complete and conn.halves[1].complete):
            out.extend(self._close(conn))  # done: flush it and let go of its buffers
        return out

    def finish(self) -> list[KafkaFrame | Problem]:
        out: list = []
        for conn, side in list(self._table.values()):
            if side == 0:
                out.extend(self._close(conn))
        self._table.clear()
        return out

    # --- connections ---------------------------------------------------------------------------------

    def _open(self, src: bytes, sport: int, dst: bytes, dport: int) -> _Connection:
        conn = _Connection(self._streams, (src, sport), (dst, dport))
        self._streams += 1
        if self.ports is not None and sport not in self.ports and dport not in self.ports:
            conn.ignored = True
        self._table[(src, sport, dst, dport)] = (conn, 0)
        self._table[(dst, dport, src, sport)] = (conn, 1)
        return conn

    def _close(self, conn: _Connection) -> list[KafkaFrame | Problem]:
        if conn.ignored:
            return []
        out: list = []
        for side in (0, 1):
            events = conn.halves[side].finish(self._last_packet)
            if events:
                out.extend(self._deliver(conn, side, events))
        if conn.framers is None and conn.held_bytes:
            self._decide(conn, final=True)
            if conn.framers is not None:
                for side in (0, 1):
                    out.extend(self._feed(conn, side, conn.held[side]))
        if conn.framers is not None:
            for side in (0, 1):
                out.extend(self._wrap(conn, side, conn.framers[side].finish()))
        conn.ignored = True
        conn.framers = None
        conn.outstanding.clear()
        return out

    def _deliver(self, conn: _Connection, side: int, events: list) -> list[KafkaFrame | Problem]:
        if conn.framers is None:
            conn.held[side].extend(events)
            conn.held_bytes += sum(len(e.payload) for e in events if isinstance(e, Data))
            self._decide(conn, final=False)
            if conn.framers is None:
                return []
            out: list = []
            for s in (0, 1):
                out.extend(self._feed(conn, s, conn.held[s]))
                conn.held[s].clear()
            return out
        return self._feed(conn, side, events)

    def _decide(self, conn: _Connection, final: bool) -> None:
        """Give the connection its framers once its client side is known and, unless the user named Kafka's
        ports, its client has sent a plausible request (a SYN says who the client is, not that it speaks
        Kafka: HTTP, TLS and the rest are left alone); give up on it past the limit."""
        limit = final or conn.held_bytes > MAX_UNDECIDED
        if conn.client is None:
            conn.client = _client_side(conn, limit)
        elif self.ports is None and not _finds_request(conn.held[conn.client]):
            if limit:
                conn.client = None  # not Kafka
            else:
                return
        if conn.client is None:
            if limit:
                conn.ignored = True
                conn.held[0].clear()
                conn.held[1].clear()
            return
        client = conn.client
        sides = (conn.first, conn.second)
        conn.endpoints = Connection(address(*sides[client]), address(*sides[1 - client]), conn.stream)
        outstanding = conn.outstanding

        def response_head(head: bytes, size: int) -> bool | None:
            if len(head) < 4:
                return None
            return int.from_bytes(head[:4], "big", signed=True) in outstanding

        framers = [Framer(_request_head, synced=conn.halves[client].started_at_syn, stream=conn.stream,
                          kind="request"),
                   Framer(response_head, synced=conn.halves[1 - client].started_at_syn, stream=conn.stream,
                          kind="response")]
        conn.framers = framers if client == 0 else framers[::-1]
        self.kafka_connections += 1

    def _feed(self, conn: _Connection, side: int, events: list) -> list[KafkaFrame | Problem]:
        if conn.ignored or conn.framers is None:
            return []
        framer = conn.framers[side]
        out: list = []
        for event in events:
            out.extend(self._wrap(conn, side, framer.feed(event)))
        return out

    def _wrap(self, conn: _Connection, side: int, items: list) -> list[KafkaFrame | Problem]:
        is_request = side == conn.client
        out: list = []
        for item in items:
            if isinstance(item, Frame):
                head = item.payload
                if is_request:
                    if len(head) >= 8:
                        conn.outstanding.add(int.from_bytes(head[4:8], "big", signed=True))
                elif len(head) >= 4:
                    conn.outstanding.discard(int.from_bytes(head[:4], "big", signed=True))
                out.append(_new_tuple(KafkaFrame, (conn.endpoints, is_request, item)))
            else:
                out.append(item)
        return out


def _client_side(conn: _Connection, final: bool) -> int | None:
    """Which side of a connection seen without its SYN is the client, from the bytes held so far.

    A response can pass for a request (a correlation id of 65539 reads as Fetch v3), so one plausible side
    is trusted at once only when the other has spoken too, or when its port is the higher one (clients use
    ephemeral ports above the broker's); when both look plausible, the higher port is the client's.
    """
    plausible = [side for side in (0, 1) if _finds_request(conn.held[side])]
    ports = (conn.first[1], conn.second[1])
    if len(plausible) == 2:
        return 0 if ports[0] > ports[1] else 1
    if len(plausible) == 1:
        side = plausible[0]
        if final or conn.held[1 - side] or ports[side] > ports[1 - side]:
            return side
    return None


def _finds_request(events: list) -> bool:
    """Whether held bytes of one direction hold a plausible request frame (at a frame start we can see)."""
    first = events[0] if events else None
    if type(first) is Data:
        # the usual case, answered without a probe: the first bytes are a whole plausible request, which is
        # the first candidate the probe below would try and accept
        payload = first.payload
        size = int.from_bytes(payload[:4], "big", signed=True) if len(payload) >= 4 else 0
        if 8 <= size <= MAX_FRAME and len(payload) - 4 >= size and _request_head(payload[4:4 + min(size, HEAD)], size):
            return True
    probe = Framer(_request_head, synced=False)
    for event in events:
        if isinstance(event, Gap):
            break
        for item in probe.feed(event):
            if isinstance(item, Frame):
                return True
    return False
