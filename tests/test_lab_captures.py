"""Every exchange of every lab recording's capture decodes: the traffic of Kafka 4.4's broker and of real Java
clients (classic and KIP-848 consumer groups, share groups, a Kafka Streams application rolled from 2.4 to
4.4, streams groups), read by kafka_meta.capture without an `_error`, and the group membership apis decoded
whole, member metadata included (subscriptions and assignments inside JoinGroup and SyncGroup, their
assignors' user data, Kafka Streams' SubscriptionInfo and AssignmentInfo for Streams applications).

The committed recordings (fixtures/lab/) are read without a JVM; the one recorded in this session needs the
lab and its broker (marked kafka).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from lab_recordings import FIXTURES, committed_params, fresh_recording

from kafka_meta.capture import read_capture
from kafka_meta.log import read_log
from kafka_meta.metadata_log import topic_names
from kafka_meta.protocol import APIS
from kafka_meta.protocol.member_metadata import ASSIGNMENT, SUBSCRIPTION, USER_DATA_TYPES

RECORDINGS = committed_params()
GROUP_APIS = ("JoinGroup", "SyncGroup", "Heartbeat", "LeaveGroup", "OffsetCommit", "ConsumerGroupHeartbeat",
              "StreamsGroupHeartbeat", "ShareGroupHeartbeat", "TxnOffsetCommit")
CONSUMER = "consumer"
SHOWN = 10


@cache
def exchanges(capture: Path) -> tuple[dict[str, Any], ...]:
    return tuple(exchange.to_dict() for exchange in read_capture(capture))


def _nested(value: Any, type_name: str, user_data_type: str | None, where: str) -> list[str]:
    """What is wrong with one decoded subscription or assignment (nothing: an empty list)."""
    if not isinstance(value, dict) or value.get("_type") != type_name or "_error" in value:
        return [f"{where}: not a decoded {type_name}: {value!r:.300}"]
    user_data = value.get("userData")
    if user_data_type is None or not user_data:  # range, roundrobin: user data of no known layout
        return []
    if not isinstance(user_data, dict) or user_data.get("_type") != user_data_type or "_error" in user_data:
        return [f"{where}.userData: not a decoded {user_data_type}: {user_data!r:.300}"]
    return []


def subscription(value: Any, protocol: str | None, where: str) -> list[str]:
    return _nested(value, SUBSCRIPTION, USER_DATA_TYPES.get(protocol or "", (None, None))[0], where)


def assignment(value: Any, protocol: str | None, where: str) -> list[str]:
    if value == b"":  # followers sync with no assignment; failed syncs are answered with none
        return []
    return _nested(value, ASSIGNMENT, USER_DATA_TYPES.get(protocol or "", (None, None))[1], where)


class Groups:
    """The protocol type and name each classic group settled on (JoinGroup responses), for the SyncGroup
    versions that do not repeat them (before v5)."""

    def __init__(self) -> None:
        self.protocols: dict[str, tuple[str | None, str | None]] = {}

    def member_metadata(self, row: dict[str, Any]) -> list[str]:
        api, request, response = row["apiName"], row["request"], row["response"] or {}
        where = f"frame {row['source']['frame']} {api} v{row['apiVersion']}"
        problems: list[str] = []
        if api == "JoinGroup":
            kind = request["protocolType"]
            if kind == CONSUMER:
                for i, offered in enumerate(request["protocols"]):
                    problems += subscription(offered["metadata"], offered["name"], f"{where} protocols[{i}]")
            if response.get("errorCode") == 0:
                name = response.get("protocolName")
                self.protocols[request["groupId"]] = (kind, name)
                if kind == CONSUMER:
                    for i, member in enumerate(response.get("members") or []):
                        problems += subscription(member["metadata"], name, f"{where} response members[{i}]")
        elif api == "SyncGroup":
            kind, name = self.protocols.get(request["groupId"], (None, None))
            kind, name = request.get("protocolType") or kind, request.get("protocolName") or name
            if kind == CONSUMER:
                for i, given in enumerate(request["assignments"]):
                    problems += assignment(given["assignment"], name, f"{where} assignments[{i}]")
                if "assignment" in response:
                    problems += assignment(response["assignment"], response.get("protocolName") or name,
                                           f"{where} response")
        return problems


def check_capture(capture: Path) -> Counter:
    rows = exchanges(capture)
    assert rows, f"{capture}: no Kafka exchange"
    failed = [f"frame {r['source']['frame']} {r['apiName']} v{r['apiVersion']}: {r['_error']}" for r in rows
              if r["_error"]]
    assert not failed, f"{len(failed)} of {len(rows)} exchanges do not decode:\n" + "\n".join(failed[:SHOWN])
    unknown = {(r["apiKey"], r["apiVersion"]) for r in rows
               if r["apiKey"] not in APIS or r["apiVersion"] > APIS[r["apiKey"]].high}
    assert not unknown, f"apis or versions the api table does not know: {sorted(unknown)}"
    groups, problems, seen = Groups(), [], Counter()
    for row in rows:
        if row["apiName"] not in GROUP_APIS:
            continue
        seen[row["apiName"]] += 1
        where = f"frame {row['source']['frame']} {row['apiName']} v{row['apiVersion']}"
        for side in ("request", "response"):
            body = row[side]
            if body is not None and "_raw" in body:  # a response is missing only where the capture ends
                problems.append(f"{where}: the {side} is not decoded")
        if row["groupId"] is None:
            problems.append(f"{where}: names no group")
        problems += groups.member_metadata(row)
    assert seen, f"{capture}: no exchange of the group apis"
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:SHOWN])
    return seen


@pytest.mark.parametrize("recording", RECORDINGS)
def test_every_exchange_of_a_recording_decodes(recording):
    check_capture(recording / "capture.pcapng")


def test_a_transactional_producers_exchanges_are_its_transactions():
    """The transactions recording: each transaction the producer reported (truth.jsonl) is one TxnOffsetCommit,
    naming the group, the member and generation it commits for and the offsets (topics by id, named by the
    metadata log's TopicRecords), then one EndTxn with its transactional id, producer and outcome."""
    recording = FIXTURES / "transactions"
    truth = [json.loads(line) for line in (recording / "truth.jsonl").read_text().splitlines() if line.strip()]
    transactions = [t for t in truth if t["event"] == "transaction"]
    rows = exchanges(recording / "capture.pcapng")
    commits = [r for r in rows if r["apiName"] == "TxnOffsetCommit"]
    ends = [r for r in rows if r["apiName"] == "EndTxn"]
    assert transactions and len(commits) == len(ends) == len(transactions)
    names = topic_names(read_log(recording / "kafka-logs" / "__cluster_metadata-0"))
    for txn, commit, end in zip(transactions, commits, ends, strict=True):
        assert (commit["groupId"], commit["memberId"], commit["generationId"], commit["errorCode"]) == (
            txn["group"], txn["member_id"], txn["generation"], None)
        request = commit["request"]
        assert request["transactionalId"] == txn["transactional_id"]
        offsets = {f"{names[str(t['topicId'])]}-{p['partitionIndex']}": p["committedOffset"]
                   for t in request["topics"] for p in t["partitions"]}
        assert offsets == txn["offsets"]
        assert all(p["errorCode"] == 0 for t in commit["response"]["topics"] for p in t["partitions"])
        body = end["request"]
        assert (body["transactionalId"], body["producerId"], body["producerEpoch"]) == (
            txn["transactional_id"], request["producerId"], request["producerEpoch"])
        assert body["committed"] == (txn["outcome"] == "committed")
        assert end["response"]["errorCode"] == 0 and end["groupId"] is None  # EndTxn names no group


@pytest.mark.kafka
def test_every_exchange_of_a_fresh_recording_decodes(lab, kafka_broker, tmp_path_factory):
    recording = fresh_recording(lab, kafka_broker, tmp_path_factory)
    seen = check_capture(recording / "capture.pcapng")
    # the classic scenario: members join, sync, heartbeat, commit and leave
    assert {"JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit", "LeaveGroup"} <= set(seen)
