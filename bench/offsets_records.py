"""The offsets benchmark's records and the hand-written floor that decodes them into decode_offsets' rows.

The records are the committed sample dump's OffsetCommit v3 (a consumer's commit) and GroupMetadata v3 (a
consumer group on the range assignor with two members, subscriptions v3 and v1, assignments v3), mixed
nine commits to one group record, about the proportion of a busy ``__consumer_offsets`` partition.

``hand_row`` reads exactly these layouts with ``struct.unpack_from`` (no checks beyond struct's own) and
returns the dict ``decode_offsets`` gives, defaults and all; the benchmark checks that before timing it.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "offsets" / "sample.jsonl"
COMMITS_PER_GROUP_RECORD = 9

_i16 = struct.Struct(">h").unpack_from
_i32 = struct.Struct(">i").unpack_from
_i64 = struct.Struct(">q").unpack_from
ZERO_UUID = "AAAAAAAAAAAAAAAAAAAAAA"


def records() -> tuple[tuple[bytes, bytes], tuple[bytes, bytes]]:
    """(OffsetCommit v3 key, value) and (GroupMetadata v3 key, value) from the sample dump."""
    commit = group = None
    for line in SAMPLE.read_text().splitlines():
        r = json.loads(line)
        if r["value"] is None:
            continue
        key, value = bytes.fromhex(r["key"]), bytes.fromhex(r["value"])
        if commit is None and key[:2] == b"\x00\x01" and value[:2] == b"\x00\x03":
            commit = (key, value)
        if group is None and key[:2] == b"\x00\x02" and value[:2] == b"\x00\x03" and b"range" in value:
            group = (key, value)
    assert commit is not None and group is not None, "the sample dump lacks the benchmark's records"
    return commit, group


def _string(buf: bytes, pos: int) -> tuple[str | None, int]:
    (n,) = _i16(buf, pos)
    if n < 0:
        return None, pos + 2
    return buf[pos + 2:pos + 2 + n].decode(), pos + 2 + n


def _bytes(buf: bytes, pos: int) -> tuple[bytes | None, int]:
    (n,) = _i32(buf, pos)
    if n < 0:
        return None, pos + 4
    return buf[pos + 4:pos + 4 + n], pos + 4 + n


def _topic_partitions(buf: bytes, pos: int) -> tuple[list[dict], int]:
    (n,) = _i32(buf, pos)
    pos += 4
    out = []
    for _ in range(n):
        topic, pos = _string(buf, pos)
        (count,) = _i32(buf, pos)
        out.append({"topic": topic, "partitions": list(struct.unpack_from(f">{count}i", buf, pos + 4))})
        pos += 4 + 4 * count
    return out, pos


def _subscription(buf: bytes) -> dict[str, Any]:
    (version,) = _i16(buf, 0)
    (n,) = _i32(buf, 2)
    pos, topics = 6, []
    for _ in range(n):
        topic, pos = _string(buf, pos)
        topics.append(topic)
    user_data, pos = _bytes(buf, pos)
    owned, pos = _topic_partitions(buf, pos) if version >= 1 else ([], pos)
    generation, rack = -1, None
    if version >= 2:
        (generation,) = _i32(buf, pos)
        pos += 4
    if version >= 3:
        rack, pos = _string(buf, pos)
    return {"topics": topics, "userData": user_data, "ownedPartitions": owned, "generationId": generation,
            "rackId": rack, "_version": version}


def _assignment(buf: bytes) -> dict[str, Any]:
    (version,) = _i16(buf, 0)
    assigned, pos = _topic_partitions(buf, 2)
    user_data, pos = _bytes(buf, pos)
    return {"assignedPartitions": assigned, "userData": user_data, "_version": version}


def _header(number: int, name: str, group: str, version: int | None, column: str, key: dict,
            value: dict | None) -> dict[str, Any]:
    return {"recordType": number, "recordName": name, "groupId": group, "tombstone": value is None,
            "valueVersion": version, "valueVariant": "2026-08", "readForward": False, "retired": False,
            "unknown": False, "_error": None, column: {"key": key, "value": value}}


def _commit(key: bytes, value: bytes) -> dict[str, Any]:
    group, pos = _string(key, 2)
    topic, pos = _string(key, pos)
    (partition,) = _i32(key, pos)
    (version,) = _i16(value, 0)
    (offset,) = _i64(value, 2)
    (epoch,) = _i32(value, 10)
    metadata, pos = _string(value, 14)
    (timestamp,) = _i64(value, pos)
    return _header(1, "OffsetCommit", group, version, "offsetCommit",
                   {"group": group, "topic": topic, "partition": partition},
                   {"offset": offset, "leaderEpoch": epoch, "metadata": metadata, "commitTimestamp": timestamp,
                    "expireTimestamp": -1, "topicId": ZERO_UUID, "_unknownTaggedFields": [], "_version": version})


def _group(key: bytes, value: bytes) -> dict[str, Any]:
    group, _ = _string(key, 2)
    (version,) = _i16(value, 0)
    protocol_type, pos = _string(value, 2)
    (generation,) = _i32(value, pos)
    protocol, pos = _string(value, pos + 4)
    leader, pos = _string(value, pos)
    (since,) = _i64(value, pos)
    (n,) = _i32(value, pos + 8)
    pos += 12
    members, nest = [], []
    for _ in range(n):
        member_id, pos = _string(value, pos)
        instance, pos = _string(value, pos)
        client, pos = _string(value, pos)
        host, pos = _string(value, pos)
        rebalance, session = struct.unpack_from(">ii", value, pos)
        subscription, pos = _bytes(value, pos + 8)
        assignment, pos = _bytes(value, pos)
        members.append({"memberId": member_id, "groupInstanceId": instance, "clientId": client, "clientHost": host,
                        "rebalanceTimeout": rebalance, "sessionTimeout": session, "subscription": subscription,
                        "assignment": assignment, "_unknownTaggedFields": []})
        nest.append({"memberId": member_id, "subscription": _subscription(subscription),
                     "assignment": _assignment(assignment), "errors": []})
    row = _header(2, "GroupMetadata", group, version, "groupMetadata", {"group": group},
                  {"protocolType": protocol_type, "generation": generation, "protocol": protocol, "leader": leader,
                   "currentStateTimestamp": since, "members": members, "_unknownTaggedFields": [],
                   "_version": version})
    row["members"] = nest
    return row


def hand_row(key: bytes, value: bytes) -> dict[str, Any]:
    """The floor's decoder: the benchmark's two record layouts, by hand."""
    return _commit(key, value) if key[1] == 1 else _group(key, value)
