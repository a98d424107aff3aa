"""The benchmark record: a realistic consumer subscription v1, 556 bytes, and hand-written codecs for it.

5 subscribed topics of about 20 characters, 40 bytes of assignor user data, 5 owned topics of 12
partitions each: what a cooperative consumer sends when it rejoins.
"""

from __future__ import annotations

import struct

TOPICS = [f"payments-events-{region}" for region in ("euwest", "eunord", "uswest", "useast", "apsouth")]  # 22-23
USER_DATA = bytes(range(40))
PARTITIONS = list(range(12))
VALUE = {
    "topics": TOPICS,
    "user_data": USER_DATA,
    "owned_partitions": [{"topic": t, "partitions": PARTITIONS} for t in TOPICS],
    "generation_id": -1,
    "rack_id": None,
}
VERSION = 1

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_i16, _i32 = _I16.unpack_from, _I32.unpack_from
_p16, _p32 = _I16.pack, _I32.pack


def hand_decode(buf: bytes) -> dict:
    """The floor: a decoder written by hand with struct.unpack_from, no checks beyond struct's own."""
    pos = 2
    (n,) = _i32(buf, pos)
    pos += 4
    topics = []
    for _ in range(n):
        (size,) = _i16(buf, pos)
        pos += 2
        topics.append(buf[pos:pos + size].decode())
        pos += size
    (size,) = _i32(buf, pos)
    pos += 4
    user_data = buf[pos:pos + size]
    pos += size
    (n,) = _i32(buf, pos)
    pos += 4
    owned = []
    for _ in range(n):
        (size,) = _i16(buf, pos)
        pos += 2
        topic = buf[pos:pos + size].decode()
        pos += size
        (count,) = _i32(buf, pos)
        pos += 4
        owned.append({"topic": topic, "partitions": list(struct.unpack_from(f">{count}i", buf, pos))})
        pos += 4 * count
    return {"topics": topics, "user_data": user_data, "owned_partitions": owned}


def hand_encode(value: dict) -> bytes:
    out = bytearray(b"\x00\x01")
    out += _p32(len(value["topics"]))
    for topic in value["topics"]:
        raw = topic.encode()
        out += _p16(len(raw))
        out += raw
    out += _p32(len(value["user_data"]))
    out += value["user_data"]
    out += _p32(len(value["owned_partitions"]))
    for entry in value["owned_partitions"]:
        raw = entry["topic"].encode()
        out += _p16(len(raw))
        out += raw
        parts = entry["partitions"]
        out += _p32(len(parts))
        out += struct.pack(f">{len(parts)}i", *parts)
    return bytes(out)
