"""TCP reassembly and Kafka framing on real captures edited packet by packet: reordered, retransmitted and
overlapping segments change nothing; a missing or cut segment, a frame claiming 2 GB and garbage lose only
the exchanges they touch, are reported with their position, and everything after them is still read."""

from __future__ import annotations

import itertools
import random
import tracemalloc

import pytest
from capture_support import (
    FIXTURES,
    comparable,
    edited,
    everything,
    key,
    read_packets,
    tcp_segments,
    with_tcp,
)

STORM = FIXTURES / "cfk_storm.pcap"


@pytest.fixture(scope="module")
def baseline():
    exs, problems = everything(STORM)
    assert not problems and len(exs) > 100
    return exs


def same(exs, baseline) -> None:
    """The same exchanges (their order may differ: reordering packets of different connections reorders
    the answers)."""
    assert len(exs) == len(baseline)
    assert {key(e): comparable(e) for e in exs} == {key(e): comparable(e) for e in baseline}


def request_segment(packets, baseline, api: str, nth: int = 0):
    """The data segment carrying the ``nth`` ``api`` request's first byte."""
    frame = [e for e in baseline if e["apiName"] == api][nth]["source"]["frame"]
    return next(s for s in tcp_segments(packets) if s.index == frame - 1), frame


def test_reordered_segments(tmp_path, baseline):
    def swap(packets):
        segs = tcp_segments(packets)
        pairs = [(a, b) for a, b in itertools.pairwise(segs) if a.sport == b.sport and b.index == a.index + 1]
        assert len(pairs) >= 3
        for a, b in pairs[:10:3]:
            packets[a.index], packets[b.index] = packets[b.index], packets[a.index]
        return packets

    exs, problems = everything(edited(tmp_path, STORM, swap))
    assert not problems
    same(exs, baseline)


def test_retransmitted_segments(tmp_path, baseline):
    def duplicate(packets):
        out = []
        for i, p in enumerate(packets):
            out.append(p)
            if i % 3 == 0:
                out.append(p)
        return out

    exs, problems = everything(edited(tmp_path, STORM, duplicate))
    assert not problems
    same(exs, baseline)


def test_overlapping_segments(tmp_path, baseline):
    def overlap(packets):
        out = list(packets)
        for seg in reversed([s for s in tcp_segments(packets) if len(s.payload) > 40][:20]):
            cut = len(seg.payload) // 2
            first = with_tcp(packets[seg.index], payload=seg.payload[:cut])
            second = with_tcp(packets[seg.index], seq=seg.seq + cut - 7, payload=seg.payload[cut - 7:])
            out[seg.index:seg.index + 1] = [first, second]
        return out

    exs, problems = everything(edited(tmp_path, STORM, overlap))
    assert not problems
    same(exs, baseline)


def test_missing_segment_drops_only_its_frame(tmp_path, baseline):
    packets = read_packets(STORM)
    seg, frame = request_segment(packets, baseline, "JoinGroup", 2)
    lost = next(e for e in baseline if e["source"]["frame"] == frame)
    exs, problems = everything(edited(tmp_path, STORM, lambda ps: ps[:seg.index] + ps[seg.index + 1:]))
    gaps = [p for p in problems if "not captured" in p.message]
    assert len(gaps) == 1 and gaps[0].stream == lost["stream"] and gaps[0].offset is not None
    assert gaps[0].frame is not None and gaps[0].frame >= frame  # the packet after which the hole showed
    got = {key(e): comparable(e) for e in exs if e["apiKey"] is not None}
    want = {key(e): comparable(e) for e in baseline if e is not lost}
    assert got == want
    orphans = [e for e in exs if e["apiKey"] is None]  # the broker's answer to the lost request
    assert [e["correlationId"] for e in orphans] == [lost["correlationId"]] and orphans[0]["_error"]


def test_snap_length_cut_segment(tmp_path, baseline):
    packets = read_packets(STORM)
    seg, frame = request_segment(packets, baseline, "SyncGroup", 1)
    lost = next(e for e in baseline if e["source"]["frame"] == frame)

    def cut(ps):
        p = ps[seg.index]
        ps[seg.index] = type(p)(p.ts_ns, p.linktype, p.data[:-20], p.wire_length)
        return ps

    exs, problems = everything(edited(tmp_path, STORM, cut))
    assert any("snap length" in p.message and p.frame == frame for p in problems)
    got = {key(e): comparable(e) for e in exs if e["apiKey"] is not None}
    assert got == {key(e): comparable(e) for e in baseline if e is not lost}


def test_capture_starting_mid_connection(tmp_path, baseline):
    start = len(read_packets(STORM)) // 2
    exs, _ = everything(edited(tmp_path, STORM, lambda ps: ps[start:]))

    def unnumbered(e):  # connections are numbered from the first one the capture shows
        return {k: v for k, v in comparable(e).items() if k != "stream"}

    later = {key(e): unnumbered(e) for e in baseline if e["source"]["frame"] > start and e["responseTs"]}
    got = {key(e): unnumbered(e) for e in exs}
    assert later and set(later) <= set(got)
    assert all(got[k] == v for k, v in later.items())


def test_frame_claiming_two_gigabytes(tmp_path, baseline):
    packets = read_packets(STORM)
    seg, frame = request_segment(packets, baseline, "JoinGroup", 1)
    lost = next(e for e in baseline if e["source"]["frame"] == frame)

    def huge(ps):
        ps[seg.index] = with_tcp(ps[seg.index], payload=b"\x7f\xff\xff\xf0" + seg.payload[4:])
        return ps

    path = edited(tmp_path, STORM, huge)
    tracemalloc.start()
    exs, problems = everything(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 50 * path.stat().st_size
    assert any("2147483632 is out of range" in p.message and p.frame == frame for p in problems)
    got = {key(e): comparable(e) for e in exs if e["apiKey"] is not None}
    assert got == {key(e): comparable(e) for e in baseline if e is not lost}


def test_garbage_instead_of_a_request(tmp_path, baseline):
    packets = read_packets(STORM)
    seg, frame = request_segment(packets, baseline, "JoinGroup", 0)
    lost = next(e for e in baseline if e["source"]["frame"] == frame)
    noise = random.Random(7).randbytes(len(seg.payload))

    def garble(ps):
        ps[seg.index] = with_tcp(ps[seg.index], payload=noise)
        return ps

    exs, problems = everything(edited(tmp_path, STORM, garble))
    assert any(p.stage == "kafka" for p in problems)
    got = {key(e): comparable(e) for e in exs if e["apiKey"] is not None}
    want = {key(e): comparable(e) for e in baseline if e is not lost}
    assert set(want) <= set(got) and all(got[k] == v for k, v in want.items())


def without_handshakes(packets):
    """The packets without SYN and SYN-ACK: every connection seen as if the capture began mid-way."""
    import dpkt

    return [p for p in packets if not (dpkt.ethernet.Ethernet(p.data).data.data.flags & dpkt.tcp.TH_SYN)]


def test_client_side_found_from_the_bytes(tmp_path, baseline):
    def unnumbered(e):
        return {k: v for k, v in comparable(e).items() if k != "stream"}

    exs, problems = everything(edited(tmp_path, STORM, without_handshakes))
    assert not problems
    assert {key(e): unnumbered(e) for e in exs} == {key(e): unnumbered(e) for e in baseline}


def test_a_response_seen_first(tmp_path, baseline):
    """Each connection's first request is missing too, so its first bytes are the broker's answer (which
    reads like a Produce request: a small correlation id is api key 0 at a small version)."""
    def cut(packets):
        packets = without_handshakes(packets)
        first_data: dict[frozenset, int] = {}
        for seg in tcp_segments(packets):
            first_data.setdefault(frozenset((seg.sport, seg.dport)), seg.index)
        drop = set(first_data.values())
        return [p for i, p in enumerate(packets) if i not in drop]

    exs, _ = everything(edited(tmp_path, STORM, cut))
    sides = {(e["client"], e["broker"]) for e in baseline}
    assert {(e["client"], e["broker"]) for e in exs} <= sides
    firsts: dict[str, int] = {}
    for e in baseline:  # every connection's first request
        firsts[e["client"]] = min(firsts.get(e["client"], e["correlationId"]), e["correlationId"])
    lost = set(firsts.items())
    answered = {key(e) for e in exs if e["apiKey"] is not None and e["response"] is not None}
    assert answered >= {key(e) for e in baseline if e["response"] is not None and key(e)[:2] not in lost}
