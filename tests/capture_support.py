"""Helpers for the capture tests: real captures read with dpkt (independently of our reader), rewritten into
other containers and link types, and edited packet by packet (dropped, reordered, duplicated, cut) to make
the damaged inputs a capture reader meets."""

from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import dpkt
import pytest

from kafka_meta.capture import iter_capture, read_capture

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "captures" / "pcap"
SHARED_CAPTURES = next((p / "captures" for p in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
                        if (p / "captures").is_dir()), None)


def shared_capture(name: str) -> Path:
    if SHARED_CAPTURES is None or not (SHARED_CAPTURES / name).exists():
        pytest.skip("../shared/captures is not beside the project")
    return SHARED_CAPTURES / name


@dataclass
class Pkt:
    """One packet as dpkt reads it: time in integer nanoseconds (no float rounding), link type, bytes."""

    ts_ns: int
    linktype: int
    data: bytes
    wire_length: int


def read_packets(path: Path) -> list[Pkt]:
    """Every packet of a single-interface pcap/pcapng, read by dpkt."""
    with open(path, "rb") as f:
        head = f.read(4)
        f.seek(0)
        reader = dpkt.pcapng.Reader(f) if head == b"\n\r\r\n" else dpkt.pcap.Reader(f)
        linktype = reader.datalink()
        return [Pkt(round(ts * 1e9), linktype, bytes(buf), len(buf)) for ts, buf in reader]


# --- containers ----------------------------------------------------------------------------------------


def write_pcap(path: Path, packets: list[Pkt], *, order: str = "<", nano: bool = False, snaplen: int = 262144
               ) -> Path:
    """A classic pcap in either byte order, micro- or nanosecond; all packets must share one link type."""
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    units = 1_000_000_000 if nano else 1_000_000
    out = [struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, snaplen, packets[0].linktype)]
    for p in packets:
        frac = p.ts_ns if nano else p.ts_ns // 1000
        out.append(struct.pack(order + "IIII", frac // units, frac % units, len(p.data), p.wire_length) + p.data)
    path.write_bytes(b"".join(out))
    return path


def _block(order: str, btype: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    length = len(body) + 12
    return struct.pack(order + "II", btype, length) + body + struct.pack(order + "I", length)


def pcapng_section(packets: list[Pkt], *, order: str = "<", interfaces: list[int] | None = None,
                   tsresol: int = 9) -> bytes:
    """One pcapng section; ``interfaces`` gives each packet's interface number (one IDB per distinct link
    type, in the order of first use)."""
    links: list[int] = []
    ids = []
    for i, p in enumerate(packets):
        key = (interfaces[i] if interfaces else 0, p.linktype)
        if key not in links:
            links.append(key)
        ids.append(links.index(key))
    out = [_block(order, 0x0A0D0D0A, struct.pack(order + "IHHq", 0x1A2B3C4D, 1, 0, -1))]
    for _key, linktype in links:
        option = struct.pack(order + "HHB", 9, 1, tsresol) + b"\0\0\0" + struct.pack(order + "HH", 0, 0)
        out.append(_block(order, 1, struct.pack(order + "HHI", linktype, 0, 262144) + option))
    units = 10 ** tsresol
    for iface, p in zip(ids, packets, strict=True):
        ts = p.ts_ns * units // 1_000_000_000
        out.append(_block(order, 6, struct.pack(order + "IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(p.data),
                                                p.wire_length) + p.data))
    return b"".join(out)


# --- link layers ---------------------------------------------------------------------------------------


def ip_bytes(p: Pkt) -> bytes:
    """The IP packet inside an Ethernet or Linux cooked v2 frame."""
    if p.linktype == 1:
        return bytes(dpkt.ethernet.Ethernet(p.data).data)
    if p.linktype in (113, 276):
        return p.data[16 if p.linktype == 113 else 20:]
    raise ValueError(f"link type {p.linktype}")


def relink(packets: list[Pkt], linktype: int, order: str = "<") -> list[Pkt]:
    """The same IP packets behind another link layer."""
    out = []
    for p in packets:
        ip = ip_bytes(p)
        v6 = ip[0] >> 4 == 6
        if linktype == 113:  # SLL: packet type, ARPHRD_LOOPBACK, address length, address, protocol
            head = struct.pack("!HHH8sH", 0, 772, 6, b"\0" * 8, 0x86DD if v6 else 0x0800)
        elif linktype == 276:  # SLL2: protocol, reserved, interface index, ARPHRD_LOOPBACK, type, address
            head = struct.pack("!HHIHBB8s", 0x86DD if v6 else 0x0800, 0, 1, 772, 0, 6, b"\0" * 8)
        elif linktype == 0:  # BSD loopback, the capturing host's byte order; macOS's AF_INET6
            head = struct.pack(order + "I", 30 if v6 else 2)
        elif linktype == 108:  # OpenBSD loop, network order
            head = struct.pack("!I", 24 if v6 else 2)
        elif linktype == 101:
            head = b""
        else:
            raise ValueError(linktype)
        out.append(replace(p, linktype=linktype, data=head + ip, wire_length=len(head) + len(ip)))
    return out


def to_ipv6(packets: list[Pkt]) -> list[Pkt]:
    """IPv4 over Ethernet rewritten as IPv6 over Ethernet (127.0.0.1 -> ::1, other addresses mapped)."""
    out = []
    for p in packets:
        eth = dpkt.ethernet.Ethernet(p.data)
        ip = eth.data
        if not isinstance(ip, dpkt.ip.IP):
            out.append(p)
            continue
        tcp = bytes(ip.data)

        def v6(addr: bytes) -> bytes:
            return b"\0" * 15 + b"\1" if addr == b"\x7f\0\0\1" else b"\0" * 10 + b"\xff\xff" + addr

        ip6 = struct.pack("!IHBB", 0x60000000, len(tcp), ip.p, 64) + v6(ip.src) + v6(ip.dst) + tcp
        data = p.data[:12] + b"\x86\xdd" + ip6
        out.append(replace(p, data=data, wire_length=len(data)))
    return out


# --- TCP-level edits -----------------------------------------------------------------------------------


@dataclass
class Seg:
    index: int  # position in the packet list
    sport: int
    dport: int
    seq: int
    payload: bytes


def tcp_segments(packets: list[Pkt]) -> list[Seg]:
    """The data-carrying TCP segments of Ethernet packets, as dpkt reads them."""
    out = []
    for i, p in enumerate(packets):
        ip = dpkt.ethernet.Ethernet(p.data).data
        if isinstance(ip, (dpkt.ip.IP, dpkt.ip6.IP6)) and isinstance(ip.data, dpkt.tcp.TCP) and ip.data.data:
            out.append(Seg(i, ip.data.sport, ip.data.dport, ip.data.seq, bytes(ip.data.data)))
    return out


def with_tcp(p: Pkt, *, seq: int | None = None, payload: bytes | None = None) -> Pkt:
    """The packet with its TCP sequence number and/or payload replaced (IP length fixed up)."""
    eth = dpkt.ethernet.Ethernet(p.data)
    tcp = eth.data.data
    if seq is not None:
        tcp.seq = seq
    if payload is not None:
        tcp.data = payload
    ip = eth.data
    ip.len = len(ip.pack_hdr()) + len(ip.opts) + len(bytes(tcp))
    data = bytes(eth)
    return replace(p, data=data, wire_length=len(data))


# --- reading -------------------------------------------------------------------------------------------


def exchanges(path: Path, ports=None) -> list[dict]:
    return [ex.to_dict() for ex in read_capture(path, ports)]


def everything(path: Path, ports=None) -> tuple[list[dict], list]:
    """(exchange dicts, problems) of one capture."""
    exs, problems = [], []
    for item in iter_capture(path, ports):
        (exs.append(item.to_dict()) if hasattr(item, "to_dict") and hasattr(item, "api_key") else
         problems.append(item))
    return exs, problems


def key(ex: dict) -> tuple:
    return ex["client"], ex["correlationId"], ex["apiKey"]


def by_key(exs: list[dict]) -> dict[tuple, dict]:
    return {key(ex): ex for ex in exs}


def comparable(ex: dict) -> dict:
    """An exchange without where and when it came from (packet numbers shift when packets are added or
    removed; timestamps round differently in micro- and nanosecond containers)."""
    return {k: v for k, v in ex.items() if k not in ("source", "ts", "responseTs", "latencyMs")}


def edited(tmp_path: Path, source: Path, edit: Callable[[list[Pkt]], list[Pkt]], name: str = "edited.pcap") -> Path:
    packets = read_packets(source)
    return write_pcap(tmp_path / name, edit(packets), nano=True)


def as_json(value):
    """What the standard library makes of an exchange with the package's rule for bytes and uuids: the
    reference that the faces' JSON (orjson on the CLI, the Spark source's columns) must read back equal to."""
    from kafka_meta.capture.jsonable import json_default

    return json.loads(json.dumps(value, default=json_default))
