"""A finding says what to change: the settings its rounds point at, with their values now.

Held to the lab's storm recording (a real Java consumer whose batches take 7 s against a 5 s
``max.poll.interval.ms``: truth.jsonl's ``slow_batch`` events) and to rounds built for the other causes.
"""

from __future__ import annotations

import json
from pathlib import Path

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.causes import Cause
from kafka_meta.analysis.findings import find
from kafka_meta.analysis.remedies import client_name, crash_remedy, storm_remedy, stuck_upgrade_remedy
from kafka_meta.analysis.timeline import MemberRound, Round
from kafka_meta.inputs import read

STORM = Path(__file__).parent.parent / "fixtures" / "lab" / "storm"


def _storm_finding(*parts: str):
    inputs = read([str(STORM / p) for p in parts])
    timeline = build_timeline(inputs.exchanges, inputs.offsets).group("lab-storm")
    storms = [f for f in find(timeline) if f.kind == "storm"]
    assert len(storms) == 1
    return storms[0]


def _slow_client_and_its_batches() -> tuple[str, int]:
    slow = [json.loads(line) for line in (STORM / "truth.jsonl").read_text().splitlines()]
    batches = [e for e in slow if e["event"] == "slow_batch"]
    assert {e["source"] for e in batches} == {"lab-storm-b"}
    return "lab-storm-b", min(e["ms"] for e in batches)


def test_a_poll_timeout_storm_names_the_slow_client_and_its_poll_interval():
    client, batch_ms = _slow_client_and_its_batches()
    f = _storm_finding("capture.pcapng")
    assert f.remedy is not None
    assert f.remedy.settings[:2] == ("max.poll.interval.ms", "max.poll.records")
    assert f.remedy.clients == (f"{client} on 127.0.0.1",)
    # the client joined with max.poll.interval.ms = 5000 (JoinGroup's rebalance timeout), below its 7 s batches
    assert "(now 5000 ms)" in f.remedy.text and batch_ms > 5000
    assert f"set off by {client} on 127.0.0.1" in f.summary
    assert f.to_json()["remedy"]["settings"][0] == "max.poll.interval.ms"


def test_the_log_alone_cannot_tell_a_poll_timeout_from_an_expiry_and_says_so():
    f = _storm_finding("kafka-logs")
    assert f.remedy is not None
    assert f.remedy.settings == ("max.poll.interval.ms", "session.timeout.ms", "group.instance.id")
    # the recorded members carry both timeouts: GroupMetadataValue's rebalanceTimeout and sessionTimeout
    assert "(now 5000 ms)" in f.remedy.text and "(now 10000 ms)" in f.remedy.text


def test_capture_and_log_together_give_the_captures_reason():
    f = _storm_finding("capture.pcapng", "kafka-logs")
    assert f.remedy is not None and f.remedy.settings[0] == "max.poll.interval.ms"


def _member(member_id: str, instance: str | None = None) -> MemberRound:
    return MemberRound(member_id, client_id="app", client="/10.0.0.7", instance_id=instance, session_timeout_ms=45000)


def _rounds(kinds: list[str], protocol: str = "range", instance: str | None = None) -> list[Round]:
    rounds = []
    for i, kind in enumerate(kinds):
        m = _member(f"app-{i}", instance)
        rounds.append(Round("g", "capture", generation=i + 1, start=float(i), protocol=protocol, members=[m],
                            causes=[Cause(kind, m.member_id)]))
    return rounds


def test_an_expiring_client_that_comes_back_is_told_static_membership():
    rounds = _rounds(["expiry", "rejoin", "expiry", "rejoin"])
    remedy = storm_remedy(rounds, rounds)
    assert remedy is not None and remedy.settings[0] == "group.instance.id"
    assert "(now 45000 ms)" in remedy.text and remedy.clients == ("app on 10.0.0.7",)


def test_a_static_member_that_expires_is_told_its_session_timeout():
    rounds = _rounds(["expiry", "rejoin", "expiry"], instance="app-1")
    remedy = storm_remedy(rounds, rounds)
    assert remedy is not None and remedy.settings == ("session.timeout.ms", "heartbeat.interval.ms")


def test_rounds_with_nothing_changed_under_an_eager_assignor_point_at_cooperative_sticky():
    rounds = _rounds(["no-change"] * 3)
    remedy = storm_remedy(rounds, rounds)
    assert remedy is not None and remedy.settings == ("partition.assignment.strategy",)
    assert "CooperativeStickyAssignor" in remedy.text
    cooperative = _rounds(["no-change"] * 3, protocol="cooperative-sticky")
    assert storm_remedy(cooperative, cooperative).settings == ("metadata.max.age.ms",)


def test_rounds_that_name_no_member_have_no_remedy():
    rounds = [Round("g", "capture", generation=1, causes=[Cause("no-change")])]
    assert storm_remedy(rounds, rounds) is None


def test_client_names_drop_the_port_and_the_log_s_slash():
    assert client_name(MemberRound("m", client_id="c", client="127.0.0.1:5123")) == "c on 127.0.0.1"
    assert client_name(MemberRound("m", client_id="c", client="/10.1.2.3")) == "c on 10.1.2.3"
    assert client_name(MemberRound("m")) == "m"


def test_streams_upgrades_and_kip848_crashes_name_their_settings():
    assert stuck_upgrade_remedy(True).settings == ("upgrade.from",)
    assert crash_remedy(None, kip848=True).settings == ("group.consumer.session.timeout.ms",)
    assert "(now 45000 ms)" in crash_remedy(_member("x"), kip848=False).text
