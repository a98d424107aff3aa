"""What the live core hands out: events (a JSON line each under ``--format json``) and what a describe request
said of a group."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# the kinds of events, in the order a watch usually meets them
CONNECTED = "connected"  # the cluster answered (first time, or again after it went away)
DISCONNECTED = "disconnected"  # the cluster stopped answering: watch keeps trying
ROUND = "round"  # a generation (classic) or group epoch (KIP-848, share, streams) recorded in __consumer_offsets
STATE = "state"  # a describe request found a group in another state, epoch or membership than before
SNAPSHOT = "snapshot"  # every group as it stands (periodically, and at the end)
PROBLEM = "problem"  # something read that could not be read (an undecodable record, a describe error)
END = "end"  # the watch ended (its duration ran out, or it was interrupted)


@dataclass
class Event:
    """One thing that happened, with the wall-clock time it was seen (``at``, epoch seconds)."""

    kind: str
    at: float
    group: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind, "at": round(self.at, 3)}
        if self.group is not None:
            out["group"] = self.group
        out.update(self.detail)
        return out


@dataclass
class DescribedMember:
    member_id: str
    client_id: str | None = None
    host: str | None = None
    instance_id: str | None = None
    epoch: int | None = None  # KIP-848: the member epoch
    assigned: list[str] = field(default_factory=list)  # "topic-partition", sorted

    def to_json(self) -> dict[str, Any]:
        return {"memberId": self.member_id, "clientId": self.client_id, "host": self.host,
                "instanceId": self.instance_id, "epoch": self.epoch, "assigned": self.assigned}


@dataclass
class GroupDescription:
    """A group as its coordinator describes it now: ``kind`` is the group type ListGroups gave (classic,
    consumer, share, streams); ``epoch`` the group epoch (None for classic groups: DescribeGroups does not say
    the generation); ``members`` None when the group was only listed, not described."""

    group: str
    kind: str
    state: str | None = None
    epoch: int | None = None
    protocol: str | None = None  # classic: the protocol (assignor) chosen; KIP-848: the assignor
    members: list[DescribedMember] | None = None
    error: str | None = None

    def same_as(self, other: GroupDescription | None) -> bool:
        """Whether ``other`` says the same of the group (state, epoch, who is in it and what each holds)."""
        return other is not None and (self.state, self.epoch, self.error, self.member_key()) == (
            other.state, other.epoch, other.error, other.member_key())

    def member_key(self) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
        if self.members is None:
            return None
        return tuple(sorted((m.member_id, tuple(m.assigned)) for m in self.members))

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "state": self.state, "epoch": self.epoch, "protocol": self.protocol,
                "members": None if self.members is None else [m.to_json() for m in self.members],
                "error": self.error}
