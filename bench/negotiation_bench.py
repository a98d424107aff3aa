"""Speed of the negotiation layer's heavier pieces, against the simplest assignor as a floor.

Run: ``python bench/negotiation_bench.py``. Prints milliseconds per call for each contender, measured in this
run on this machine, and each one's ratio to ``range_assign`` on the same group: Kafka's sticky algorithms on a
group of 100 members and 1,000 partitions the moment one member joins (everybody owns its share), the Streams
leader's rules for 100 subscriptions, and one simulated three-member rolling upgrade (real bytes through the
codecs, 7 rebalances) and the replay of one suite of Kafka's upgrade test matrices (the 2024 trunk's, 21 cases).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import timed

from kafka_meta.negotiation import StreamsSubscription, decide_leader
from kafka_meta.negotiation.assignors import Member, cooperative_sticky_assign, range_assign, sticky_assign
from kafka_meta.simulate import STREAMS, rolling_upgrade, simulate
from kafka_meta.simulate.kafka_tests import cases, replay

MEMBERS, PARTITIONS = 100, 1_000


def group() -> list[Member]:
    topics = frozenset({"orders"})
    old = [f"consumer-{i:03d}" for i in range(MEMBERS - 1)]
    owned = {m: tuple(("orders", p) for p in range(i, PARTITIONS, len(old))) for i, m in enumerate(old)}
    return [Member(m, topics, owned[m], 7) for m in old] + [Member("consumer-new", topics)]


def main() -> None:
    members = group()
    partitions = {"orders": PARTITIONS}
    subs = [StreamsSubscription(f"m{i}", 10 if i % 7 else 11, 11) for i in range(100)]
    rows = [
        ("range_assign (floor)", lambda: range_assign(partitions, members), 20),
        ("sticky_assign", lambda: sticky_assign(partitions, members), 20),
        ("cooperative_sticky_assign", lambda: cooperative_sticky_assign(partitions, members), 20),
        ("decide_leader, 100 subscriptions", lambda: decide_leader("3.9", subs), 20),
        ("simulate 3 members 2.7 -> 2.8", lambda: simulate(rolling_upgrade(STREAMS, "2.7", "2.8")), 3),
        ("replay Kafka's trunk upgrade tests", lambda: [replay(c) for c in cases(0, ("trunk-2024",))], 1),
    ]
    print(f"{'contender':<36} {'ms/call':>10} {'x range_assign':>15}")
    base = None
    for name, fn, number in rows:
        ms = timed(fn, number, 3) / 1000
        base = base or ms
        print(f"{name:<36} {ms:>10.2f} {ms / base:>15.1f}")


if __name__ == "__main__":
    main()
