"""What to change: the setting a finding points at, read from what the traffic shows.

A finding that says "storm" and stops there leaves the operator to guess. The rounds already hold what a
remedy needs: which client caused each round nobody asked for (its client id and host), why (a poll timeout
its LeaveGroup gave, an expiry, a rejoin with nothing changed), and the timeouts it joined with (a Java
consumer sends its ``max.poll.interval.ms`` as JoinGroup's rebalance timeout, its ``session.timeout.ms``
as the session timeout). So each remedy names the client, the cause it shows, and the settings to change
with their values now. Nothing here is a threshold: it is a reading of the rounds the finding counted.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TypedDict

from kafka_meta.analysis.member_names import host_of
from kafka_meta.analysis.timeline import MemberRound, Round

COOPERATIVE_ASSIGNOR = "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"


class RemedyJson(TypedDict):
    """A remedy as report.json writes it (:meth:`Remedy.to_json`)."""

    settings: list[str]
    text: str
    clients: list[str]


@dataclass(frozen=True)
class Remedy:
    settings: tuple[str, ...]  # the configuration keys to change, most likely first
    text: str  # what to change and why, in one or two sentences
    clients: tuple[str, ...] = ()  # the clients it concerns: "client-id on host"

    def to_json(self) -> RemedyJson:
        return {"settings": list(self.settings), "text": self.text, "clients": list(self.clients)}


def client_name(m: MemberRound) -> str:
    """A client as an operator finds it: its client id and the host it connects from."""
    host = host_of(m.client)
    who = m.client_id or m.member_id
    return f"{who} on {host}" if host else who


def _members_by_id(rounds: list[Round]) -> dict[str, MemberRound]:
    """Each member id's latest record in the rounds (a member that left is in the round before it left)."""
    out: dict[str, MemberRound] = {}
    for r in rounds:
        for m in r.members:
            out[m.member_id] = m
    return out


def _ms(value: int | None) -> str:
    return f" (now {value} ms)" if value else ""


def _culprits(rounds: list[Round], everyone: dict[str, MemberRound]) -> Counter[tuple[str, str]]:
    """How many times each (cause kind, client) set off a round nobody asked for."""
    out: Counter[tuple[str, str]] = Counter()
    for r in rounds:
        for c in r.causes:
            m = everyone.get(c.member) if c.involuntary and c.member is not None else None
            if m is not None:
                out[(c.kind, client_name(m))] += 1
    return out


def storm_remedy(storm: list[Round], all_rounds: list[Round]) -> Remedy | None:
    """The setting to change for a storm, from the causes of its rounds. Poll timeouts point at the poll loop
    (``max.poll.interval.ms``, ``max.poll.records``); expiries at the heartbeat (``session.timeout.ms``, or
    static membership when the client keeps coming back); rounds without a membership change under an eager
    assignor at cooperative-sticky. ``None`` when the rounds name no client (nothing to point at)."""
    everyone = _members_by_id(all_rounds)
    culprits = _culprits(storm, everyone)
    if not culprits:
        return None
    by_kind: Counter[str] = Counter()
    by_client: Counter[str] = Counter()
    for (kind, name), n in culprits.items():
        by_kind[kind] += n
        by_client[name] += n
    names = tuple(sorted(by_client))
    top = by_client.most_common(1)[0][0]
    main = next(m for m in reversed(list(everyone.values())) if client_name(m) == top)
    who = ", ".join(names)
    if by_kind["poll-timeout"]:
        n = by_kind["poll-timeout"]
        return Remedy(("max.poll.interval.ms", "max.poll.records"),
                      f"{who} took longer than max.poll.interval.ms{_ms(main.rebalance_timeout_ms)} between two polls "
                      f"({n} time{'s' if n > 1 else ''}) and left the group each time: lower max.poll.records so "
                      "one batch is processed within the interval, or raise max.poll.interval.ms above the "
                      "slowest batch", names)
    if by_kind["expiry"]:
        came_back = by_kind["rejoin"] > 0
        if came_back and not main.instance_id:
            return Remedy(("group.instance.id", "session.timeout.ms"),
                          f"{who} stopped heartbeating for longer than session.timeout.ms"
                          f"{_ms(main.session_timeout_ms)} and came back as a new member: static membership "
                          "(a group.instance.id per client, with session.timeout.ms longer than a restart) lets it "
                          "come back without a rebalance", names)
        return Remedy(("session.timeout.ms", "heartbeat.interval.ms"),
                      f"{who} stopped heartbeating for longer than session.timeout.ms{_ms(main.session_timeout_ms)}: "
                      "if it pauses (garbage collection, a blocked heartbeat thread, a slow network), raise "
                      "session.timeout.ms and keep heartbeat.interval.ms at most a third of it", names)
    if by_kind["rejoin"]:  # only the log: it records who went and came back, not why
        n = by_kind["rejoin"]
        return Remedy(("max.poll.interval.ms", "session.timeout.ms", "group.instance.id"),
                      f"{who} left and came back as a new member {n} time{'s' if n > 1 else ''}: either its poll "
                      f"loop ran past max.poll.interval.ms{_ms(main.rebalance_timeout_ms)} (lower "
                      "max.poll.records or raise the interval) or its heartbeats stopped for session.timeout.ms"
                      f"{_ms(main.session_timeout_ms)}; the client's LeaveGroup reason (in a capture, or its log) "
                      "says which", names)
    eager = any(r.protocol and r.eager_assignor for r in storm)
    if eager:
        return Remedy(("partition.assignment.strategy",),
                      f"rounds without a membership change ({who}) stop every member under the eager "
                      f"'{storm[0].protocol}' assignor: partition.assignment.strategy={COOPERATIVE_ASSIGNOR} "
                      "lets the members keep consuming what they keep", names)
    return Remedy(("metadata.max.age.ms",),
                  f"{who} rejoined with nothing changed: look for subscription or topic metadata changes "
                  "(pattern subscriptions, partitions added) on that client", names)


def eager_pause_remedy(r: Round) -> Remedy:
    """An eager round stops every member for its length: cooperative-sticky stops only the partitions moved."""
    return Remedy(("partition.assignment.strategy",),
                  f"every round of the eager '{r.protocol}' assignor revokes all partitions: "
                  f"partition.assignment.strategy={COOPERATIVE_ASSIGNOR} moves only the partitions that change "
                  "owner (all members must list it, the old assignor kept for one rolling bounce)")


def stuck_upgrade_remedy(streams: bool, behind: tuple[str, ...] = ()) -> Remedy:
    """Mixed versions across rounds: the rolling upgrade's first bounce needs the old version named (Streams),
    or the members left behind need their upgrade (a consumer's protocol version follows its client)."""
    if streams:
        return Remedy(("upgrade.from",),
                      "set upgrade.from to the Kafka Streams version being upgraded from on every instance for the "
                      "first rolling bounce, then remove it in a second bounce, so instances agree on one "
                      "metadata version instead of probing round after round", behind)
    return Remedy(("client version",),
                  f"upgrade {', '.join(behind) if behind else 'the members left behind'}: until the last member on "
                  "the older protocol version is gone, the group keeps to what that member can read", behind)


def crash_remedy(m: MemberRound | None, kip848: bool) -> Remedy:
    """A member that crashed holds its partitions until the coordinator gives up on it."""
    timeout = "group.consumer.session.timeout.ms (a broker setting)" if kip848 else "session.timeout.ms"
    current = "" if kip848 or m is None else _ms(m.session_timeout_ms)
    return Remedy(("group.consumer.session.timeout.ms",) if kip848 else ("session.timeout.ms", "group.instance.id"),
                  f"its partitions waited for {timeout}{current} to pass: a shorter session timeout hands them "
                  "over sooner (at the cost of more false expiries); closing consumers on shutdown leaves at once",
                  (client_name(m),) if m is not None else ())
