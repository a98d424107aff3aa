"""Where Streams tasks go: the simulator's deterministic stand-ins for Kafka Streams' task assignors.

Plain consumers are placed by Kafka's own assignors (:mod:`kafka_meta.negotiation.assignors`). Kafka Streams'
task assignors are implemented too (:mod:`kafka_meta.negotiation.task_assignors`: ``StickyTaskAssignor`` of
2.4 and 2.5 leaders, ``HighAvailabilityTaskAssignor`` of 2.6+ leaders, held to Kafka 4.4's classes), but what
they decide hangs on inputs the simulator does not model: ``StreamsPartitionAssignor`` builds each client's
previous tasks from its subscription and owned partitions (and cannot read a future member's at all), the
sticky assignor keeps previous tasks only up to ``tasks // threads`` per thread, and the high-availability
assignor follows each instance's lag behind the changelogs, with warm-up standbys and probing rebalances
(the simulator has no data flowing, so every instance would be caught up and tasks would be dealt by process
id alone). Fed the simulator's facts, Kafka's sticky assignor moves tasks during a rolling bounce that a real
2.4 group keeps in place (Kafka's version-probing system test, replayed by
:mod:`kafka_meta.simulate.kafka_tests`, would take three generations per bounce instead of two), so Streams
leaders keep these deliberately simple placements:

* :func:`round_robin`: ignores who owns what (an EAGER assignor: everybody revoked before joining), dealing
  the sorted items over the members in membership order. Because a restarted member rejoins at the end of
  that order, a rolling bounce moves items around, which is what exercises the ownership rules.
* :func:`sticky_balanced`: keeps owned items up to a balanced quota and deals the rest.
* :func:`withhold_claimed`: the cooperative rule (KIP-429) ``StreamsPartitionAssignor`` applies on top of the
  task assignor: an item still owned by another member is left unassigned, to be handed over in the
  follow-up rebalance.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

Item = TypeVar("Item", bound=Hashable)


def round_robin(members: Sequence[str], items: Sequence[Item]) -> dict[str, list[Item]]:
    out: dict[str, list[Item]] = {m: [] for m in members}
    if not members:
        return out
    for i, item in enumerate(sorted(items)):  # type: ignore[type-var]
        out[members[i % len(members)]].append(item)
    return out


def sticky_balanced(members: Sequence[str], items: Sequence[Item],
                    owned: Mapping[str, frozenset[Item]]) -> dict[str, list[Item]]:
    """Keep what each member owns (items claimed by two members are contested and kept by neither), up to
    a balanced quota, then deal the rest in membership order."""
    out: dict[str, list[Item]] = {m: [] for m in members}
    if not members:
        return out
    universe = set(items)
    claims: dict[Item, int] = {}
    for m in members:
        for item in owned.get(m, frozenset()) & universe:
            claims[item] = claims.get(item, 0) + 1
    base, extra = divmod(len(universe), len(members))
    keep = {m: sorted(i for i in owned.get(m, frozenset()) & universe if claims[i] == 1)  # type: ignore[type-var]
            for m in members}
    # the members keeping the most get the larger quotas
    by_keep = sorted(members, key=lambda m: (-len(keep[m]), members.index(m)))
    quota = {m: base + (1 if rank < extra else 0) for rank, m in enumerate(by_keep)}
    placed: set[Item] = set()
    for m in members:
        out[m] = keep[m][: quota[m]]
        placed |= set(out[m])
    rest = sorted(universe - placed)  # type: ignore[type-var]
    for m in members:
        while len(out[m]) < quota[m] and rest:
            out[m].append(rest.pop(0))
    return {m: sorted(v) for m, v in out.items()}  # type: ignore[type-var]


def withhold_claimed(target: Mapping[str, Sequence[Item]],
                     owned: Mapping[str, frozenset[Item]]) -> tuple[dict[str, list[Item]], dict[str, list[Item]]]:
    """Remove from each member's target the items another member still owns.

    Returns the assignment and, per member, what was withheld from it.
    """
    owner: dict[Item, list[str]] = {}
    for m, items in owned.items():
        for item in items:
            owner.setdefault(item, []).append(m)
    assigned: dict[str, list[Item]] = {}
    withheld: dict[str, list[Item]] = {}
    for m, items in target.items():
        keep, held = [], []
        mine = owned.get(m, frozenset())
        for item in items:
            others = [o for o in owner.get(item, []) if o != m]
            (held if others and item not in mine else keep).append(item)
        assigned[m] = keep
        withheld[m] = held
    return assigned, withheld
