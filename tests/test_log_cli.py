"""``kafka-meta log``: JSON Lines from segments; --decode gives exactly what ``kafka-meta offsets`` gives."""

from __future__ import annotations

import base64
import json
import os
import shutil

from cli_support import run
from log_support import LOGS, copy_partition

from kafka_meta.cli import log_dump
from kafka_meta.log import Segment, read_log


def test_decode_matches_the_offsets_command(capsys, tmp_path):
    dump = tmp_path / "dump.jsonl"
    with dump.open("w") as f:
        for row in read_log(LOGS):
            if row["_error"] is None:
                txn = {} if row["transaction"] is None else {"producerId": row["producerId"],
                                                             "transaction": row["transaction"]}
                f.write(json.dumps({"topic": row["topic"], "partition": row["partition"], "offset": row["offset"],
                                    "timestamp": row["timestamp"], "key": row["key"].hex(),
                                    "value": None if row["value"] is None else row["value"].hex(),
                                    "control": row["control"], **txn}) + "\n")
    _, expected, offsets_err = run(capsys, ["offsets", str(dump), "--raw"])
    expected = [{k: v for k, v in r.items() if k != "line"} for r in expected]  # the dump's line numbers
    code, rows, err = run(capsys, ["log", str(LOGS), "--decode", "--raw"])
    decoded = [r for r in rows if "_error" not in r]
    assert decoded == expected and len(decoded) == 3 * 37 + 2 + 36
    assert offsets_err.strip().splitlines()[-1] == err.strip().splitlines()[-1]  # the same record summary
    assert code == 1 and len(rows) - len(decoded) == 2  # the mock broker's two markers without a CRC


def test_plain_output_and_summary(capsys):
    code, rows, err = run(capsys, ["log", str(LOGS / "__consumer_offsets-0")])
    assert code == 0 and len(rows) == 39
    first = next(read_log(LOGS / "__consumer_offsets-0"))
    assert base64.b64decode(rows[0]["key"]) == first["key"] and rows[0]["topic"] == "__consumer_offsets"
    assert [r["offset"] for r in rows if r["control"]] == [24, 29]
    assert any(r["headers"] == [{"key": "source", "value": base64.b64encode(b"fixture").decode()},
                                {"key": "index", "value": base64.b64encode(b"0").decode()}] for r in rows)
    summary = err.strip().splitlines()[-1]
    assert summary.startswith("2 segment(s), 2958 bytes: 12 batches (12 magic 2;")
    assert "37 records, control markers: 1 abort, 1 commit, damage: 0" in summary
    assert "4 lz4" in summary and "1 zstd" in summary and "1 gzip" in summary


def test_filters(capsys):
    _, rows, _ = run(capsys, ["log", str(LOGS / "__consumer_offsets-2"), "--decode", "--group", "checkout"])
    assert rows and all(r["key"]["groupId"] == "checkout" for r in rows)
    _, rows, _ = run(capsys, ["log", str(LOGS / "__consumer_offsets-1"), "--from-offset", "30"])
    assert [r["offset"] for r in rows] == list(range(30, 37))


def test_damage_lines_and_exit_code(capsys, tmp_path):
    directory = copy_partition(tmp_path, 1)
    path = directory / "00000000000000000000.log"
    data = path.read_bytes()
    path.write_bytes(data[:len(data) - 10])
    code, rows, err = run(capsys, ["log", str(directory)])
    assert code == 1 and "_error" in rows[-1] and rows[-1]["offset"] == 36
    assert f"{path}, byte " in rows[-1]["_error"] and "cut off" in rows[-1]["_error"]
    assert len(rows) == 37 and "damage: 1" in err


def test_bad_inputs(capsys, tmp_path):
    code, _, err = run(capsys, ["log", str(tmp_path)])
    assert code == 1 and "nothing to read" in err and "Traceback" not in err
    code, _, err = run(capsys, ["log", str(tmp_path / "nope.log")])
    assert code == 2 and "no such file" in err  # a path that does not exist: the command line's mistake
    for name in ("00000000000000000000.log", "empty.pcap"):  # no content, no kind: whatever the name says
        empty = tmp_path / name
        empty.write_bytes(b"")
        code, rows, err = run(capsys, ["log", str(empty), str(LOGS / "__consumer_offsets-1")])
        assert code == 1 and f"kafka-meta log: {empty}: empty: nothing to read" in err.splitlines()[0]
        assert len(rows) == 37 and "Traceback" not in err  # the other input is still read
        empty.unlink()
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    code, rows, err = run(capsys, ["log", str(junk)])
    assert code == 1 and len(rows) == 1 and "not the start of a Kafka log entry" in rows[0]["_error"]
    code, _, err = run(capsys, ["log", str(junk), "--max-batch-bytes", "0"])
    assert code == 2 and "must be positive" in err


def test_progress_on_big_inputs(capsys, monkeypatch):
    monkeypatch.setattr(log_dump, "PROGRESS_EVERY", 0.0)
    _, _, err = run(capsys, ["log", str(LOGS)])
    progress = [line for line in err.splitlines() if line.startswith("... ")]
    assert progress and "/5 segments" in progress[-1] and "__consumer_offsets-3" in progress[-1]


def test_decode_reads_the_other_internal_topics_with_their_own_decoders(capsys, tmp_path):
    """A broker's log directory also holds __transaction_state and __share_group_state, whose records are no
    group coordinator records: --decode reads them with their topic's decoder (kafka_meta.internal_topics), where
    reading them as __consumer_offsets records would report each as an error (tests/test_internal_topics.py holds
    the decoders to real recordings), and --group never selects them."""
    from log_support import kafka_python_batch

    state = tmp_path / "__transaction_state-0"
    state.mkdir()
    key = b"\x00\x00\x00\x03txn"  # record type 0, transactional id "txn"; a value too short to read
    value = b"\x00\x01\x00\x00\x00\x00\x00\x00\x00\x07"
    (state / "00000000000000000000.log").write_bytes(kafka_python_batch(0, [(key, None), (key, value)]))
    shutil.copytree(LOGS / "__consumer_offsets-0", tmp_path / "__consumer_offsets-0")
    code, rows, err = run(capsys, ["log", "--decode", str(tmp_path)])
    assert code == 1 and len(rows) == 2 + 39  # the damaged value is an error, said where it is
    tombstone, damaged = [r for r in rows if r["topic"] == "__transaction_state"]
    assert tombstone["record"] == "TransactionLog" and tombstone["key"] == {"transactionalId": "txn"}
    assert tombstone["value"] is None and "__transaction_state record" not in err
    assert damaged["_error"].startswith("TransactionLogValue v1") and "offset 1: TransactionLogValue v1" in err
    assert "not decoded" not in err
    code, rows, _ = run(capsys, ["log", "--group", "billing", str(tmp_path)])  # errors are printed all the same
    assert rows and all(r["topic"] == "__consumer_offsets" or "_error" in r for r in rows)
    assert [r["offset"] for r in rows if r["topic"] == "__transaction_state"] == [1]


def _log_process(argv: list[str]) -> tuple[int, bytes, list[str]]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "log", *argv], capture_output=True,
                          timeout=300)
    # progress lines ("... 2/5 segments, ...") come every few seconds of wall time, so they depend on the load
    return done.returncode, done.stdout, [line for line in done.stderr.decode().splitlines()
                                          if not line.startswith("... ")]


def test_segments_read_side_by_side_print_what_one_process_prints(tmp_path):
    """--jobs: several processes, a segment each at a time, and the same bytes out, in the same order, with the
    same summary and the same damage notes (one segment is damaged: its CRC no longer fits)."""
    for partition in range(4):
        copy_partition(tmp_path, partition)
    segment = next((tmp_path / "__consumer_offsets-1").glob("*.log"))
    data = bytearray(segment.read_bytes())
    data[70] ^= 0xFF  # inside the first batch's records: a CRC mismatch, read around
    segment.write_bytes(bytes(data))
    for options in (["--decode"], ["--decode", "--raw"], ["--group", "ledger"], []):
        one = _log_process([*options, "--jobs", "1", str(tmp_path)])
        many = _log_process([*options, "--jobs", "3", str(tmp_path)])
        assert one == many, options
        code, out, err = one
        assert code == 1 and out.count(b"\n") > 5 and any("CRC" in line or "crc" in line for line in err), options


def test_jobs_must_be_positive(capsys):
    code, _, err = run(capsys, ["log", str(LOGS), "--jobs", "0"])
    assert code == 2 and "--jobs must be at least 1" in err


def test_the_default_is_a_process_per_core_from_a_few_megabytes(tmp_path):
    """Below PARALLEL_FROM_BYTES of segments one process prints them; from there on one per core, at most one per
    segment; --jobs overrides both."""

    def segments(sizes: list[int]) -> list[Segment]:
        made = []
        for i, size in enumerate(sizes):
            path = tmp_path / f"{i:020d}.log"
            with open(path, "wb") as f:
                f.truncate(size)
            made.append(Segment(str(path), "__consumer_offsets", 0))
        return made

    cores = len(os.sched_getaffinity(0))
    threshold = log_dump.PARALLEL_FROM_BYTES
    assert log_dump.jobs_for(segments([threshold // 2 - 1, threshold // 2]), None) == 1
    assert log_dump.jobs_for(segments([threshold // 2, threshold // 2]), None) == min(cores, 2)
    assert log_dump.jobs_for(segments([threshold]), None) == 1  # one segment is one process's work
    assert log_dump.jobs_for(segments([1, 1, 1]), 2) == 2 and log_dump.jobs_for(segments([1]), 4) == 1
