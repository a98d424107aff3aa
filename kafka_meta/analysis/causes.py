"""Why a round started, in a closed vocabulary that the findings can count on.

An operator reads a burst of rebalances two ways. Rounds explained by members deliberately joining, leaving or
restarting (a scale-out, a deploy) are churn: expected, over when the deploy is. Rounds that repeat while the
membership stays what it was (a member expired because it stopped heartbeating, a consumer that exceeded
``max.poll.interval.ms`` and rejoins at its next poll, a static member bounced past its session timeout, a
rejoin nobody asked for) are a storm: something is wrong and it will not stop by itself. So each round gets
one or more :class:`Cause`, each of a kind from :data:`KINDS`, and the kind says which of the two it is.

What tells them apart on the wire: KIP-800 (JoinGroup v8, LeaveGroup v5 and later) carries the client's own
reason ("the consumer is being closed", "consumer poll timeout has expired..."); a member gone without a
LeaveGroup was expired by the coordinator; a client coming back is recognised by its ``group.instance.id``,
or by its client id and host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from kafka_meta.analysis.member_names import host_of

# kind -> how the round's "why" column says it
KINDS = {
    "first": "first round seen",
    "join": "member joined",
    "restart": "member restarted",
    "leave": "member left",
    "poll-timeout": "member left: poll timeout",
    "expiry": "member expired",
    "departure": "member left or expired",
    "rejoin": "member rejoined",
    "subscription": "subscription changed",
    "metadata": "metadata changed",
    "no-change": "rebalance without a membership change",
    "follow-up": "cooperative follow-up",
    "probing": "version probing follow-up",
    "epoch": "group epoch bumped by the coordinator",
    "emptied": "group emptied",
}
# an operator's decision: a scale-out, a scale-in, a deploy, an upgrade
DELIBERATE = frozenset({"first", "join", "restart", "leave", "subscription", "metadata", "emptied", "departure"})
# the group rebalancing though nobody changed it
INVOLUNTARY = frozenset({"poll-timeout", "expiry", "rejoin", "no-change"})
# the second half of a rebalance already counted (KIP-429's follow-up, KIP-268's probing rejoin)
CONTINUATION = frozenset({"follow-up", "probing"})

# what a Java client (KIP-800) writes in LeaveGroup when its poll timer expired
POLL_TIMEOUT_MARKERS = ("poll timeout", "max.poll.interval.ms")


class CauseJson(TypedDict):
    """A cause as report.json writes it (:meth:`Cause.to_json`)."""

    kind: str
    member: str | None
    detail: str | None


@dataclass(frozen=True)
class Cause:
    kind: str  # a key of KINDS
    member: str | None = None  # the member it concerns (its id, or its client id before it has one)
    detail: str = ""  # the evidence in words: a LeaveGroup's reason, the versions that changed

    def __str__(self) -> str:
        label = KINDS.get(self.kind, self.kind)
        text = f"{label}: {self.member}" if self.member else label
        return f"{text} ({self.detail})" if self.detail else text

    @property
    def involuntary(self) -> bool:
        return self.kind in INVOLUNTARY

    def to_json(self) -> CauseJson:
        return {"kind": self.kind, "member": self.member, "detail": self.detail or None}


def is_poll_timeout(reason: str | None) -> bool:
    """A LeaveGroup reason saying the member's poll timer expired (Java: 'consumer poll timeout has expired')."""
    return bool(reason) and any(marker in reason.lower() for marker in POLL_TIMEOUT_MARKERS)  # type: ignore[union-attr]


def round_kind(causes: list[Cause]) -> str:
    """One word for a round: 'continuation' (the second half of a rebalance counted already), 'involuntary'
    (any cause nobody asked for) or 'deliberate'."""
    kinds = {c.kind for c in causes}
    if kinds and kinds <= CONTINUATION:
        return "continuation"
    if kinds & INVOLUNTARY:
        return "involuntary"
    return "deliberate"


class ClientMemory:
    """Which clients a group has seen and how each last went away, so a member coming back is told from a
    new one: by ``group.instance.id`` when it has one, else by client id and host (a restarted consumer
    gets a new member id but keeps its configuration)."""

    def __init__(self) -> None:
        self.departed: dict[str, str] = {}  # client key -> how it went: a Cause kind
        self.seen: set[str] = set()
        self.returns: dict[str, int] = {}  # client key -> how often it came back

    @staticmethod
    def key(instance_id: str | None, client_id: str | None, host: str | None) -> str | None:
        if instance_id:
            return f"instance:{instance_id}"
        if client_id:
            return f"client:{client_id}@{host_of(host)}"
        return None

    def arrival(self, key: str | None, present: bool = False) -> str:
        """The kind of a member's arrival: 'join' (a client never seen), 'restart' (the client restarted while
        its old member id was still in the group, as a rolling bounce does, or came back once after leaving
        of its own accord) or 'rejoin' (back after it was expired or timed out, or back yet again after
        going: a client that keeps coming and going is flapping, whatever it says when it goes)."""
        if key is None or key not in self.seen:
            return "join"
        if present:
            return "restart"
        how = self.departed.pop(key, None)
        if how is None:  # that client never went: another process with the same client id and host
            return "join"
        self.returns[key] = self.returns.get(key, 0) + 1
        if how in ("expiry", "poll-timeout", "rejoin") or self.returns[key] > 1:
            return "rejoin"
        return "restart"

    def arrived(self, key: str | None) -> None:
        if key is not None:
            self.seen.add(key)

    def departure(self, key: str | None, kind: str) -> None:
        if key is not None:
            self.departed[key] = kind
