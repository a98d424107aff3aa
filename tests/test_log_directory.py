"""A broker's whole log directory as one input: each internal topic by its own reader, a user topic's partitions
summarised by their batch headers, ``--topic`` to choose; and a renamed copy of ``__consumer_offsets`` still
read as one (told by its records)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from cli_support import run
from log_support import LOGS, kafka_python_batch

from kafka_meta.cli.main import main
from kafka_meta.inputs import read
from kafka_meta.log import read_log

LAB = Path(__file__).resolve().parent.parent / "fixtures" / "lab" / "transactions-hanging" / "kafka-logs"


def test_a_user_topic_is_one_row_per_partition_of_what_its_headers_say():
    inputs = read([str(LAB)])
    rows = {(p["topic"], p["partition"]): p for p in inputs.partitions}
    assert set(rows) == {("lab-txh-out", 0), ("lab-txh-out", 1)}
    for (topic, partition), row in rows.items():
        records = [r for r in read_log(LAB / f"{topic}-{partition}") if r["_error"] is None]
        data = [r for r in records if not r["control"]]
        assert row["records"] == len(data) and row["logEndOffset"] == records[-1]["offset"] + 1
        assert row["transactions"] == sum(r["control"] for r in records)
        open_offsets = [r["offset"] for r in data if r["transaction"] == "open"]
        assert row["lastStableOffset"] == (min(open_offsets) if open_offsets else row["logEndOffset"])
        assert [t["firstOffset"] for t in row["openTransactions"]] == open_offsets[:1]
    assert not any(r.get("topic") == "lab-txh-out" for r in inputs.offsets)  # never read as offsets records


def test_offsets_says_which_topics_it_skipped(capsys):
    assert main(["offsets", str(LAB)]) == 0  # a healthy directory: no errors
    out, err = capsys.readouterr()
    printed = [json.loads(line) for line in out.splitlines()]
    assert printed and {r["topic"] for r in printed} == {"__consumer_offsets"}
    skipped = next(line for line in err.splitlines() if line.startswith("skipped, other topics"))
    for topic in ("__cluster_metadata", "__transaction_state", "lab-txh-out"):
        assert f"of {topic}" in skipped
    aborted = [r for r in printed if r.get("transaction") == "aborted" and r.get("record") == "OffsetCommit"]
    opened = [r for r in printed if r.get("transaction") == "open"]
    assert aborted and opened and all(r["producerId"] >= 0 for r in aborted + opened)


def test_log_decodes_each_topic_by_its_own_reader_and_topic_chooses(capsys):
    assert main(["log", "--decode", str(LAB)]) == 0
    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines()]
    records = {line["topic"]: line.get("record") or line.get("recordType") for line in lines}
    assert records["__transaction_state"] == "TransactionLog" and records["__consumer_offsets"]
    assert all("record" not in line and "key" in line for line in lines if line["topic"] == "lab-txh-out")
    assert main(["log", "--decode", "--topic", "__transaction_state", str(LAB)]) == 0
    chosen = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert chosen and {line["topic"] for line in chosen} == {"__transaction_state"}
    assert main(["log", "--topic", "no-such-topic", str(LAB)]) == 1
    assert "no partition of topic 'no-such-topic' here" in capsys.readouterr().err


def test_a_renamed_copy_of_the_offsets_topic_is_still_read_as_one(tmp_path):
    shutil.copytree(LOGS / "__consumer_offsets-1", tmp_path / "offsets-backup-1")
    inputs = read([str(tmp_path)])
    assert not inputs.partitions and len(inputs.offsets) > 10
    assert {r["topic"] for r in inputs.offsets} == {"offsets-backup"}


def test_log_decode_counts_each_internal_topics_records_by_type(capsys, tmp_path):
    tiered = LAB.parents[2] / "tiered" / "kafka-logs"
    share = LAB.parent.parent / "share" / "kafka-logs"
    code, lines, err = run(capsys, ["log", "--decode", str(LAB), str(tiered), str(share)])
    assert code == 0
    for topic in ("__transaction_state", "__share_group_state", "__remote_log_metadata"):
        names = Counter(line["record"] for line in lines if line["topic"] == topic)
        assert names, topic
        counted = ", ".join(f"{name} {n}" for name, n in sorted(names.items()))
        assert f"{topic}: records {sum(names.values())} ({counted}); tombstones 0; unknown 0;" in err
    assert "not decoded (no group coordinator records there): 45 of lab-txh-out" in err
    assert "__transaction_state" not in err.split("not decoded")[1]
    # a record of the topic that does not read is its topic's error, and the run's
    partition = tmp_path / "__transaction_state-7"
    partition.mkdir()
    (partition / "00000000000000000000.log").write_bytes(kafka_python_batch(0, [(b"\x00\x00\xff", b"\x00\x01")]))
    code, lines, err = run(capsys, ["log", "--decode", str(partition)])
    assert code == 1 and "_error" in lines[0]
    assert "__transaction_state: records 0 (none); tombstones 0; unknown 0; control 0; read-forward 0; " \
           "member errors 0; errors 1" in err
