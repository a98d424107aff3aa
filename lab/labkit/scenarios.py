"""The scenarios `lab/record` can run: each a Java program in lab/src/main/java/kafkameta/lab/scenarios."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    name: str
    main_class: str
    about: str
    # seconds the recording takes on the 2-core machine (broker start and copying included), roughly
    takes_s: int
    # topics of the scenario's own whose segments the recording keeps beside the internal topics' (their
    # records carry no key, so readers of the log directory take them for no group's records)
    kept_topics: tuple[str, ...] = ()


SCENARIOS = {
    scenario.name: scenario
    for scenario in (
        Scenario("classic", "kafkameta.lab.scenarios.Classic",
                 "classic groups under range, then cooperative-sticky: joins, a leave, a kill -9 expiry", 75),
        Scenario("static", "kafkameta.lab.scenarios.StaticMembership",
                 "static members (group.instance.id) restarting within and past the session timeout", 95),
        Scenario("storm", "kafkameta.lab.scenarios.Storm",
                 "a member whose batches outlast max.poll.interval.ms, so the group rebalances again and again", 65),
        Scenario("consumer", "kafkameta.lab.scenarios.ConsumerProtocol",
                 "KIP-848 groups (group.protocol=consumer) with the broker's assignors: joins, leaves, an expiry", 75),
        Scenario("transactions", "kafkameta.lab.scenarios.Transactions",
                 "a transactional producer committing a group's offsets (sendOffsetsToTransaction), one aborted", 35),
        Scenario("transactions-hanging", "kafkameta.lab.scenarios.TransactionsHanging",
                 "transactions committed, aborted, fenced by a newer epoch and left hanging by a killed producer",
                 45, kept_topics=("lab-txh-out",)),
        Scenario("share", "kafkameta.lab.scenarios.ShareGroup",
                 "a share group (KIP-932): share consumers joining and leaving, acknowledging with ACCEPT, RELEASE"
                 " and REJECT",
                 55),
        Scenario("streams-upgrade", "kafkameta.lab.scenarios.StreamsUpgrade",
                 "a Kafka Streams application rolled from 2.4.1 to 4.4.0 with upgrade.from (two rolling bounces)", 110),
        Scenario("streams-group", "kafkameta.lab.scenarios.StreamsGroup",
                 "a Kafka Streams application on a streams group (KIP-1071, group.protocol=streams)", 45),
        Scenario("lag", "kafkameta.lab.scenarios.Lag",
                 "consumer lag as monitors judge it: a consumer slower than its producer, one that stops committing"
                 " but stays in its group, one rewound 20 records while caught up, one on a topic written every 8 s",
                 95, kept_topics=("lab-lag-busy", "lab-lag-quiet", "lab-lag-rewind")),
    )
}
