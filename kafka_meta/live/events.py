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
TRANSACTION = "transaction"  # a transaction ended (committed or aborted), as __transaction_state recorded it
FINDING = "finding"  # a finding became true: a transaction open past its timeout, a producer fenced; told once
SNAPSHOT = "snapshot"  # every group as it stands (periodically, and at the end)
PROBLEM = "problem"  # something read that could not be read (an undecodable record, a describe error)
CATCHING_UP = "catching-up"  # the reader is behind the log end (at the start, or fallen behind again): how far
CAUGHT_UP = "caught-up"  # the reader reached the log end (told once each time it does)
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


TaskIds = dict[str, list[int]]  # subtopology id -> its partitions, one task each


@dataclass
class StreamsTasks:
    """A Kafka Streams member's tasks, per subtopology, as StreamsGroupDescribe gives them: active tasks process
    records, standby tasks keep a copy of the state, warm-up tasks catch up before becoming active."""

    active: TaskIds = field(default_factory=dict)
    standby: TaskIds = field(default_factory=dict)
    warmup: TaskIds = field(default_factory=dict)

    def key(self) -> tuple[tuple[tuple[str, tuple[int, ...]], ...], ...]:
        """The tasks as one comparable value (a change of any of them is a change of the member)."""
        return tuple(tuple(sorted((s, tuple(p)) for s, p in kind.items()))
                     for kind in (self.active, self.standby, self.warmup))

    def to_json(self) -> dict[str, TaskIds]:
        return {"active": self.active, "standby": self.standby, "warmup": self.warmup}


@dataclass
class DescribedMember:
    member_id: str
    client_id: str | None = None
    host: str | None = None
    instance_id: str | None = None
    epoch: int | None = None  # KIP-848, share and streams: the member epoch
    assigned: list[str] = field(default_factory=list)  # "topic-partition", sorted (streams: none, see tasks)
    tasks: StreamsTasks | None = None  # streams: the tasks it holds now
    topology_epoch: int | None = None  # streams: the topology epoch the member runs
    process_id: str | None = None  # streams: its Kafka Streams instance (several members may share one)

    def key(self) -> tuple[str, tuple[str, ...], tuple[Any, ...] | None]:
        return self.member_id, tuple(self.assigned), None if self.tasks is None else self.tasks.key()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"memberId": self.member_id, "clientId": self.client_id, "host": self.host,
                               "instanceId": self.instance_id, "epoch": self.epoch, "assigned": self.assigned}
        if self.tasks is not None:
            out.update(tasks=self.tasks.to_json(), topologyEpoch=self.topology_epoch, processId=self.process_id)
        return out


@dataclass
class GroupDescription:
    """A group as its coordinator describes it now: ``kind`` is the group type ListGroups gave (classic,
    consumer, share, streams); ``epoch`` the group epoch (None for classic groups: DescribeGroups does not say
    the generation); ``members`` None when the group was only listed, not described, and then ``note`` says
    why when that is not the usual (the broker cannot describe groups of its kind)."""

    group: str
    kind: str
    state: str | None = None
    epoch: int | None = None
    protocol: str | None = None  # classic: the protocol (assignor) chosen; KIP-848, share, streams: the assignor
    members: list[DescribedMember] | None = None
    error: str | None = None
    assignment_epoch: int | None = None  # KIP-848, share, streams: the epoch of the assignment in force
    topology_epoch: int | None = None  # streams: the epoch of the topology the group runs
    note: str | None = None

    def same_as(self, other: GroupDescription | None) -> bool:
        """Whether ``other`` says the same of the group (state, epoch, who is in it and what each holds)."""
        return other is not None and self.summary() == other.summary()

    def summary(self) -> tuple[Any, ...]:
        """What a change of is news: state, epochs, error, and who is in the group holding what."""
        members = None if self.members is None else tuple(sorted((m.key() for m in self.members), key=str))
        return self.state, self.epoch, self.assignment_epoch, self.topology_epoch, self.error, members

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "state": self.state, "epoch": self.epoch, "protocol": self.protocol,
                               "members": None if self.members is None else [m.to_json() for m in self.members],
                               "error": self.error}
        for name, value in (("assignmentEpoch", self.assignment_epoch), ("topologyEpoch", self.topology_epoch),
                            ("note", self.note)):
            if value is not None:
                out[name] = value
        return out
