"""pcap and pcapng containers: every byte order, timestamp resolution, several interfaces and sections,
gzip, and damaged files, all built from real captures (read independently with dpkt)."""

from __future__ import annotations

import gzip
import shutil
import struct
import subprocess

import pytest
from capture_support import FIXTURES, Pkt, comparable, everything, pcapng_section, read_packets, write_pcap

from kafka_meta.capture import CaptureError, Packet, Problem, iter_capture, read_capture
from kafka_meta.capture.containers import ContainerReader

REAL = FIXTURES / "cfk_consumer_protocol.pcapng"


def ours(data: bytes, chunk: int = 4096) -> tuple[list[Packet], list[Problem]]:
    reader = ContainerReader()
    out = []
    for i in range(0, len(data), chunk):
        out += reader.feed(data[i:i + chunk])
    out += reader.close()
    return [p for p in out if isinstance(p, Packet)], [p for p in out if isinstance(p, Problem)]


def same_packets(got: list[Packet], want: list[Pkt], resolution_ns: int = 1) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want, strict=True), 1):
        assert g.number == i
        assert g.data == w.data and g.linktype == w.linktype
        assert abs(round(g.ts * 1e9) - w.ts_ns) <= resolution_ns + 1000  # float seconds hold ~240 ns here


def test_real_pcapng_matches_dpkt_and_tshark():
    want = read_packets(REAL)
    got, problems = ours(REAL.read_bytes(), chunk=777)
    assert not problems
    same_packets(got, want)
    if shutil.which("tshark"):
        times = subprocess.run(["tshark", "-r", str(REAL), "-T", "fields", "-e", "frame.time_epoch"],
                               capture_output=True, text=True, check=True).stdout.split()
        assert len(times) == len(got)
        assert all(abs(float(t) - g.ts) < 1e-6 for t, g in zip(times, got, strict=True))


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("nano", [False, True])
def test_pcap_byte_orders_and_resolutions(tmp_path, order, nano):
    want = read_packets(REAL)
    path = write_pcap(tmp_path / "x.pcap", want, order=order, nano=nano)
    got, problems = ours(path.read_bytes())
    assert not problems
    same_packets(got, want, resolution_ns=1 if nano else 1000)
    # the decoded exchanges do not depend on the container
    assert [comparable(e) for e in everything(path)[0]] == [comparable(e) for e in everything(REAL)[0]]


def test_real_pcap_fixture_reads_like_dpkt():
    path = FIXTURES / "cfk_storm.pcap"
    got, problems = ours(path.read_bytes(), chunk=1000)
    assert not problems
    same_packets(got, read_packets(path), resolution_ns=1000)


@pytest.mark.parametrize("order", ["<", ">"])
def test_pcapng_several_interfaces_and_sections(tmp_path, order):
    a, b = read_packets(REAL), read_packets(FIXTURES / "aio_sticky_any.pcapng")
    assert a[0].linktype == 1 and b[0].linktype == 113
    # section 1: both captures interleaved on two interfaces (Ethernet, Linux cooked), microseconds;
    # section 2: the first capture again, in the other byte order
    merged = sorted(a[:40] + b[:40], key=lambda p: p.ts_ns)
    data = pcapng_section(merged, order=order, tsresol=6) + pcapng_section(a, order="<" if order == ">" else ">")
    got, problems = ours(data, chunk=1500)
    assert not problems
    assert [g.linktype for g in got[:80]] == [p.linktype for p in merged]
    same_packets(got, merged + a, resolution_ns=1000)


def test_gzip_reads_like_plain(tmp_path):
    path = tmp_path / "capture.pcapng.gz"
    path.write_bytes(gzip.compress(REAL.read_bytes()))
    assert [comparable(e) for e in everything(path)[0]] == [comparable(e) for e in everything(REAL)[0]]


def test_not_a_capture(tmp_path):
    path = tmp_path / "notes.pcap"
    path.write_text("hello, this is not a capture\n")
    with pytest.raises(CaptureError, match="not a pcap or pcapng"):
        list(read_capture(path))
    empty = tmp_path / "empty.pcapng"
    empty.write_bytes(b"")
    with pytest.raises(CaptureError):
        list(read_capture(empty))
    gz = tmp_path / "text.gz"
    gz.write_bytes(gzip.compress(b"plain text inside"))
    with pytest.raises(CaptureError, match="gzip-compressed, but not"):
        list(read_capture(gz))


def test_truncated_file_keeps_every_exchange_before_the_cut(tmp_path):
    full = everything(REAL)[0]
    data = REAL.read_bytes()
    for cut in (len(data) // 2 + 13, len(data) - 5):
        path = tmp_path / "cut.pcapng"
        path.write_bytes(data[:cut])
        exs, problems = everything(path)
        assert any(p.stage == "container" and "ends inside" in p.message for p in problems)
        last = max(p.offset or 0 for p in problems if p.stage == "container")
        assert last < cut
        whole = {(e["client"], e["correlationId"]) for e in exs if e["responseTs"] is not None}
        before = {(e["client"], e["correlationId"]) for e in full
                  if e["responseTs"] is not None and e["source"]["frame"] < packet_at(data, cut) - 30}
        assert before <= whole


def packet_at(data: bytes, offset: int) -> int:
    """How many whole packets a pcapng holds before ``offset``."""
    return sum(1 for p in ours(data[:offset])[0])


def test_truncated_gzip(tmp_path):
    path = tmp_path / "cut.pcapng.gz"
    packed = gzip.compress(REAL.read_bytes())
    path.write_bytes(packed[: len(packed) * 2 // 3])
    exs, problems = everything(path)
    assert exs and any("gzip stream" in p.message for p in problems)


def test_pcapng_block_with_a_wrong_length(tmp_path):
    data = bytearray(REAL.read_bytes())
    blocks = []
    at = 0
    while at < len(data):
        length = struct.unpack_from("<I", data, at + 4)[0]
        blocks.append(at)
        at += length
    victim = blocks[len(blocks) // 2]
    struct.pack_into("<I", data, victim + 4, 0x7FFFFFF0)  # a packet block claiming 2 GB
    path = tmp_path / "bad.pcapng"
    path.write_bytes(bytes(data))
    got, problems = ours(bytes(data))
    assert len(got) == len(read_packets(REAL)) - 1
    assert [p.offset for p in problems] == [victim]
    assert "claims length 2147483632" in problems[0].message
    # a length that is plausible but wrong (the trailer disagrees)
    data = bytearray(REAL.read_bytes())
    struct.pack_into("<I", data, victim + 4, struct.unpack_from("<I", data, victim + 4)[0] + 8)
    got, problems = ours(bytes(data))
    assert len(got) == len(read_packets(REAL)) - 1 and len(problems) == 1
    assert "trailing length differs" in problems[0].message


def test_pcap_record_claiming_too_much(tmp_path):
    packets = read_packets(REAL)
    path = write_pcap(tmp_path / "x.pcap", packets)
    data = bytearray(path.read_bytes())
    at, victim = 24, len(packets) // 3
    for _ in range(victim):
        at += 16 + struct.unpack_from("<I", data, at + 8)[0]
    struct.pack_into("<II", data, at + 8, 0x7FFFFFF0, 0x7FFFFFF0)
    got, problems = ours(bytes(data))
    assert len(problems) == 1 and problems[0].offset == at and problems[0].frame == victim + 1
    assert len(got) == len(packets) - 1
    assert [g.data for g in got] == [p.data for i, p in enumerate(packets) if i != victim]


def test_iter_capture_reports_problems_with_positions(tmp_path):
    data = REAL.read_bytes()
    path = tmp_path / "cut.pcapng"
    path.write_bytes(data[:-7])
    problems = [p for p in iter_capture(path) if isinstance(p, Problem)]
    assert problems and all(str(p).startswith("container:") or str(p).startswith("kafka:") for p in problems)
    assert "byte" in str(problems[0])


@pytest.mark.parametrize("kind", ["pcapng", "pcap"])
def test_a_length_too_long_for_the_file(tmp_path, kind):
    """A record or block whose length, damaged, still looks sane but runs past the end of the file: the
    records after it are found again, not swallowed as a file cut short."""
    packets = read_packets(REAL)
    if kind == "pcapng":
        data = bytearray(REAL.read_bytes())
        at, blocks = 0, []
        while at < len(data):
            blocks.append(at)
            at += struct.unpack_from("<I", data, at + 4)[0]
        victim = blocks[len(blocks) // 2]
        struct.pack_into("<I", data, victim + 4, 4 << 20)  # 4 MB: a plausible length, far past the end
    else:
        data = bytearray(write_pcap(tmp_path / "x.pcap", packets).read_bytes())
        at = victim = 24
        for _ in range(len(packets) // 2):
            at += 16 + struct.unpack_from("<I", data, at + 8)[0]
        victim = at
        struct.pack_into("<II", data, victim + 8, 200_000, 200_000)  # plausible, and past the end
    got, problems = ours(bytes(data))
    assert len(got) >= len(packets) - 2
    assert any("its length is damaged" in p.message for p in problems)
    assert got[-1].data == packets[-1].data
