"""Decode and encode speed of one realistic consumer subscription, against a hand-written floor.

Run: ``python bench/decode_bench.py`` (add ``pip install kafka-python==3.0.12`` for that comparison).
Prints microseconds per record for each contender, measured in this run on this machine, and each one's
ratio to the hand-written ``struct.unpack_from`` code. Targets: bulk path <= 1.5x, typed <= 1.6x.
"""

from __future__ import annotations

import argparse
import sys
from io import BytesIO
from pathlib import Path

from construct import Container

sys.path.insert(0, str(Path(__file__).resolve().parent))

from subscription import VALUE, VERSION, hand_decode, hand_encode
from timing import print_table

import kafka_meta as km

TYPE = "ConsumerProtocolSubscription"


def contenders(data: bytes) -> tuple[list, list]:
    fmt = km.get_format(TYPE)
    message = km.decode(TYPE, data)
    plain, _ = km.decode_plain(TYPE, data)
    con = fmt.construct(VERSION)
    body = data[2:]

    def interpreted_decode() -> object:
        return con._parse(BytesIO(body), Container(), "")

    def interpreted_encode() -> bytes:
        out = BytesIO()
        out.write(b"\x00\x01")
        con._build(plain, out, Container(), "")
        return out.getvalue()

    decoders = [
        ("hand-written struct.unpack_from", lambda: hand_decode(data)),
        ("kafka_meta bulk path (plain values)", lambda: km.decode_plain(TYPE, data)),
        ("kafka_meta.decode (typed models)", lambda: km.decode(TYPE, data)),
        ("construct, interpreted", interpreted_decode),
    ]
    encoders = [
        ("hand-written struct.pack", lambda: hand_encode(VALUE)),
        ("kafka_meta bulk path (plain values)", lambda: fmt.encode(plain, VERSION)),
        ("kafka_meta.encode (typed models)", lambda: km.encode(message)),
        ("construct, interpreted", interpreted_encode),
    ]
    try:
        from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription as KafkaPython

        kp_message = KafkaPython.decode(data)
        decoders.insert(3, ("kafka-python 3", lambda: KafkaPython.decode(data)))
        encoders.insert(3, ("kafka-python 3", lambda: kp_message.encode()))
    except ImportError:
        print("(kafka-python not installed: pip install kafka-python==3.0.12 to compare with it)")
    return decoders, encoders


def check_same_results(data: bytes) -> None:
    """Every contender must agree on the value before its speed means anything."""
    plain, version = km.decode_plain(TYPE, data)
    assert version == VERSION and hand_decode(data) == {k: plain[k] for k in ("topics", "user_data",
                                                                              "owned_partitions")}
    assert km.encode(km.decode(TYPE, data)) == data == hand_encode(VALUE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=5000, help="calls per timing (default 5000)")
    parser.add_argument("--repeat", type=int, default=15,
                        help="rounds, each timing every contender once; the best round of each is kept")
    args = parser.parse_args()

    data = km.get_format(TYPE).encode(VALUE, VERSION)
    check_same_results(data)
    print(f"record: {TYPE} v{VERSION}, {len(data)} bytes")
    decoders, encoders = contenders(data)
    for title, rows in (("decode", decoders), ("encode", encoders)):
        print_table(title, rows, "x hand-written", args.number, args.repeat, max(args.number // 20, 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
