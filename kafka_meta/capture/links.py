"""From a captured packet to its TCP segment: link layer, IPv4/IPv6, TCP header.

Link types read: Ethernet (with 802.1Q/802.1ad tags), Linux cooked capture v1 (SLL) and v2 (SLL2), BSD
loopback/null (either byte order, every BSD's AF_INET6 value) and OpenBSD loop, raw IP (DLT_RAW in its
several numberings, LINKTYPE_IPV4/IPV6). Written with ``struct`` on offsets rather than dpkt's
object-per-layer parsing because this runs once per packet on the hot path and needs only a dozen fields.

A packet cut by the snap length keeps what was captured; ``missing`` says how many payload bytes the IP
header announced beyond it, so reassembly can report the hole instead of mis-framing.
"""

from __future__ import annotations

import struct
from typing import NamedTuple

ETHERNET, NULL, LOOP, RAW, RAW_OPENBSD, RAW_ALT, SLL, SLL2, IPV4, IPV6 = 1, 0, 108, 101, 12, 14, 113, 276, 228, 229
ETH_IPV4, ETH_IPV6, VLAN_TAGS = 0x0800, 0x86DD, (0x8100, 0x88A8, 0x9100)
AF_INET6 = frozenset({10, 24, 28, 30})  # Linux, NetBSD/OpenBSD, FreeBSD, macOS
IPV6_EXTENSIONS = frozenset({0, 43, 60})  # hop-by-hop, routing, destination options: skipped
TCP = 6
FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10

_H = struct.Struct("!H")
_TCP = struct.Struct("!HHIIBB")
_IP4 = struct.Struct("!BxH2xHxB2x4s4s")  # version/ihl, total length, fragment offset, protocol, addresses
_IP4_TCP = struct.Struct("!BxH2xHxB2x4s4sHHIIBB")  # the two, for an IPv4 header without options


class Segment(NamedTuple):
    """A TCP segment: addresses as raw bytes (4 or 16), ``flags`` the TCP flag bits, the captured payload and
    how many payload bytes the snap length cut off."""

    src: bytes
    sport: int
    dst: bytes
    dport: int
    seq: int
    ack: int
    flags: int
    payload: bytes
    missing: int


# a Segment built by the tuple constructor itself: a NamedTuple's own __new__ is a Python function, which
# costs more than the rest of the common case's work on a packet
_new_tuple = tuple.__new__


class NotTcp(Exception):
    """Raised inside this module for a packet that carries no readable TCP segment; the reason is its text."""


def network_layer(linktype: int, data: bytes) -> tuple[int, int]:
    """(IP version 4/6 or 0 for something else, offset of the IP header)."""
    if linktype == ETHERNET:
        if len(data) < 14:
            raise NotTcp("Ethernet header cut short")
        at, ethertype = 14, _H.unpack_from(data, 12)[0]
        while ethertype in VLAN_TAGS and len(data) >= at + 4:
            ethertype = _H.unpack_from(data, at + 2)[0]
            at += 4
        return (4 if ethertype == ETH_IPV4 else 6 if ethertype == ETH_IPV6 else 0), at
    if linktype in (SLL, SLL2):
        size, field = (16, 14) if linktype == SLL else (20, 0)
        if len(data) < size:
            raise NotTcp("Linux cooked header cut short")
        ethertype = _H.unpack_from(data, field)[0]
        return (4 if ethertype == ETH_IPV4 else 6 if ethertype == ETH_IPV6 else 0), size
    if linktype in (NULL, LOOP):
        if len(data) < 4:
            raise NotTcp("loopback header cut short")
        family = int.from_bytes(data[:4], "big")
        if linktype == NULL and family > 0xFFFF:  # written in the capturing host's order
            family = int.from_bytes(data[:4], "little")
        return (4 if family == 2 else 6 if family in AF_INET6 else 0), 4
    if linktype in (RAW, RAW_OPENBSD, RAW_ALT, IPV4, IPV6):
        if not data:
            raise NotTcp("empty raw IP packet")
        version = data[0] >> 4
        return (version if version in (4, 6) else 0), 0
    raise NotTcp(f"link type {linktype} is not read")


def tcp_segment(linktype: int, data: bytes, wire_length: int) -> Segment | None:
    """The TCP segment in a packet, None for other traffic (ARP, UDP, ...). Raises NotTcp for a TCP/IP
    packet too damaged to read."""
    if linktype == ETHERNET and len(data) >= 54 and data[14] == 0x45 and data[12] == 8 and data[13] == 0:
        # the common case: Ethernet, IPv4 without options, a whole TCP header; both headers in one unpack
        _vihl, total, fragment, protocol, src, dst, sport, dport, seq, ack, offset, flags = _IP4_TCP.unpack_from(
            data, 14)
        if protocol == TCP and not fragment & 0x1FFF and total >= 40 and offset >= 0x50:
            start = 34 + (offset >> 4) * 4
            end = 14 + total
            if start <= end:
                payload = data[start:end]
                available = wire_length  # the captured bytes plus what the snap length cut
                missing = min(end, available) - start - len(payload)
                return _new_tuple(Segment, (src, sport, dst, dport, seq, ack, flags, payload,
                                            missing if missing > 0 else 0))
    if linktype == ETHERNET and len(data) >= 34 and data[12] == 8 and data[13] == 0:
        version, at = 4, 14  # IPv4 over Ethernet, without the general link-layer walk
    else:
        version, at = network_layer(linktype, data)
    cut = wire_length - len(data)  # bytes the snap length removed from the end
    if version == 4:
        if len(data) < at + 20:
            raise NotTcp("IPv4 header cut short")
        vihl, total, fragment, protocol, src, dst = _IP4.unpack_from(data, at)
        if protocol != TCP:
            return None
        ihl = (vihl & 0x0F) * 4
        if ihl < 20 or (total and total < ihl):
            raise NotTcp(f"IPv4 header length {ihl}, total length {total}")
        if fragment & 0x1FFF:
            raise NotTcp("IPv4 fragment after the first: not reassembled")
        # total 0: TCP segmentation offload on the capturing host; take the captured length
        end = at + total if total else len(data) + cut
        at += ihl
    elif version == 6:
        if len(data) < at + 40:
            raise NotTcp("IPv6 header cut short")
        nxt = data[at + 6]
        end = at + 40 + _H.unpack_from(data, at + 4)[0]
        src, dst = data[at + 8:at + 24], data[at + 24:at + 40]
        at += 40
        while nxt in IPV6_EXTENSIONS and len(data) >= at + 8:
            nxt, at = data[at], at + 8 + data[at + 1] * 8
        if nxt == 44:
            raise NotTcp("IPv6 fragment: not reassembled")
        if nxt != TCP:
            return None
    else:
        return None
    if len(data) < at + 20:
        raise NotTcp("TCP header cut short")
    sport, dport, seq, ack, offset, flags = _TCP.unpack_from(data, at)
    start = at + (offset >> 4) * 4
    if start > end or start < at + 20:
        raise NotTcp(f"TCP header length {(offset >> 4) * 4} does not fit")
    payload = data[start:end]
    available = len(data) + cut  # what the wire carried, ethernet padding included
    return Segment(src, sport, dst, dport, seq, ack, flags, payload, max(0, min(end, available) - start - len(payload)))
