"""Every api key Kafka defines: its name, the versions ever defined, and the first flexible version.

The header layouts follow from the first flexible version (KIP-482): a request at a flexible version has
header v2 (tagged fields after the client id), its response header v1. So this table is what lets a reader
of raw traffic find where a body starts for *any* api, including the ones whose bodies it cannot read.

``low`` is the oldest version Kafka ever defined (Kafka 4 removed several old versions, KIP-896, but old
clients still send them and captures still hold them); ``high`` the newest known (Kafka 4.3 for the
client apis, the October 2024 definitions for broker-internal ones, 4.4 for the Streams group apis).
"""

from __future__ import annotations

from typing import NamedTuple


class Api(NamedTuple):
    key: int
    name: str
    low: int
    high: int
    first_flexible: int | None  # None: no flexible version

    def flexible(self, version: int) -> bool:
        return self.first_flexible is not None and version >= self.first_flexible


APIS: dict[int, Api] = {api.key: api for api in (
    Api(0, "Produce", 0, 13, 9),
    Api(1, "Fetch", 0, 18, 12),
    Api(2, "ListOffsets", 0, 11, 6),
    Api(3, "Metadata", 0, 13, 9),
    Api(4, "LeaderAndIsr", 0, 7, 4),
    Api(5, "StopReplica", 0, 4, 2),
    Api(6, "UpdateMetadata", 0, 8, 6),
    Api(7, "ControlledShutdown", 0, 3, 3),
    Api(8, "OffsetCommit", 0, 10, 8),
    Api(9, "OffsetFetch", 0, 10, 6),
    Api(10, "FindCoordinator", 0, 6, 3),
    Api(11, "JoinGroup", 0, 9, 6),
    Api(12, "Heartbeat", 0, 4, 4),
    Api(13, "LeaveGroup", 0, 5, 4),
    Api(14, "SyncGroup", 0, 5, 4),
    Api(15, "DescribeGroups", 0, 6, 5),
    Api(16, "ListGroups", 0, 5, 3),
    Api(17, "SaslHandshake", 0, 1, None),
    Api(18, "ApiVersions", 0, 4, 3),
    Api(19, "CreateTopics", 0, 7, 5),
    Api(20, "DeleteTopics", 0, 6, 4),
    Api(21, "DeleteRecords", 0, 2, 2),
    Api(22, "InitProducerId", 0, 6, 2),
    Api(23, "OffsetForLeaderEpoch", 0, 4, 4),
    Api(24, "AddPartitionsToTxn", 0, 5, 3),
    Api(25, "AddOffsetsToTxn", 0, 4, 3),
    Api(26, "EndTxn", 0, 5, 3),
    Api(27, "WriteTxnMarkers", 0, 2, 1),
    Api(28, "TxnOffsetCommit", 0, 5, 3),
    Api(29, "DescribeAcls", 0, 3, 2),
    Api(30, "CreateAcls", 0, 3, 2),
    Api(31, "DeleteAcls", 0, 3, 2),
    Api(32, "DescribeConfigs", 0, 4, 4),
    Api(33, "AlterConfigs", 0, 2, 2),
    Api(34, "AlterReplicaLogDirs", 0, 2, 2),
    Api(35, "DescribeLogDirs", 0, 5, 2),
    Api(36, "SaslAuthenticate", 0, 2, 2),
    Api(37, "CreatePartitions", 0, 3, 2),
    Api(38, "CreateDelegationToken", 0, 3, 2),
    Api(39, "RenewDelegationToken", 0, 2, 2),
    Api(40, "ExpireDelegationToken", 0, 2, 2),
    Api(41, "DescribeDelegationToken", 0, 3, 2),
    Api(42, "DeleteGroups", 0, 2, 2),
    Api(43, "ElectLeaders", 0, 2, 2),
    Api(44, "IncrementalAlterConfigs", 0, 1, 1),
    Api(45, "AlterPartitionReassignments", 0, 1, 0),
    Api(46, "ListPartitionReassignments", 0, 0, 0),
    Api(47, "OffsetDelete", 0, 0, None),
    Api(48, "DescribeClientQuotas", 0, 1, 1),
    Api(49, "AlterClientQuotas", 0, 1, 1),
    Api(50, "DescribeUserScramCredentials", 0, 0, 0),
    Api(51, "AlterUserScramCredentials", 0, 0, 0),
    Api(52, "Vote", 0, 1, 0),
    Api(53, "BeginQuorumEpoch", 0, 1, 1),
    Api(54, "EndQuorumEpoch", 0, 1, 1),
    Api(55, "DescribeQuorum", 0, 2, 0),
    Api(56, "AlterPartition", 0, 3, 0),
    Api(57, "UpdateFeatures", 0, 2, 0),
    Api(58, "Envelope", 0, 0, 0),
    Api(59, "FetchSnapshot", 0, 1, 0),
    Api(60, "DescribeCluster", 0, 2, 0),
    Api(61, "DescribeProducers", 0, 0, 0),
    Api(62, "BrokerRegistration", 0, 4, 0),
    Api(63, "BrokerHeartbeat", 0, 1, 0),
    Api(64, "UnregisterBroker", 0, 0, 0),
    Api(65, "DescribeTransactions", 0, 0, 0),
    Api(66, "ListTransactions", 0, 2, 0),
    Api(67, "AllocateProducerIds", 0, 0, 0),
    Api(68, "ConsumerGroupHeartbeat", 0, 1, 0),
    Api(69, "ConsumerGroupDescribe", 0, 1, 0),
    Api(70, "ControllerRegistration", 0, 0, 0),
    Api(71, "GetTelemetrySubscriptions", 0, 0, 0),
    Api(72, "PushTelemetry", 0, 0, 0),
    Api(73, "AssignReplicasToDirs", 0, 0, 0),
    Api(74, "ListConfigResources", 0, 1, 0),
    Api(75, "DescribeTopicPartitions", 0, 0, 0),
    Api(76, "ShareGroupHeartbeat", 0, 0, 0),
    Api(77, "ShareGroupDescribe", 0, 0, 0),
    Api(78, "ShareFetch", 0, 0, 0),
    Api(79, "ShareAcknowledge", 0, 0, 0),
    Api(80, "AddRaftVoter", 0, 0, 0),
    Api(81, "RemoveRaftVoter", 0, 0, 0),
    Api(82, "UpdateRaftVoter", 0, 0, 0),
    Api(83, "InitializeShareGroupState", 0, 0, 0),
    Api(84, "ReadShareGroupState", 0, 0, 0),
    Api(85, "WriteShareGroupState", 0, 0, 0),
    Api(86, "DeleteShareGroupState", 0, 0, 0),
    Api(87, "ReadShareGroupStateSummary", 0, 0, 0),
    Api(88, "StreamsGroupHeartbeat", 0, 1, 0),
    Api(89, "StreamsGroupDescribe", 0, 0, 0),
    Api(90, "DescribeShareGroupOffsets", 0, 0, 0),
    Api(91, "AlterShareGroupOffsets", 0, 0, 0),
    Api(92, "DeleteShareGroupOffsets", 0, 0, 0),
)}

API_KEYS: dict[str, int] = {api.name: api.key for api in APIS.values()}

CONTROLLED_SHUTDOWN = 7
API_VERSIONS = 18


def api_name(key: int) -> str:
    """The api's name; ``Unknown(N)`` for a key Kafka does not define, so every exchange has a name."""
    api = APIS.get(key)
    return api.name if api is not None else f"Unknown({key})"


def request_header_version(key: int, version: int) -> int:
    """0: no client id (ControlledShutdown v0 only), 1: int16-length client id, 2: v1 plus tagged fields.

    An unknown api key is taken as non-flexible: the client id is still readable, which is what matters.
    """
    if key == CONTROLLED_SHUTDOWN and version == 0:
        return 0
    api = APIS.get(key)
    return 2 if api is not None and api.flexible(version) else 1


def response_header_version(key: int, version: int) -> int:
    """0: the correlation id alone, 1: plus tagged fields. ApiVersions responses always use v0, because a
    client reads one before it knows which versions the broker speaks (KIP-511)."""
    if key == API_VERSIONS:
        return 0
    api = APIS.get(key)
    return 1 if api is not None and api.flexible(version) else 0
