"""Link layers and IP versions: the same real traffic behind Ethernet, Linux cooked v1/v2, BSD loopback
(both byte orders), OpenBSD loop and raw IP, over IPv4 and IPv6, decodes to the same exchanges."""

from __future__ import annotations

import pytest
from capture_support import FIXTURES, comparable, everything, read_packets, relink, to_ipv6, write_pcap

from kafka_meta.capture.links import tcp_segment

REAL = FIXTURES / "cfk_consumer_protocol.pcapng"


@pytest.fixture(scope="module")
def baseline():
    exs, problems = everything(REAL)
    assert exs and not problems
    return exs


def without_addresses(exs):
    return [{k: v for k, v in comparable(e).items() if k not in ("client", "broker")} for e in exs]


@pytest.mark.parametrize("linktype,order", [(113, "<"), (276, "<"), (0, "<"), (0, ">"), (108, "<"), (101, "<")])
@pytest.mark.parametrize("ipv6", [False, True])
def test_every_link_type_and_ip_version(tmp_path, baseline, linktype, order, ipv6):
    packets = read_packets(REAL)
    if ipv6:
        packets = to_ipv6(packets)
    path = write_pcap(tmp_path / "x.pcap", relink(packets, linktype, order), nano=True)
    exs, problems = everything(path)
    assert not problems
    assert without_addresses(exs) == without_addresses(baseline)
    assert [e["client"].startswith("[::1]:") for e in exs] == [ipv6] * len(exs)
    if not ipv6:
        assert [(e["client"], e["broker"]) for e in exs] == [(e["client"], e["broker"]) for e in baseline]


def test_real_linux_cooked_capture():
    exs, problems = everything(FIXTURES / "aio_sticky_any.pcapng")
    assert not problems
    joins = [e for e in exs if e["apiName"] == "JoinGroup"]
    assert joins and all(e["groupId"] == "g-aio-sticky" for e in joins)


def test_vlan_tags_are_skipped():
    p = read_packets(REAL)[3]
    tagged = p.data[:12] + b"\x81\x00\x00\x07" + p.data[12:]
    plain, vlan = tcp_segment(1, p.data, len(p.data)), tcp_segment(1, tagged, len(tagged))
    assert plain is not None and vlan == plain


def test_snap_length_cut_is_counted():
    data_packets = [p for p in read_packets(REAL) if (s := tcp_segment(1, p.data, len(p.data))) and s.payload]
    p = data_packets[0]
    whole = tcp_segment(1, p.data, len(p.data))
    cut = tcp_segment(1, p.data[:-10], len(p.data))
    assert cut.payload == whole.payload[:-10] and cut.missing == 10
