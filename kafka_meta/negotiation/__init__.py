"""Kafka's rebalance negotiation rules as a sans-IO library: feed decoded metadata, get decisions.

Every decision takes the Kafka release of the party that decides and follows that release's rules, which
are tables keyed by release (see :mod:`kafka_meta.negotiation.releases`). Nothing here reads sockets or
files; refusals Kafka itself produces are returned as data (:class:`JavaFailure`), not raised.
"""

from kafka_meta.negotiation.explain import Explanation, explain_consumer, explain_message, explain_streams
from kafka_meta.negotiation.facts import StreamsAssignment, StreamsSubscription, assignment_facts, subscription_facts
from kafka_meta.negotiation.metadata_version import (
    Cluster,
    Node,
    SupportedRange,
    UpgradeType,
    decide_broker_registration,
    decide_feature_update,
    metadata_version,
)
from kafka_meta.negotiation.outcomes import JavaFailure, NegotiationError
from kafka_meta.negotiation.rebalance_protocol import (
    Assignor,
    RebalanceProtocol,
    choose_rebalance_protocol,
    group_change,
    member_change,
    rebalance_protocol_for_id,
    validate_cooperative_assignment,
)
from kafka_meta.negotiation.releases import Release, ReleaseError, ReleaseTable
from kafka_meta.negotiation.static_membership import RestartDecision, decide_restart
from kafka_meta.negotiation.streams_leader import LeaderDecision, Outcome, TaskPlan, decide_leader
from kafka_meta.negotiation.streams_member import Action, MemberDecision, Rejoin, decide_member
from kafka_meta.negotiation.streams_versions import StreamsCode, latest_supported_version, streams_code
from kafka_meta.negotiation.upgrade_from import UpgradeFromDecision, decide_upgrade_from, streams_assignor
from kafka_meta.streams.protocol import AssignorError

__all__ = [
    "Action",
    "Assignor",
    "AssignorError",
    "Cluster",
    "Explanation",
    "JavaFailure",
    "LeaderDecision",
    "MemberDecision",
    "NegotiationError",
    "Node",
    "Outcome",
    "RebalanceProtocol",
    "Rejoin",
    "Release",
    "ReleaseError",
    "ReleaseTable",
    "RestartDecision",
    "StreamsAssignment",
    "StreamsCode",
    "StreamsSubscription",
    "SupportedRange",
    "TaskPlan",
    "UpgradeFromDecision",
    "UpgradeType",
    "assignment_facts",
    "choose_rebalance_protocol",
    "decide_broker_registration",
    "decide_feature_update",
    "decide_leader",
    "decide_member",
    "decide_restart",
    "decide_upgrade_from",
    "explain_consumer",
    "explain_message",
    "explain_streams",
    "group_change",
    "latest_supported_version",
    "member_change",
    "metadata_version",
    "rebalance_protocol_for_id",
    "streams_assignor",
    "streams_code",
    "subscription_facts",
    "validate_cooperative_assignment",
]
