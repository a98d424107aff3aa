"""kafka-meta explain and kafka-meta simulate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kafka_meta.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_explain_message(capsys):
    code, out, _ = run(capsys, ["explain", "--message", "used version 5; latest supported version 4"])
    assert code == 0 and "three places" in out
    code, _, err = run(capsys, ["explain", "--message", "nothing to see"])
    assert code == 1 and "no version message" in err  # the text is the input, and holds nothing to explain


def test_explain_offsets_dump(capsys):
    code, out, _ = run(capsys, ["explain", str(ROOT / "fixtures/offsets/sample.jsonl")])
    assert code == 0
    assert "group billing: 1 member on v3, 1 on v1 of the consumer protocol" in out
    code, out, _ = run(capsys, ["explain", "--json", str(ROOT / "fixtures/offsets/sample.jsonl")])
    docs = [json.loads(line) for line in out.splitlines()]
    assert {d["group"] for d in docs} >= {"billing", "ledger", "audit"}
    assert all(d["kind"] == "consumer" for d in docs)


def test_explain_reads_the_readme_sample_and_captures(capsys):
    """The README's sample mixes records and payloads: every group in it is explained, the one whose bytes do not
    decode is named, and the rest still printed; captures give each group's newest generation."""
    code, out, err = run(capsys, ["explain", "--json", str(ROOT / "fixtures/captures/capture.jsonl")])
    docs = {d["group"]: d for d in map(json.loads, out.splitlines())}
    assert code == 1 and {"audit", "word-count"} <= set(docs) and docs["word-count"]["kind"] == "streams"
    assert "group orders: bad-1: ConsumerProtocolSubscription v3, field topics, byte 2" in err
    code, out, err = run(capsys, ["explain", "--json", str(ROOT / "fixtures/captures/pcap"),
                                  str(ROOT / "fixtures/lab/streams-upgrade/capture.pcapng")])
    docs = {d["group"]: d for d in map(json.loads, out.splitlines())}
    assert code == 1 and {"g-aio-range", "g-kjs", "g-aio-streams", "lab-wordcount-upgrade"} <= set(docs)
    assert "the capture ends inside a response" in err  # damage read around is said, and the rest explained
    assert docs["lab-wordcount-upgrade"]["kind"] == "streams" and docs["g-kjs"]["kind"] == "consumer"


def test_captured_members_are_the_bytes_the_capture_holds():
    """explain works from bytes: a captured member's subscription and assignment, decoded by the capture reader,
    become the exact bytes on the wire again (the user data from the client view, which keeps it raw)."""
    from kafka_meta.capture import read_capture
    from kafka_meta.negotiation.capture import groups_from_exchanges

    exchanges = [e.to_dict() for e in read_capture(ROOT / "fixtures/lab/streams-upgrade/capture.pcapng")]
    groups = groups_from_exchanges(exchanges)
    joins = [m for e in exchanges if e["apiKey"] == 11 and e["response"] for m in e["response"].get("members") or []]
    assert groups and all(m.subscription and m.assignment for g in groups for m in g.members)
    import kafka_meta as km

    for group in groups:
        for member in group.members:
            sent = next(j["metadata"] for j in reversed(joins) if j["memberId"] == member.member_id)
            again = km.decode("ConsumerProtocolSubscription", member.subscription)
            assert again.version == sent["_version"] and bytes(again.user_data) == sent["clientView"]["userData"]
            assert km.encode(again) == member.subscription


def test_explain_needs_input(capsys):
    code, _, err = run(capsys, ["explain"])
    assert code == 2 and "INPUT" in err


def test_explain_bad_lines(capsys, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"member": "a"}\n')
    code, _, err = run(capsys, ["explain", str(bad)])
    assert code == 1 and "line 1" in err
    bad.write_text("not json\n")
    code, _, err = run(capsys, ["explain", str(bad)])
    assert code == 1 and "not JSON" in err  # the file is there: what it holds could not be read


def test_simulate_consumer_table_and_json(capsys):
    code, out, _ = run(capsys, ["simulate", "--kind", "consumer", "--from", "2.3", "--to", "3.9", "--members", "3",
                                "--order", "reverse"])
    assert code == 0
    assert out.splitlines()[0].split()[:4] == ["round", "gen", "trigger", "assignor"]
    assert "OK: invariants held" in out
    code, out, _ = run(capsys, ["simulate", "--kind", "consumer", "--from", "3.9", "--to", "3.9", "--json",
                                "--assignors", "cooperative-sticky"])
    doc = json.loads(out)
    assert code == 1 and not doc["ok"]
    assert any("InconsistentGroupProtocolException" in p for p in doc["problems"])


def test_simulate_argument_errors(capsys):
    code, _, err = run(capsys, ["simulate", "--from", "2.3", "--to", "3.9", "--assignors", "range"])
    assert code == 2 and "--kind consumer" in err
    code, _, err = run(capsys, ["simulate", "--from", "2.3", "--to", "3.9", "--order", "m0,m0,m1"])
    assert code == 2 and "every member once" in err
    code, _, err = run(capsys, ["simulate", "--from", "2.9", "--to", "3.9"])
    assert code == 2 and "2.9" in err


def test_simulate_streams(capsys):
    code, out, _ = run(capsys, ["simulate", "--from", "2.3", "--to", "3.9", "--members", "5",
                                "--upgrade-from", "2.3", "--order", "leader-last", "--order", "reverse"])
    assert code == 0, out
    assert "final: every member on v11" in out and "OK: invariants held" in out
    code, out, _ = run(capsys, ["simulate", "--from", "2.3", "--to", "3.9", "--members", "3", "--json"])
    doc = json.loads(out)
    assert code == 1 and not doc["ok"]
    assert any("still owned it" in p for p in doc["problems"])
    assert doc["rounds"][0]["members"][0]["sent"] == "v4"


def test_simulate_streams_refused_upgrade_from(capsys):
    code, out, _ = run(capsys, ["simulate", "--from", "2.3", "--to", "4.0", "--upgrade-from", "2.3"])
    assert code == 1 and "ConfigException from StreamsPartitionAssignor" in out


def test_explain_streams_capture(capsys, tmp_path):
    from test_negotiation_explain import golden_streams, wrap_subscription

    lines = [{"member": "a", "subscription": wrap_subscription(golden_streams("subscription", 11, 11)),
              "leader": True, "protocol": "stream"},
             {"member": "b", "subscription": wrap_subscription(golden_streams("subscription", 8, 8))}]
    path = tmp_path / "group.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    code, out, _ = run(capsys, ["explain", str(path), "--release", "a=3.9"])
    assert code == 0
    assert out.startswith("1 member on v11, 1 on v8: the leader (a, 3.9.0) encodes v8 for everyone")
    code, _, err = run(capsys, ["explain", str(path), "--release", "a"])
    assert code == 2 and "MEMBER=RELEASE" in err


def test_simulate_leader_succession(capsys):
    # before KAFKA-8649 a new-code leader breaks the 2.0 members; bouncing the leader last avoids it
    code, out, _ = run(capsys, ["simulate", "--from", "2.0", "--to", "2.1", "--succession", "newest"])
    assert code == 1 and "unknown metadata version 4; latest supported version 3" in out
    assert "leader succession: newest" in out
    code, out, _ = run(capsys, ["simulate", "--from", "2.0", "--to", "2.1", "--succession", "newest",
                                "--order", "leader-last", "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["ok"] and doc["succession"] == "newest" and doc["rebalances"] == 7
    with pytest.raises(SystemExit):
        main(["simulate", "--from", "2.0", "--to", "2.1", "--succession", "random"])
    assert "invalid choice: 'random'" in capsys.readouterr().err


def test_simulate_static_members_and_future_code(capsys):
    code, out, _ = run(capsys, ["simulate", "--from", "3.9", "--to", "4.0", "--members", "3", "--static", "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["ok"] and doc["rebalances"] == 1
    assert [r["rebalance"] for r in doc["rounds"]] == [True, False, False, False]
    code, out, _ = run(capsys, ["simulate", "--from", "3.9", "--to", "4.0", "--static", "--downtime-ms", "20000",
                                "--session-timeout-ms", "10000"])
    assert code == 0 and "m0's session expires" in out
    code, out, _ = run(capsys, ["simulate", "--from", "3.9", "--to", "latest+1", "--members", "2"])
    assert code == 0 and "future v12" in out and "every member on v12" in out
    code, out, _ = run(capsys, ["simulate", "--from", "2.3", "--to", "2.3.1", "--static", "--json"])
    assert code == 0 and json.loads(out)["rebalances"] == 1


def test_simulate_kafka_tests(capsys):
    code, out, _ = run(capsys, ["simulate", "--kafka-tests", "--seed", "5"])
    assert code == 0 and out.count("as Kafka expects") == 175 and "NOT" not in out
    assert "4.2 test_upgrade_downgrade_state_updater[4.2.1 -> 3.2.3] (downgrade)" in out
    assert "trunk-2024 test_version_probing_upgrade[3.9 -> 3.9+1] (future)" in out
    code, out, _ = run(capsys, ["simulate", "--kafka-tests", "--suite", "trunk-2024", "--json"])
    doc = json.loads(out)
    assert code == 0 and len(doc) == 31 and all(case["asKafkaExpects"] for case in doc)
    assert doc[0]["bounces"][0]["instances"]["processor1"]["sent"] == "v1"
    code, _, err = run(capsys, ["simulate", "--to", "3.9"])
    assert code == 2 and "--from and --to" in err


def test_explain_restart(capsys):
    code, out, _ = run(capsys, ["explain", "--restart", "3.9", "--instance-id", "app-1", "--downtime-ms", "5000"])
    assert code == 0 and out.startswith("no rebalance: static member app-1 rejoined within its session timeout")
    code, out, _ = run(capsys, ["explain", "--restart", "2.8", "--instance-id", "app-1", "--downtime-ms", "20000",
                                "--json"])
    doc = json.loads(out)
    assert code == 0 and doc["expired"] and doc["rebalances"] == 2      # 2.8's default session timeout is 10 s
    code, _, err = run(capsys, ["explain", "--restart", "9.9"])
    assert code == 2 and "9.9" in err
