"""From the log alone, a member gone sooner than its session timeout could expire it left; a static member gone
later expired. Held to what the lab's real Java clients did (truth.jsonl: ``closed`` with the membership
operation they closed with, ``killed``): every leave the log infers is a client that closed with a
LeaveGroup, and every static member's expiry is one that sent none."""

from __future__ import annotations

from pathlib import Path

import pytest
from lab_truth import recordings, truth

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.inputs import read


def _how_each_membership_ended(path: Path) -> dict[str, str]:
    """Per member id, how its client ended that membership: "leave" (closed with a LeaveGroup: a dynamic
    member's default, a static member's LEAVE_GROUP) or "silent" (killed, or a static member closed with its
    DEFAULT): the client's first close or kill after the member's last rebalance callback."""
    events = truth(path)
    static = {e["source"] for e in events if e["event"] == "start" and e.get("instance")}
    last_seen: dict[str, tuple[str, int]] = {}
    for e in events:
        if e["event"] == "assigned" and e.get("member_id"):
            last_seen[e["member_id"]] = (e["source"], e["ts"])
    ends: dict[str, list[tuple[int, str]]] = {}
    for e in events:
        if e["event"] == "killed":
            ends.setdefault(e.get("member") or e["source"], []).append((e["ts"], "silent"))
        elif e["event"] == "closed":
            silent = e["source"] in static and e.get("membership") in (None, "DEFAULT")
            ends.setdefault(e["source"], []).append((e["ts"], "silent" if silent else "leave"))
    out = {}
    for member, (client, ts) in last_seen.items():
        after = [how for at, how in sorted(ends.get(client, [])) if at >= ts]
        if after:
            out[member] = after[0]
    return out


CLASSIC_LOGS = [p for p in recordings() if (p / "kafka-logs").is_dir()]


@pytest.mark.parametrize("path", CLASSIC_LOGS, ids=lambda p: p.name)
def test_leaves_and_static_expiries_the_log_infers_are_what_the_clients_did(path):
    timeline = build_timeline(offsets_rows=read([str(path / "kafka-logs")]).offsets)
    ended = _how_each_membership_ended(path)
    checked = 0
    for tl in timeline.groups:
        for r in tl.rounds:
            for c in r.causes:
                inferred = ("leave" if c.kind == "leave"
                            else "silent" if c.kind == "expiry" and "static member" in (c.detail or "") else None)
                if inferred is None or c.member not in ended:
                    continue
                assert inferred == ended[c.member], (tl.group, r.generation, c.member, inferred)
                checked += 1
    if path.name == "static":
        assert checked >= 5  # a stop and two bounces past the timeout (silent), then leaves at the end
