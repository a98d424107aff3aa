"""The row rules stated once in kafka_meta.inputs (which kind a row is, how its text becomes bytes) and their
column form in kafka_meta.spark.row_rules agree: string by string, row by row, and file by file through
both faces' readers of JSON Lines and Parquet."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from kafka_meta.inputs import read
from kafka_meta.inputs.items import BYTES_FIELDS, Damage, Row, row_kind, sort_row
from kafka_meta.payload_text import ENCODINGS, PayloadTextError, problem, text_bytes

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"
V3 = "0003000000010003666f6fffffffff00000000ffffffffffff"  # a ConsumerProtocolSubscription v3, as hex

STRINGS = [
    # hex: either case, spaced over lines, after 0x
    "00ff", "00FF", "DeadBeef", "0x00ff", "0X00FF", " 00 ff\n", "00\tff\r\n", "0x", "0X", V3,
    # odd-length hex: base64 when it is whole base64 groups, else neither
    "abc", "abcde", "0", "0x1", "0xabc",
    # base64: padded and not, URL-safe, wrapped
    "QQ==", "QQ", "Zm8=", "Zm8", "Zm9vYg==", "Zm9vYg", "Zm9vYmFy", "a-_b", "a+/b", "-_8=", "Zm9v\nYg==", "QR==",
    base64.b64encode(bytes(range(256))).decode(), base64.urlsafe_b64encode(bytes(range(200))).decode().rstrip("="),
    # not base64: bad padding, lengths, characters
    "QQ=", "QUJD=", "QQ==QQ==", "=", "==", "a===", "ab=c", "Q", "QQQQQ",
    # empty, blank, garbage, non-ASCII, control characters, characters of other engines' whitespace
    "", " ", "\n\n", "!!!notbase64", "zz!", "0xzz", "0x0g", "é", "00é0", "😀", "ab😀cd", "\x00", "00\x00ff",
    "\u2028", "ab\u2028", "00\u00a0ff", "QQ\u3000==", "00\x1cff", "{\"group\": \"x\"}", "[1, 2]", "1234", "true",
    "ñ" * 4, "0x" + "é",
]


def outcome(text: str | None, encoding: str, field: str | None = None) -> tuple[bytes | None, str | None]:
    """(bytes, error) as the rule without Spark gives them."""
    if text is None:
        return None, None
    try:
        return text_bytes(text, encoding, field), None
    except PayloadTextError as e:
        return None, str(e)


# --- the rule itself ------------------------------------------------------------------------------------

def test_the_text_rule():
    assert text_bytes("0x00 ff\n") == b"\x00\xff" == text_bytes("AP8") == text_bytes("AP8=") == text_bytes("AP8",
                                                                                                         "base64")
    assert text_bytes("abcd") == b"\xab\xcd" and text_bytes("abcd", "base64") == base64.b64decode("abcd")  # hex first
    assert text_bytes("-_8") == text_bytes("+/8")  # URL-safe
    assert text_bytes("abc") == base64.b64decode("abc=")  # odd hex digits, but whole base64
    with pytest.raises(PayloadTextError, match=r"neither hex nor base64 in 'key' \(an odd number of hex digits\)"):
        text_bytes("abcde", field="key")
    with pytest.raises(PayloadTextError, match=r"\(an odd number of hex digits\)"):
        text_bytes("0xabc")  # 0x: hex or nothing (as base64 it would read)
    with pytest.raises(PayloadTextError, match=r"not valid base64 \(a length or padding that base64 does not have"):
        text_bytes("QQ=", "base64")
    with pytest.raises(PayloadTextError, match=r"\(a character that is neither hex nor base64\)"):
        text_bytes("!!!notbase64")
    with pytest.raises(PayloadTextError, match=r"\(dict, not text\)"):
        text_bytes({"group": "x"})  # type: ignore[arg-type]
    assert problem("zz!") == "a character that is neither hex nor base64" and problem("00") is None
    for text in STRINGS:  # never anything but bytes or the rule's own error
        for encoding in ENCODINGS:
            outcome(text, encoding)


def test_the_command_line_reads_text_by_the_same_rule():
    from kafka_meta.cli.blobs import BlobError, from_base64, from_hex, from_text

    for text in STRINGS:
        for read_text, encoding in ((from_hex, "hex"), (from_base64, "base64"), (from_text, "auto")):
            want = outcome(text, encoding)
            try:
                got = read_text(text), None
            except BlobError as e:
                got = None, str(e)
            assert got == want, (text, encoding)


def test_the_struct_bodies_name_choices_as_the_spark_schema_does():
    pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")
    import kafka_meta as km
    from kafka_meta.inputs import struct_bodies
    from kafka_meta.spark import schema

    assert all(struct_bodies.choice_name(t) == schema.choice_name(t) for t in km.types())


# --- rows ---------------------------------------------------------------------------------------------------

GOOD_KEY = json.loads(SAMPLE.read_text().splitlines()[0])["key"]
ROWS: list[dict] = [
    {"apiKey": 11, "apiName": "JoinGroup", "request": {"groupId": "g"}},  # an exchange
    {"apiKey": 11, "key": "zz!"},  # an exchange first: its 'key' is no record's
    {"key": GOOD_KEY, "value": None},  # a tombstone
    {"key": GOOD_KEY, "value": "0001", "offset": 3, "partition": 1},
    {"key": GOOD_KEY, "value": "not base64!"},
    {"key": "!!!notbase64", "value": None},
    {"key": "abcde"},
    {"key": None, "value": "00"},  # no key: no record
    {"key": "00", "type": "ConsumerProtocolSubscription", "hex": "zz"},  # a record first
    {"type": "ConsumerProtocolSubscription", "hex": V3},
    {"type": "ConsumerProtocolSubscription", "hex": "0x" + V3, "base64": "!!"},  # hex first: base64 not read
    {"type": "ConsumerProtocolSubscription", "hex": None, "base64": base64.b64encode(bytes.fromhex(V3)).decode()},
    {"type": "ConsumerProtocolSubscription", "base64": "QQ="},
    {"type": "ConsumerProtocolSubscription", "hex": "abc"},  # odd hex in a hex field
    {"type": "ConsumerProtocolSubscription", "blob": "abc"},  # a blob is either
    {"type": "ConsumerProtocolSubscription"},  # no bytes: no payload
    {"type": None, "hex": "00"},
    {"subscription": V3, "assignment": None, "member": "m"},
    {"subscription": V3, "assignment": "!!"},
    {"subscription": "xyz!"},
    {"subscription": "", "member": "m"},
    {"group": "g", "member": "m"},  # none
    {},
]


def spark_outcomes(spark, rows: list[dict]) -> list[tuple[str | None, str | None]]:
    """(kind, error) of each row through the column rules, every field a column of text as JSON Lines give it."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.row_rules import row_bytes, row_kind, text_field

    names = sorted({"apiKey", *(f for fields in BYTES_FIELDS.values() for f, _ in fields), "type", "subscription"})
    frame = spark.createDataFrame([tuple(None if r.get(n) is None else str(r[n]) for n in names) for r in rows],
                                  ", ".join(f"{n} string" for n in names))
    kind = row_kind(lambda f: F.col(f).isNotNull())
    error = F.lit(None).cast("string")
    for k in ("record", "payload", "member"):
        error = F.when(kind == k, row_bytes(k, lambda f, e: text_field(F.col(f), e, f))[1]).otherwise(error)
    return [(r.kind, r.error) for r in frame.select(kind.alias("kind"), error.alias("error")).collect()]


def plain_outcome(data: dict) -> tuple[str | None, str | None]:
    row = sort_row(data, "f", 1)
    if isinstance(row, Damage):
        return row_kind(data), row.text.removeprefix("f line 1: ")
    return (row.kind if isinstance(row, Row) else None), None


def test_the_column_rules_agree_with_the_rules_on_every_string_and_every_kind_of_row(spark):
    """One session: the text rule on every string in every encoding, then the row rule on rows of every kind and
    mixtures of kinds."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.row_rules import text_bytes as column_bytes

    frame = spark.createDataFrame([(s,) for s in [*STRINGS, None]], "s string")
    columns = []
    for encoding in ENCODINGS:
        data, error = column_bytes(F.col("s"), encoding, "key")
        columns += [data.alias(f"{encoding}_bytes"), error.alias(f"{encoding}_error")]
    for row in frame.select("s", *columns).collect():
        for encoding in ENCODINGS:
            got = (None if row[f"{encoding}_bytes"] is None else bytes(row[f"{encoding}_bytes"]),
                   row[f"{encoding}_error"])
            assert got == outcome(row.s, encoding, "key"), (row.s, encoding)
    rows = [{k: (json.dumps(v) if isinstance(v, dict) else v) for k, v in r.items()} for r in ROWS]
    assert spark_outcomes(spark, rows) == [plain_outcome(r) for r in rows]
    assert {k for k, _ in map(plain_outcome, rows)} == {"exchange", "record", "payload", "member", None}
    assert sum(e is not None for _, e in map(plain_outcome, rows)) == 7  # the rows whose bytes do not read


# --- files, through both faces' readers -------------------------------------------------------------------------

def faces(spark, path: Path) -> tuple[dict[str, int], dict[str, int], list[str], list[str]]:
    """(rows of each kind, Spark's rows of each kind), and the damage each says of rows whose bytes do not read
    (their messages, without the place)."""
    from pyspark.sql import functions as F

    from kafka_meta.spark.inputs import read_inputs

    plain = read([str(path)])
    spark_inputs = read_inputs(spark, [str(path)])
    counts = {"exchange": len(plain.exchanges), "record": len(plain.offsets), "payload": len(plain.payloads)}
    said = sorted(p.split(": ", 1)[1] for p in plain.problems if " in '" in p)
    frames = {"exchange": spark_inputs.exchanges, "record": spark_inputs.offsets, "payload": spark_inputs.blobs}
    seen, unread = {}, []
    for kind, frame in frames.items():
        if frame is None:
            seen[kind] = 0
            continue
        bad = F.col("_error").isNotNull() if kind != "exchange" else F.lit(False)
        seen[kind] = frame.where(~bad).count()
        unread += [r._error for r in frame.where(bad).select("_error").collect()]
    if spark_inputs.damage is not None:
        unread += [r._error for r in spark_inputs.damage.collect()]
    return counts, seen, said, sorted(e.split(": ", 1)[1] for e in unread)


def test_json_lines_and_parquet_read_the_same_rows_in_both_faces(spark, tmp_path):
    """Rows of every kind, good and bad, in one JSON Lines file and in one Parquet file: the same rows of each
    kind in both faces, the same rows said to be unreadable, each with the same reason; rows in = rows out."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = tmp_path / "rows.jsonl"
    lines.write_text("".join(json.dumps(r) + "\n" for r in ROWS) + "# a comment\n\n[1, 2]\n"
                     + SAMPLE.read_text())
    counts, seen, said, unread = faces(spark, lines)
    assert counts == seen and said == unread and len(said) == 7
    # Parquet: bytes as bytes, or as text; a number where text is wanted said as the rule says it
    table = pa.table({"key": [bytes.fromhex(GOOD_KEY), None, None, None, None, None],
                      "value": [b"\x00\x01", None, None, None, None, None],
                      "type": [None, "ConsumerProtocolSubscription", "ConsumerProtocolSubscription", None, None, None],
                      "hex": [None, V3, "zz", None, None, None],
                      "subscription": [None, None, None, V3, "!!", None],
                      "apiKey": pa.array([None, None, None, None, None, 11], pa.int32())})
    pq.write_table(table, tmp_path / "rows.parquet")
    counts, seen, said, unread = faces(spark, tmp_path / "rows.parquet")
    assert counts == seen == {"exchange": 1, "record": 1, "payload": 1}
    assert said == unread == sorted(["not valid hex in 'hex' (a character that is not a hex digit)",
                                     "neither hex nor base64 in 'subscription' (a character that is neither hex "
                                     "nor base64)"])
