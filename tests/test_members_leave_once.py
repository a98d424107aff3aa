"""Every member leaves once: the coordinator removes a member once per membership (a LeaveGroup or a leave
heartbeat, or its session timing out), whichever group kind it is in (classic, KIP-848 consumer, KIP-932 share,
KIP-1071 streams), so the timeline tells each membership's end at most once, and tells it as the clients lived
it. The lab's recordings (fixtures/lab, a real Kafka 4.4.0 broker) are read from the capture, from the broker's
log directory and from both; their truth.jsonl says which members left cleanly and which were killed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_truth import recording, recordings, steps, truth

from kafka_meta.analysis.assemble import Timeline, build_timeline
from kafka_meta.analysis.causes import KINDS
from kafka_meta.analysis.timeline import GroupTimeline, Round
from kafka_meta.inputs import read

GONE = ("departure", "poll-timeout", "expiry", "leave")
# an emptied group's cause cites the departures that emptied it, as the rounds' causes are written
CITED = re.compile("(" + "|".join(re.escape(KINDS[k]) for k in GONE) + r"): ([^\s(),]+)")
BY_LABEL = {KINDS[k]: k for k in GONE}
SOURCES = {"capture": ("capture.pcapng",), "log": ("kafka-logs",), "both": ("capture.pcapng", "kafka-logs")}
SERVER_SIDE = ("consumer", "share", "streams-group")  # the recordings of KIP-848, KIP-932 and KIP-1071 groups


def timeline(path: Path, source: str) -> Timeline:
    inputs = read([str(path / part) for part in SOURCES[source]])
    return build_timeline(inputs.exchanges, inputs.offsets)


def departures(r: Round) -> Iterator[tuple[str | None, str]]:
    """(member, kind) for each member the round tells gone, an emptied group's last ones included."""
    for c in r.causes:
        if c.kind in GONE:
            yield c.member, c.kind
        elif c.kind == "emptied":
            for label, member in CITED.findall(c.detail):
                yield member, BY_LABEL[label]


def told(g: GroupTimeline) -> list[tuple[int | None, str | None, str]]:
    return [(r.generation, member, kind) for r in g.rounds for member, kind in departures(r)]


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name)
def test_a_membership_ends_at_most_once(path, source):
    """Between a member's last round and its next arrival it is told gone once, not again in later rounds."""
    for g in timeline(path, source).groups:
        departed: dict[str, int | None] = {}  # member -> the round that told it gone
        for r in g.rounds:
            for member, kind in departures(r):
                assert member not in departed, (g.group, member, kind, r.generation, departed.get(member or ""))
                departed[member or ""] = r.generation
            for m in r.members:
                departed.pop(m.member_id, None)  # here again (a new membership, or it never went)


def _truth_departures(path: Path, group: str) -> list[str]:
    """'leave' for each step that stops a member of ``group`` cleanly, 'expiry' for each that kills one, in
    order (a step names its group when the scenario has several)."""
    out = []
    for step in steps(path):
        text = step["step"]
        if step.get("group", group) != group:
            continue
        if text.endswith(" is killed"):
            out.append("expiry")
        elif text.endswith(" leaves"):
            out.append("leave")
    return out


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("name", SERVER_SIDE)
def test_departures_are_the_ones_the_clients_lived(name, source):
    """Per group of the server-side protocols: the capture tells each clean leave (a heartbeat with epoch -1,
    the last one's too, though nobody hears the epoch it empties the group at) and each kill (its session timed
    out) as the scenario's steps did them, in order, each member once; the log, which writes the same
    tombstones either way, tells each as a departure."""
    path = recording(name)
    if path is None:
        pytest.skip(f"no {name} recording")
    groups = timeline(path, source).groups
    assert groups
    for g in groups:
        kinds = [kind for _, _, kind in told(g)]
        members = [member for _, member, _ in told(g)]
        expected = _truth_departures(path, g.group)
        assert expected
        assert len(set(members)) == len(members), told(g)
        assert kinds == (["departure"] * len(expected) if source == "log" else expected), (g.group, told(g))


def test_the_streams_group_s_two_clean_leaves():
    """The KIP-1071 streams group (Kafka Streams 4.4.0): streams-b leaves at epoch 5, streams-a at epoch 6,
    both closing cleanly (truth.jsonl: streams_closed clean); neither is told gone twice, neither as expired."""
    path = recording("streams-group")
    if path is None:
        pytest.skip("no streams-group recording")
    closed = [e["source"] for e in truth(path) if e["event"] == "streams_closed" and e["clean"]]
    assert closed == ["streams-b", "streams-a"]
    for source in SOURCES:
        g = timeline(path, source).group("lab-wordcount-streams")
        clients = {m.member_id: m.client_id for r in g.rounds for m in r.members}
        got = [(generation, clients[member].split("-StreamThread")[0], kind) for generation, member, kind in told(g)]
        kind = "departure" if source == "log" else "leave"
        assert got == [(5, "streams-b", kind), (6, "streams-a", kind)], source


def test_a_member_fenced_once_though_later_epochs_carry_on():
    """A member whose leave heartbeat is not on the wire (killed, or the packet lost) is fenced when its session
    times out, at the first epoch it missed; the later epochs (here a kill and a leave follow) do not tell it
    again. The consumer recording with b's leave heartbeat taken out: b, c and a go, each once."""
    path = recording("consumer")
    if path is None:
        pytest.skip("no consumer recording")
    exchanges = read([str(path / "capture.pcapng")]).exchanges
    uniform = [e for e in exchanges if (e["request"] or {}).get("groupId") == "lab-consumer-uniform"
               and e["apiName"] == "ConsumerGroupHeartbeat"]
    b = next(e["request"]["memberId"] for e in uniform if e["clientId"].endswith("-b"))
    leave = [e for e in uniform if e["request"]["memberId"] == b and e["request"]["memberEpoch"] == -1]
    assert len(leave) == 1
    g = build_timeline([e for e in exchanges if e is not leave[0]]).group("lab-consumer-uniform")
    got = [(member, kind) for _, member, kind in told(g)]
    assert [kind for _, kind in got] == ["expiry", "expiry", "leave"] and got[0][0] == b, got
    assert len({member for member, _ in got}) == 3
    assert all(r.member(b) is None for r in g.rounds if r.generation > told(g)[0][0])
