"""The Streams benchmark record: a realistic AssignmentInfo v11 and a hand-written decoder for it.

A member of a 6-instance application: 24 active tasks over 3 subtopologies, 8 standby tasks with 2 input
partitions each, a 3-topic dictionary and active/standby host maps of 6 hosts with 12 partitions each
(ASCII names, no named topologies): about 2.2 KB, what every member gets on each rebalance.
"""

from __future__ import annotations

import struct

TOPICS = ["orders-by-customer", "payments-enriched", "app-KSTREAM-REPARTITION-0000000004-repartition"]
HOSTS = [(f"streams-{i}.payments.svc.cluster.local", 8080) for i in range(6)]
VERSION = 11


def _tp(topic: str, partition: int) -> dict:
    return {"topic": topic, "partition": partition}


def _task(group: int, partition: int) -> dict:
    return {"topic_group_id": group, "partition": partition, "named_topology": None}


def _hosts(offset: int) -> list[dict]:
    return [{"host": h, "port": p, "partitions": [_tp(TOPICS[(i + j) % 3], (i * 12 + j + offset) % 72)
                                                  for j in range(12)]} for i, (h, p) in enumerate(HOSTS)]


VALUE = {
    "version_": VERSION,
    "commonly_supported_version": 11,
    "active_tasks": [_task(i % 3, i // 3) for i in range(24)],
    "standby_tasks": [{"task": _task(i % 3, 24 + i), "partitions": [_tp(TOPICS[0], 24 + i), _tp(TOPICS[2], 24 + i)]}
                      for i in range(8)],
    "topic_dictionary": [{"index": 1, "topic": TOPICS[1]}, {"index": 0, "topic": TOPICS[0]},
                         {"index": 2, "topic": TOPICS[2]}],
    "partitions_by_host": _hosts(0),
    "standby_partitions_by_host": _hosts(36),
    "err_code": 0,
    "next_rebalance_ms": 1_700_000_000_000,
}

_i32 = struct.Struct(">i").unpack_from
_i64 = struct.Struct(">q").unpack_from
_u16 = struct.Struct(">H").unpack_from


def _utf(buf: bytes, pos: int) -> tuple[str, int]:
    (n,) = _u16(buf, pos)
    return buf[pos + 2:pos + 2 + n].decode(), pos + 2 + n  # ASCII only: modified UTF-8 needs more


def _task_at(buf: bytes, pos: int) -> tuple[dict, int]:
    group, partition, chars = struct.unpack_from(">iii", buf, pos)
    pos += 12
    name = buf[pos:pos + 2 * chars].decode("utf-16-be") if chars else None
    return {"topic_group_id": group, "partition": partition, "named_topology": name}, pos + 2 * chars


def hand_decode(buf: bytes) -> dict:
    """The floor: AssignmentInfo v11 read by hand with struct.unpack_from, no checks beyond struct's own."""
    version, common, n = struct.unpack_from(">iii", buf, 0)
    pos = 12
    active = []
    for _ in range(n):
        task, pos = _task_at(buf, pos)
        active.append(task)
    (n,) = _i32(buf, pos)
    pos += 4
    standby = []
    for _ in range(n):
        task, pos = _task_at(buf, pos)
        (m,) = _i32(buf, pos)
        pos += 4
        parts = []
        for _ in range(m):
            topic, pos = _utf(buf, pos)
            parts.append({"topic": topic, "partition": _i32(buf, pos)[0]})
            pos += 4
        standby.append({"task": task, "partitions": parts})
    (n,) = _i32(buf, pos)
    pos += 4
    dictionary, names = [], {}
    for _ in range(n):
        (index,) = _i32(buf, pos)
        topic, pos = _utf(buf, pos + 4)
        dictionary.append({"index": index, "topic": topic})
        names[index] = topic
    maps = []
    for _ in range(2):
        (n,) = _i32(buf, pos)
        pos += 4
        hosts = []
        for _ in range(n):
            host, pos = _utf(buf, pos)
            port, m = struct.unpack_from(">ii", buf, pos)
            pos += 8
            parts = []
            for _ in range(m):
                index, partition = struct.unpack_from(">ii", buf, pos)
                pos += 8
                parts.append({"topic": names[index], "partition": partition})
            hosts.append({"host": host, "port": port, "partitions": parts})
        maps.append(hosts)
    (err,) = _i32(buf, pos)
    (next_ms,) = _i64(buf, pos + 4)
    return {"version_": version, "commonly_supported_version": common, "active_tasks": active,
            "standby_tasks": standby, "topic_dictionary": dictionary, "partitions_by_host": maps[0],
            "standby_partitions_by_host": maps[1], "err_code": err, "next_rebalance_ms": next_ms}
