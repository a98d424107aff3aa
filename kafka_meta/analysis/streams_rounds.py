"""The negotiation layer's account of a Kafka Streams round (protocol ``stream``): which metadata version the
leader encodes, who is probing, who switches versions and rejoins (docs/negotiation.md)."""

from __future__ import annotations

from kafka_meta.analysis.timeline import Round

# what a Streams member does after a round that ends with another one (negotiation.streams_member.Rejoin)
REJOINING = ("VERSION_PROBING", "IMMEDIATE")


def streams_account(r: Round) -> tuple[list[str], bool]:
    """The negotiation layer's account of a captured Kafka Streams round: which version the leader can
    use, who is probing, who must switch and rejoin (see docs/negotiation.md); and whether a member
    rejoins because of it (the version-probing follow-up)."""
    from kafka_meta.negotiation import NegotiationError, StreamsAssignment, StreamsSubscription, explain_streams
    from kafka_meta.negotiation.facts import UNKNOWN

    subs = [StreamsSubscription(m.member_id, m.streams_version, m.streams_latest if m.streams_latest is not None
                                else UNKNOWN) for m in r.members if m.streams_version is not None]
    if not subs:
        return [], False
    assignments = {m.member_id: StreamsAssignment(m.streams_assignment_version, m.streams_common
                                                  if m.streams_common is not None else UNKNOWN)
                   for m in r.members if m.streams_assignment_version is not None}
    try:
        explanation = explain_streams(subs, assignments or None, leader=r.leader)
    except (NegotiationError, ValueError, KeyError) as e:  # versions no release knows: said, not raised
        return [f"(no account: {e})"], False
    rejoins = any(m.get("rejoin") in REJOINING for m in explanation.data.get("members", {}).values())
    return [explanation.summary, *(f"- {d}" for d in explanation.details)], rejoins
