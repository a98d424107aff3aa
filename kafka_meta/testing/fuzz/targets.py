"""What is fuzzed: one entry per reader, in ``TARGETS``.

A target turns arbitrary bytes into one call of a reader. Readers with several types or options take them
from the first bytes of the input, so a mutation can move between types and options as well as within a
payload; the seeds are real bytes laid out the same way. A reader that is not installed (``kafka_meta.capture``
and ``kafka_meta.log`` are optional) is left out: ``load`` raises ImportError and ``available()`` skips it.
Adding a reader is adding one entry.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs import CAPTURE, SEGMENT
from kafka_meta.testing.fuzz import seeds

Run = Callable[[bytes], object]


@dataclass(frozen=True)
class Target:
    name: str
    about: str
    load: Callable[[], Run]  # the one-input function; ImportError when the reader is not installed
    seeds: Callable[[], list[bytes]]
    expected: tuple[type[BaseException], ...] = (KafkaMetaError,)  # what the reader documents it raises
    # readers of whole files report damage in their output and refuse only a file that is no capture or segment
    # at all, which random mutations of a real one seldom make: a short pass need not see a refusal
    reads_around_damage: bool = False
    # the largest input the coverage-guided engine makes (larger seeds are cut to it): a whole-file reader's
    # time grows with the file, so the 50 ms promise is judged on files of a bounded size
    max_input: int | None = None


# --- decoder families: byte 0 picks the type, byte 1 the options, the rest is the payload --------------

STRICT = 0x01
HAS_VERSION = 0x02


def options_byte(strict: bool, version: int | None) -> int:
    flags = STRICT if strict else 0
    return flags | (HAS_VERSION | version << 2 if version is not None and 0 <= version < 64 else 0)


def read_options(data: bytes) -> tuple[bool, int | None]:
    flags = data[1] if len(data) > 1 else 0
    return bool(flags & STRICT), (flags >> 2 if flags & HAS_VERSION else None)


@cache
def family_types(family: str) -> tuple[str, ...]:
    import kafka_meta as km

    return tuple(n for n in km.types() if getattr(km.get_format(n), "family", None) == family)


def family_seeds(family: str) -> list[bytes]:
    names = family_types(family)
    known = set(names)
    out = []
    for blob in seeds.blobs():
        for t in seeds.type_names(blob.name, known):
            body = blob.key if t.endswith("Key") and blob.key is not None and blob.name != t else blob.value
            if body is not None:
                version = None if t.endswith("Key") and blob.name != t else blob.version
                out.append(bytes([names.index(t), options_byte(False, version)]) + body)
    return out


def family_decoder(family: str) -> Run:
    import kafka_meta as km

    names = family_types(family)

    def run(data: bytes) -> None:
        name = names[data[0] % len(names)] if data else names[0]
        strict, version = read_options(data)
        km.decode(name, data[2:], version=version, strict=strict)
        km.decode_plain(name, data[2:], version=version, strict=strict)

    return run


def spark_batch_decoder() -> Run:
    """The Spark workers' decoder, PERMISSIVE: a bad blob is an error value in its row, so nothing at all
    may escape once the decoder is built (building it checks the options, which may be refused)."""
    import pyarrow as pa

    from kafka_meta.spark.batch import PERMISSIVE, batch_decoder

    names = family_types("consumer") + family_types("assignors") + family_types("streams") + family_types(
        "metadata") + family_types("metadata-log")

    def run(data: bytes) -> None:
        name = names[data[0] % len(names)] if data else names[0]
        strict, version = read_options(data)
        try:
            decoder = batch_decoder(name, PERMISSIVE, version, strict)
        except KafkaMetaError:
            return
        out = decoder(pa.array([data[2:]], pa.binary()))
        if len(out) != 1:
            raise AssertionError(f"{len(out)} rows out for 1 in")

    return run


def spark_batch_seeds() -> list[bytes]:
    out = []
    names = family_types("consumer") + family_types("assignors") + family_types("streams") + family_types(
        "metadata") + family_types("metadata-log")
    for family in ("consumer", "assignors", "streams", "metadata", "metadata-log"):
        offset = names.index(family_types(family)[0]) if family_types(family) else 0
        out += [bytes([seed[0] + offset]) + seed[1:] for seed in family_seeds(family)]
    return out


# --- __consumer_offsets records: byte 0 flags, bytes 1-2 the key's length, the key, the value ------------

TOMBSTONE, RECORD_STRICT, CONTROL, FLAT = 0x01, 0x02, 0x04, 0x08


def record_seeds() -> list[bytes]:
    return [bytes([TOMBSTONE if b.value is None else 0]) + len(b.key).to_bytes(2, "big") + b.key + (b.value or b"")
            for b in seeds.blobs() if b.key is not None and len(b.key) < 1 << 16]


def record_decoder() -> Run:
    from kafka_meta.offsets import decode_record

    def run(data: bytes) -> None:
        flags = data[0] if data else 0
        size = int.from_bytes(data[1:3], "big")
        key, value = data[3:3 + size], data[3 + size:]
        decode_record(key, None if flags & TOMBSTONE else value, strict=bool(flags & RECORD_STRICT),
                      control=bool(flags & CONTROL), nested=not flags & FLAT)

    return run


# --- file readers: the bytes are a file's content ------------------------------------------------------

LOG_INPUT = 32 << 10  # a segment of some hundred batches
CAPTURE_INPUT = 2 << 10  # some ten packets: every exchange of the seed captures fits in one window


def capture_reader() -> Run:
    """``read_capture`` on the input as a file's content, read from memory (the file face is a thin loop
    over the sans-IO decoder; a file per input would cost more than reading it)."""
    from kafka_meta.capture import read_capture

    def run(data: bytes) -> None:
        for _ in read_capture(io.BytesIO(data)):
            pass

    return run


def log_reader() -> Run:
    """The rows ``read_log`` makes of a segment, from the input as that segment's bytes."""
    from kafka_meta.log import Segment, SegmentReader, segment_rows

    segment = Segment("__consumer_offsets-0/00000000000000000000.log", "__consumer_offsets", 0)

    def run(data: bytes) -> None:
        for _ in segment_rows(segment, SegmentReader().batches(data)):
            pass

    return run


def capture_seeds() -> list[bytes]:
    return [w for f in seeds.files(CAPTURE) for w in seeds.capture_windows(f, CAPTURE_INPUT)]


TARGETS: dict[str, Target] = {
    t.name: t for t in [
        *(Target(f, f"kafka_meta.decode and decode_plain of every type of the {f} family",
                 (lambda f=f: family_decoder(f)), (lambda f=f: family_seeds(f)))
          for f in ("consumer", "assignors", "streams", "control", "metadata", "metadata-log", "offsets",
                    "offsets-variants")),
        Target("spark-batch", "the Spark workers' PERMISSIVE batch decoder (nothing may escape)",
               spark_batch_decoder, spark_batch_seeds, expected=()),
        Target("offsets-record", "kafka_meta.offsets.decode_record, nested member metadata included",
               record_decoder, record_seeds),
        Target("capture", "kafka_meta.capture.read_capture on a capture file's content, as an open stream",
               capture_reader, capture_seeds, reads_around_damage=True, max_input=CAPTURE_INPUT),
        Target("log", "kafka_meta.log.segment_rows on a __consumer_offsets segment's bytes (read_log's rows)",
               log_reader, lambda: seeds.files(SEGMENT), reads_around_damage=True, max_input=LOG_INPUT),
    ]
}


def available() -> dict[str, Run]:
    """The targets whose reader is installed, loaded."""
    loaded = {}
    for name, target in TARGETS.items():
        try:
            loaded[name] = target.load()
        except ImportError:
            continue
    return loaded
