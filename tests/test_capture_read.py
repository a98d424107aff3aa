"""read_capture end to end on real captures: cross-checked against tshark's Kafka dissector (api key,
version, correlation id, client id of every request), the member metadata listed beside the shared captures
found decoded, and the metadata of each fixture's group protocol decoded in place."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from capture_support import FIXTURES, everything, exchanges, shared_capture

from kafka_meta.capture import read_capture

CONTRACT = {"ts", "responseTs", "latencyMs", "client", "broker", "stream", "apiKey", "apiName", "apiVersion",
            "correlationId", "clientId", "groupId", "memberId", "generationId", "errorCode", "request", "response",
            "_error", "source"}
FIXTURE_FILES = sorted(FIXTURES.glob("*.pcap*"))


def broker_ports(exs: list[dict]) -> list[int]:
    return sorted({int(e["broker"].rsplit(":", 1)[1]) for e in exs})


def run_tshark(path, ports: list[int], display: str, fields: list[str]) -> str:
    """tshark's Kafka dissector on the broker ports, packets towards them matching ``display``."""
    decode = [arg for port in ports for arg in ("-d", f"tcp.port=={port},kafka")]
    towards = " || ".join(f"tcp.dstport=={port}" for port in ports)
    argv = ["tshark", "-r", str(path), *decode, "-Y", f"({display}) && ({towards})", "-T", "fields",
            *[arg for f in fields for arg in ("-e", f)], "-E", "occurrence=a", "-E", "aggregator=|"]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout


def tshark_requests(path, ports: list[int]) -> list[tuple]:
    """(packet, api key, api version, correlation id, client id) of every request tshark's dissector sees."""
    out = run_tshark(path, ports, "kafka", ["frame.number", "kafka.api_key", "kafka.api_version",
                                            "kafka.correlation_id", "kafka.client_id"])
    rows = []
    for line in out.splitlines():
        frame, keys, versions, ids, clients = line.split("\t")
        for k, v, c, cid in zip(keys.split("|"), versions.split("|"), ids.split("|"), clients.split("|"),
                                strict=True):
            rows.append((int(frame), int(k), int(v), int(c), cid))
    return rows


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_requests_agree_with_tshark(path):
    exs = exchanges(path)
    ours = sorted((e["source"]["frame"], e["apiKey"], e["apiVersion"], e["correlationId"], e["clientId"])
                  for e in exs)
    assert ours == sorted(tshark_requests(path, broker_ports(exs)))


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_join_requests_agree_with_tshark(path):
    """Group, member, protocol type and names of every JoinGroup request, as tshark's dissector reads them."""
    exs = exchanges(path)
    out = run_tshark(path, broker_ports(exs), "kafka.api_key == 11", ["frame.number", "kafka.consumer_group",
                                                                  "kafka.member_id", "kafka.protocol_type",
                                                                  "kafka.protocol_name"])
    # tshark loses its place after a protocol's metadata with user data and shows the next names empty
    # (aiokafka's 'sticky' then 'roundrobin'): only the names it does read are compared
    theirs = sorted((int(f), g, m, t, tuple(x for x in n.split("|") if x)) for f, g, m, t, n in
                    (line.split("\t") for line in out.splitlines()))
    ours = sorted((e["source"]["frame"], e["request"]["groupId"], e["request"]["memberId"],
                   e["request"]["protocolType"], tuple(p["name"] for p in e["request"]["protocols"]))
                  for e in exs if e["apiName"] == "JoinGroup")
    assert len(ours) == len(theirs)
    for mine, tshark in zip(ours, theirs, strict=True):
        assert mine[:4] == tshark[:4] and mine[4][:len(tshark[4])] == tshark[4] and tshark[4]


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_contract_shape_and_pairing(path):
    exs, problems = everything(path)
    assert not problems
    for e in exs:
        assert set(e) == CONTRACT
        assert e["source"] == {"file": str(path), "frame": e["source"]["frame"]}
        if e["responseTs"] is not None:
            assert e["responseTs"] >= e["ts"] and e["latencyMs"] == pytest.approx((e["responseTs"] - e["ts"]) * 1e3)
            assert e["response"] is not None
        # every request decodes (apis without a spec are kept raw, without error); a response may not:
        # librdkafka's mock answers some errors with a shorter body than Kafka defines (LeaveGroup v3 without
        # its members), kept raw and named in _error
        assert e["request"] is not None
        assert e["_error"] is None or e["_error"].startswith("response")
        assert e["_error"] is None or "leniently" in e["_error"] or "_raw" in e["response"]
    # answered in order: per connection, responses come in the order of their requests
    for stream in {e["stream"] for e in exs}:
        answered = sorted((e for e in exs if e["stream"] == stream and e["responseTs"]), key=lambda e: e["ts"])
        assert [e["responseTs"] for e in answered] == sorted(e["responseTs"] for e in answered)


def test_ipv6_and_ipv4_in_one_capture():
    exs = exchanges(FIXTURES / "cfk_ipv6_bootstrap.pcapng")
    v6 = [e for e in exs if e["client"].startswith("[::1]:")]
    assert v6 and all(e["broker"].startswith("[::1]:") for e in v6)
    assert {e["apiName"] for e in v6} >= {"ApiVersions", "Metadata"} and all(e["response"] for e in v6)
    # the relay's own IPv4 connections to the broker carry the same requests again
    relayed = {(e["clientId"], e["apiKey"], e["correlationId"]) for e in exs if not e["client"].startswith("[")}
    assert {(e["clientId"], e["apiKey"], e["correlationId"]) for e in v6} <= relayed
    joins = [e for e in exs if e["apiName"] == "JoinGroup"]
    assert joins and {e["groupId"] for e in joins} == {"g-cfk-v6"}
    port6 = int(v6[0]["broker"].rsplit(":", 1)[1])
    assert [e for e in exchanges(FIXTURES / "cfk_ipv6_bootstrap.pcapng", {port6})] == v6


def test_ports_limit_the_search():
    path = FIXTURES / "cfk_storm.pcap"
    exs = exchanges(path)
    assert exchanges(path, set(broker_ports(exs))) == exs
    assert exchanges(path, {9}) == []


def test_eager_storm_metadata():
    exs = exchanges(FIXTURES / "cfk_storm.pcap")
    joins = [e for e in exs if e["apiName"] == "JoinGroup" and e["errorCode"] == 0]
    assert len(joins) >= 8 and len({e["generationId"] for e in joins}) >= 3
    for e in joins:
        (protocol,) = e["request"]["protocols"]
        assert protocol["name"] == "range"
        assert protocol["metadata"]["_type"] == "ConsumerProtocolSubscription"
        assert set(protocol["metadata"]["topics"]) == {"orders", "payments"}
    leaders = [e for e in joins if e["response"]["members"]]
    assert leaders and all(m["metadata"]["_type"] == "ConsumerProtocolSubscription"
                           for e in leaders for m in e["response"]["members"])
    syncs = [e for e in exs if e["apiName"] == "SyncGroup" and e["errorCode"] == 0]
    assigned = [e["response"]["assignment"] for e in syncs]
    assert assigned and all(a["_type"] == "ConsumerProtocolAssignment" for a in assigned)


def test_sticky_user_data_decoded_nested():
    exs = exchanges(FIXTURES / "aio_sticky_any.pcapng")
    sticky = [p["metadata"] for e in exs if e["apiName"] == "JoinGroup" for p in e["request"]["protocols"]
              if p["name"] == "sticky"]
    assert sticky and all(m["userData"]["_type"] == "StickyAssignorUserData" for m in sticky if m["userData"])
    assert any(m["userData"] and m["userData"]["previousAssignment"] for m in sticky)


def test_consumer_protocol_heartbeats():
    exs = exchanges(FIXTURES / "cfk_consumer_protocol.pcapng")
    beats = [e for e in exs if e["apiName"] == "ConsumerGroupHeartbeat" and e["response"]]
    assert beats and {e["groupId"] for e in beats} == {"g-cfk-848"}
    joining = [e["request"] for e in beats if e["request"]["memberEpoch"] == 0]
    assert {tuple(sorted(r["subscribedTopicNames"])) for r in joining} == {("orders", "payments")}
    epochs = [e["response"]["memberEpoch"] for e in beats if e["errorCode"] == 0]
    assert max(epochs) >= 1 and all(e["memberId"] for e in beats if e["errorCode"] == 0)


@pytest.mark.parametrize("name", ["cfk_coop.pcapng", "aio_range.pcapng"])
def test_shared_member_metadata_found(name):
    from support import plain

    import kafka_meta as km

    path = shared_capture(name)
    cases = [c for c in map(json.loads, (path.parent / "member-metadata.jsonl").read_text().splitlines())
             if c["fields"]["pcap"] == name]
    exs = list(read_capture(path))
    for case in cases:
        f = case["fields"]
        (ex,) = [e for e in exs if e.client_id == f["client_id"] and e.correlation_id == f["correlation_id"]
                 and e.api_key == f["api_key"]]
        assert ex.source["frame"] == f["frame"] and ex.stream == f["tcp_stream"]
        tname = {"consumer-subscription": "ConsumerProtocolSubscription",
                 "consumer-assignment": "ConsumerProtocolAssignment"}[case["kind"]]
        want = plain(km.decode(tname, bytes.fromhex(case["hex"])))
        if case["kind"] == "consumer-subscription":
            got = [p["metadata"] for p in ex.request["protocols"]]
        else:
            got = [a["assignment"] for a in ex.request["assignments"]]
        nested = [{k: v for k, v in plain(g).items() if not k.startswith("_")} for g in got]
        assert any(all(n.get(k) == v or isinstance(n.get(k), dict) for k, v in want.items()) for n in nested)


def test_docs_example_runs(monkeypatch, capsys):
    import re

    from capture_support import ROOT

    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "capture.md").read_text(), re.S)
    plain = [b for b in blocks if "spark" not in b and "F." not in b]
    assert plain
    for block in plain:
        exec(compile(block, "docs/capture.md", "exec"), {})
    assert "range ['orders', 'payments']" in capsys.readouterr().out


def test_cooperative_owned_partitions_and_user_data():
    exs = exchanges(FIXTURES / "cfk_cooperative.pcapng")
    subs = [p["metadata"] for e in exs if e["apiName"] == "JoinGroup" for p in e["request"]["protocols"]]
    assert subs and all(s["_type"] == "ConsumerProtocolSubscription" and s["_version"] == 3 for s in subs)
    assert {s["rackId"] for s in subs} == {"rack-a"}
    rejoins = [s for s in subs if s["ownedPartitions"]]
    assert rejoins and all(s["userData"]["_type"] == "CooperativeStickyAssignorUserData" for s in rejoins)
    assert all(0 <= s["userData"]["generation"] <= s["generationId"] for s in rejoins)
    handed_out = [a["assignment"] for e in exs if e["apiName"] == "SyncGroup" for a in e["request"]["assignments"]]
    assert handed_out and all(a["_type"] == "ConsumerProtocolAssignment" for a in handed_out)


def test_streams_shaped_metadata():
    exs = exchanges(FIXTURES / "aio_streams.pcapng")
    joins = [e for e in exs if e["apiName"] == "JoinGroup"]
    subs = [p["metadata"] for e in joins for p in e["request"]["protocols"]]
    assert subs and all(p["name"] == "stream" for e in joins for p in e["request"]["protocols"])
    infos = [s["userData"] for s in subs] + [m["metadata"]["userData"] for e in joins for m in e["response"]["members"]]
    assert len(infos) > len(subs)  # the leader's JoinGroup response lists the members' metadata too
    assert all(i["_type"] == "SubscriptionInfo" and i["_version"] == 11 and i["userEndPoint"] == b"localhost:8080"
               for i in infos)
    synced = [e["response"]["assignment"]["userData"] for e in exs if e["apiName"] == "SyncGroup"
              and e["errorCode"] == 0]
    assert synced and all(a["_type"] == "AssignmentInfo" and a["commonlySupportedVersion"] == 11 for a in synced)
    assert all(sorted(t["partition"] for t in a["activeTasks"]) for a in synced)


def test_other_traffic_left_alone():
    """Plain HTTP beside Kafka in one capture: its connections (SYN and all) are not taken for Kafka."""
    path = FIXTURES / "cfk_with_http.pcapng"
    exs, problems = everything(path)
    assert not problems and exs
    assert {e["broker"] for e in exs} == {exs[0]["broker"]}
    http = subprocess.run(["tshark", "-r", str(path), "-Y", "http.request", "-T", "fields", "-e", "tcp.stream"],
                          capture_output=True, text=True, check=True).stdout.split() if shutil.which("tshark") else []
    assert not {int(s) for s in http} & {e["stream"] for e in exs}
    assert all(e["groupId"] in (None, "g-cfk-http") for e in exs)


def test_an_open_stream_reads_like_its_file():
    import gzip
    import io

    path = FIXTURES / "cfk_cooperative.pcapng"

    def without_source(exchanges) -> list[dict]:
        return [{k: v for k, v in e.to_dict().items() if k != "source"} for e in exchanges]

    from_file = without_source(read_capture(path))
    stream = io.BytesIO(path.read_bytes())
    from_stream = list(read_capture(stream))
    assert without_source(from_stream) == from_file
    assert {e.to_dict()["source"]["file"] for e in from_stream} == {"<stream>"}  # a stream with no name
    assert not stream.closed  # the caller's stream is left open
    assert without_source(read_capture(io.BytesIO(gzip.compress(path.read_bytes())))) == from_file


def test_a_text_stream_is_refused_clearly():
    import io

    from kafka_meta.capture import CaptureError

    with pytest.raises(CaptureError, match="text stream; open the capture in binary mode"):
        list(read_capture(io.StringIO("\x0a\x0d\x0d\x0a not bytes")))
    # a real capture opened in text mode: its bytes are no UTF-8, and reading them is not even tried
    real = FIXTURES / "aio_range.pcapng"
    with open(real, encoding="utf-8") as text, pytest.raises(CaptureError, match="text stream"):
        list(read_capture(text))
