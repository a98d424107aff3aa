"""What a round moved: each member's revoked and newly assigned partitions, the partitions whose owner changed,
and, for a cooperative group (KIP-429), which of its two phases the round is. Captured rounds and the
generations ``__consumer_offsets`` recorded are compared with the round before them the same way."""

from __future__ import annotations

from kafka_meta.analysis.timeline import Round, TopicPartition

# assignors that revoke before they hand out: KIP-429's, and Kafka Streams' (cooperative since 2.4)
COOPERATIVE = ("cooperative-sticky", "stream")


def moves(r: Round, previous: Round | None) -> None:
    """Each member's revoked and newly assigned partitions, the partitions that changed owner, and, for a
    cooperative group, which of its two phases the round is."""
    before_owner: dict[TopicPartition, str] = {}
    if previous is not None:
        for pm in previous.members:
            for tp in pm.assigned or set():
                before_owner[tp] = pm.member_id
    now_owner: dict[TopicPartition, str] = {}
    for m in r.members:
        previous_member = previous.member(m.member_id) if previous is not None else None
        before = m.owned if m.owned is not None else (
            previous_member.assigned if previous_member is not None and previous_member.assigned is not None
            else set())
        if m.assigned is not None:
            m.revoked = before - m.assigned
            m.added = m.assigned - before
            for tp in m.assigned:
                now_owner[tp] = m.member_id
    if previous is not None and all(m.assigned is not None for m in r.members):
        r.moved = {tp for tp in set(before_owner) | set(now_owner) if before_owner.get(tp) != now_owner.get(tp)}
    else:
        r.moved = {tp for m in r.members for tp in m.revoked | m.added}
    if r.protocol in COOPERATIVE:
        withheld = {tp for m in r.members for tp in m.revoked} - set(now_owner)
        if withheld:
            r.phase = "revoke"
        elif previous is not None and previous.phase == "revoke":
            r.phase = "assign"
