"""What to simulate: the members of a group, what each runs, and the bounces of a rolling upgrade."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kafka_meta.negotiation.streams_versions import streams_code
from kafka_meta.simulate.coordinator import Succession

KEEP = "<keep>"
"""A bounce field left at KEEP keeps the member's current setting."""

STREAMS = "streams"
CONSUMER = "consumer"


@dataclass(frozen=True)
class MemberSetup:
    """One member's code and configuration. ``upgrade_from`` matters to Streams members, ``assignors``
    (``partition.assignment.strategy``, in order of preference) to plain consumers."""

    release: str
    upgrade_from: str | None = None
    assignors: tuple[str, ...] = ("range",)
    instance_id: str | None = None      # group.instance.id: a static member (KIP-345)
    topics: tuple[str, ...] | None = None   # consumers: the subscription (None: every topic of the scenario)

    def __post_init__(self) -> None:
        streams_code(self.release)   # a release, or (Streams) future code by its latest version: "v12"


@dataclass(frozen=True)
class Bounce:
    """Restart one member, optionally with another release and configuration."""

    member: str
    release: str = KEEP
    upgrade_from: str | None = KEEP
    assignors: tuple[str, ...] | str = KEEP
    downtime_ms: int = 0        # how long the member is away (matters to static members: session timeout)

    def apply(self, setup: MemberSetup) -> MemberSetup:
        return MemberSetup(
            release=setup.release if self.release == KEEP else self.release,
            upgrade_from=setup.upgrade_from if self.upgrade_from == KEEP else self.upgrade_from,
            assignors=setup.assignors if self.assignors == KEEP else tuple(self.assignors),
            instance_id=setup.instance_id,
            topics=setup.topics,
        )

    def describe(self, before: MemberSetup, kind: str) -> str:
        after = self.apply(before)
        parts = [f"bounce {self.member}"]
        if after.release != before.release:
            parts.append(f"-> {after.release}")
        if kind == STREAMS and after.upgrade_from != before.upgrade_from:
            parts.append(f"upgrade.from={after.upgrade_from}" if after.upgrade_from else "upgrade.from unset")
        if kind == CONSUMER and after.assignors != before.assignors:
            parts.append(f"[{','.join(after.assignors)}]")
        return " ".join(parts)


@dataclass(frozen=True)
class Join:
    """A new member joins (scaling out)."""

    member: str
    setup: MemberSetup

    def describe(self, kind: str) -> str:
        return f"{self.member} joins on {self.setup.release}"


@dataclass(frozen=True)
class Leave:
    """A member leaves for good (scaling in)."""

    member: str

    def describe(self, kind: str) -> str:
        return f"{self.member} leaves"


@dataclass(frozen=True)
class Resubscribe:
    """Every member's subscription changes to ``topics`` at once, without a restart, as a pattern subscription
    changes when a topic stops (or starts) matching; each member rejoins (``subscribe()`` asks for it)."""

    topics: tuple[str, ...]

    def describe(self, kind: str) -> str:
        return f"everyone subscribes to {','.join(self.topics)}"


Step = Bounce | Join | Leave | Resubscribe


@dataclass(frozen=True)
class Scenario:
    """A group and the steps applied to it. ``members`` is in join order: the first one leads.
    ``succession`` is the coordinator's choice of a new leader when the leader leaves."""

    kind: str
    members: dict[str, MemberSetup]
    steps: tuple[Step, ...] = ()
    partitions: int = 6
    topic: str = "input"
    max_rounds_per_step: int = 12
    succession: Succession = Succession.OLDEST
    session_timeout_ms: int | None = None    # None: each member's client default (10 s before 3.0, then 45 s)
    more_topics: tuple[tuple[str, int], ...] = ()   # consumers: further (topic, partitions) beside ``topic``

    def __post_init__(self) -> None:
        if self.kind not in (STREAMS, CONSUMER):
            raise ValueError(f"kind must be {STREAMS!r} or {CONSUMER!r}")
        if not self.members:
            raise ValueError("a scenario needs at least one member")
        known = set(self.members)
        topics = set(self.topic_partitions)
        subscriptions = {m.topics for m in self.everyone.values()}
        if len(subscriptions) > 1:
            raise ValueError("every member must subscribe to the same topics (the simulated assignors are Kafka's "
                             "for equal subscriptions); use Resubscribe to change them")
        for sub in subscriptions | {s.topics for s in self.steps if isinstance(s, Resubscribe)}:
            if sub is not None and (not sub or not set(sub) <= topics):
                raise ValueError(f"subscription {list(sub)} must name topics of the scenario: {sorted(topics)}")
        for step in self.steps:
            if isinstance(step, Resubscribe):
                if self.kind != CONSUMER:
                    raise ValueError("Resubscribe is for consumer groups")
                continue
            if isinstance(step, Join):
                if step.member in known:
                    raise ValueError(f"{step.member!r} joins twice")
                known.add(step.member)
            elif step.member not in known:
                raise ValueError(f"step for unknown member {step.member!r}")

    @property
    def topic_partitions(self) -> dict[str, int]:
        """Every topic of the scenario and its partition count."""
        return {self.topic: self.partitions, **dict(self.more_topics)}

    @property
    def everyone(self) -> dict[str, MemberSetup]:
        """Every member the scenario ever has, initial ones first."""
        out = dict(self.members)
        out.update({s.member: s.setup for s in self.steps if isinstance(s, Join)})
        return out


def member_names(count: int) -> list[str]:
    return [f"m{i}" for i in range(count)]


def rolling_upgrade(kind: str, from_release: str, to_release: str, members: int = 3,
                    orders: Sequence[Sequence[str]] | None = None, upgrade_from: str | None = None,
                    assignors: Sequence[Sequence[str]] | None = None, partitions: int | None = None,
                    succession: Succession = Succession.OLDEST, static: bool = False,
                    downtime_ms: int = 0) -> Scenario:
    """The usual upgrade paths as scenarios.

    Streams: without ``upgrade_from`` one rolling bounce to ``to_release``; with it two (the first sets
    ``upgrade.from``, the second removes it). Consumers: ``assignors`` lists the strategy of each bounce
    round (default: the two-bounce KIP-429 path ``[cooperative-sticky, range]`` then
    ``[cooperative-sticky]``), starting from ``[range]``; the release changes in the first round.
    ``orders`` gives the bounce order of each round (default: join order); ``succession`` the coordinator's
    choice of a new leader. ``static`` gives every member a ``group.instance.id`` (its name); each bounce keeps
    it away ``downtime_ms``.
    """
    names = member_names(members)
    if kind == STREAMS:
        setups = {n: MemberSetup(from_release, instance_id=n if static else None) for n in names}
        rounds: list[list[dict[str, object]]] = []
        if upgrade_from is None:
            rounds.append([{"release": to_release}])
        else:
            rounds.append([{"release": to_release, "upgrade_from": upgrade_from}])
            rounds.append([{"upgrade_from": None}])
    else:
        setups = {n: MemberSetup(from_release, assignors=("range",), instance_id=n if static else None)
                  for n in names}
        lists = list(assignors) if assignors is not None else [("cooperative-sticky", "range"), ("cooperative-sticky",)]
        rounds = []
        for i, strategy in enumerate(lists):
            change: dict[str, object] = {"assignors": tuple(strategy)}
            if i == 0:
                change["release"] = to_release
            rounds.append([change])
    bounces: list[Step] = []
    for i, (change,) in enumerate(rounds):
        order = list(orders[i]) if orders is not None and i < len(orders) else (
            list(orders[-1]) if orders else names)
        if sorted(order) != sorted(names):
            raise ValueError(f"bounce order {order} must name every member once")
        bounces.extend(Bounce(n, **change, downtime_ms=downtime_ms) for n in order)  # type: ignore[arg-type]
    return Scenario(kind, setups, tuple(bounces), partitions=partitions or max(6, 2 * members), succession=succession)
