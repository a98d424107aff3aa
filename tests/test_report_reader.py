"""``kafka-meta report`` reads its inputs in one pass (kafka_meta.analysis.report_reader): the document is the
one the collected reading gives (every row held, sorted into log order, the commits kept one by one), on every
recording of a real broker the project holds, and rows that come out of log order are collected and sorted
instead of being read in the wrong order."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kafka_meta.analysis.assemble import build_timeline
from kafka_meta.analysis.inventory import RecordInventory, take_inputs
from kafka_meta.analysis.lag_feed import standings_of
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.report_reader import NotInLogOrder
from kafka_meta.analysis.transaction_feed import transactions_of
from kafka_meta.cli.report_reading import read_in_turn, read_report
from kafka_meta.inputs import read

ROOT = Path(__file__).resolve().parents[1]
LAB = sorted((ROOT / "fixtures" / "lab").glob("*/kafka-logs"))
CAPTURES = ROOT / "fixtures" / "captures"
README_INPUTS = [CAPTURES / "capture.jsonl", CAPTURES / "pcap", ROOT / "fixtures" / "log" / "kafka-logs",
                 ROOT / "fixtures" / "lab" / "streams-upgrade" / "capture.pcapng",
                 ROOT / "fixtures" / "lab" / "streams-upgrade" / "kafka-logs",
                 ROOT / "fixtures" / "lab" / "storm" / "capture.pcapng"]


def collected(names: list[str]) -> dict:
    """The document as reading everything into memory first tells it."""
    inputs = read(names)
    report = AnalysisReport(unreadable=[str(u) for u in inputs.unreadable], damage=inputs.problems)
    inventory = RecordInventory(report)
    report.timeline = build_timeline(inputs.exchanges, inputs.offsets, observer=inventory)
    report.timeline.transactions = transactions_of(inputs.offsets, inputs.partitions, report.timeline.errors)
    take_inputs(inventory.finish(), exchanges=inputs.exchanges, payloads=inputs.payloads)
    report.stand(standings_of(inputs.offsets, inputs.partitions, report.timeline))
    return json.loads(json.dumps(report.to_json(), default=str))


def streamed(names: list[str], ordered: bool = True) -> dict:
    return json.loads(json.dumps(read_report(names, None, ordered).to_json(), default=str))


@pytest.mark.parametrize("inputs", [[p] for p in LAB] + [README_INPUTS],
                         ids=[p.parent.name for p in LAB] + ["readme"])
def test_one_pass_tells_what_reading_everything_first_tells(inputs):
    names = [str(p) for p in inputs]
    doc = streamed(names)  # a broker's directory is read in log order: no NotInLogOrder
    assert doc == collected(names)
    assert doc["groups"] and sum(doc["records"].values()) > 0


def test_partitions_are_read_by_number(tmp_path):
    """Partition 10 after partition 2, as log order has them (not as their names sort)."""
    source = ROOT / "fixtures" / "lab" / "classic" / "kafka-logs"
    offsets = sorted(source.glob("__consumer_offsets-*"))
    assert offsets, "the classic recording holds __consumer_offsets"
    logs = tmp_path / "kafka-logs"
    logs.mkdir()
    for number, part in zip((10, 2, 1), offsets, strict=False):
        shutil.copytree(part, logs / f"__consumer_offsets-{number}")
    assert streamed([str(logs)]) == collected([str(logs)])


def test_rows_out_of_log_order_are_collected_and_sorted(tmp_path):
    """A dump whose partitions are interleaved cannot be read as it comes: the one-pass reader says so, and
    the reader that collects first gives what reading everything gives."""
    logs = str(ROOT / "fixtures" / "lab" / "classic" / "kafka-logs")
    rows = [r for r in read([logs]).offsets if r.get("topic") == "__consumer_offsets"]
    assert len({r["partition"] for r in rows}) > 1
    interleaved = sorted(rows, key=lambda r: (r["offset"], r["partition"]))
    dump = tmp_path / "interleaved.jsonl"
    dump.write_text("".join(json.dumps({k: (v.hex() if isinstance(v, bytes) else v) for k, v in r.items()
                                        if not k.startswith("_") and k != "headers"}) + "\n"
                            for r in interleaved))
    with pytest.raises(NotInLogOrder, match="comes after a record later in log order"):
        read_in_turn([str(dump)], None, ordered=True)
    assert streamed([str(dump)], ordered=False) == collected([str(dump)])


def test_the_cli_falls_back_to_collecting(tmp_path, capsys):
    from kafka_meta.cli.main import main

    logs = str(ROOT / "fixtures" / "lab" / "classic" / "kafka-logs")
    rows = [r for r in read([logs]).offsets if r.get("topic") == "__consumer_offsets"]
    dump = tmp_path / "interleaved.jsonl"
    dump.write_text("".join(json.dumps({k: (v.hex() if isinstance(v, bytes) else v) for k, v in r.items()
                                        if not k.startswith("_") and k != "headers"}) + "\n"
                            for r in sorted(rows, key=lambda r: (r["offset"], r["partition"]))))
    main(["report", str(dump), "--format", "json"])
    assert json.loads(capsys.readouterr().out) == collected([str(dump)])


@pytest.mark.parametrize("logs", LAB, ids=[p.parent.name for p in LAB])
def test_processes_per_core_add_up_to_one_reading(logs):
    """Partitions read by two processes, their readers added up: the document of one reading."""
    from kafka_meta.cli.report_reading import in_parallel, plan

    chunks = plan([str(logs)], 2)
    if chunks is None:
        pytest.skip(f"{logs.parent.name}: its bytes make one run (one partition holds nearly all)")
    assert len(chunks) == 2
    together = json.loads(json.dumps(in_parallel(chunks, None).to_json(), default=str))
    assert together == streamed([str(logs)])


def test_a_group_in_two_partitions_is_read_in_one_process(monkeypatch):
    """fixtures/log holds groups in several partitions (copies): adding readers up would depend on the
    order, so the plan tells it from the partitions' first records and one process reads it all, once; where
    the first records do not show it, the merge refuses and one process reads it again."""
    from kafka_meta.analysis.generations import NotMergeable
    from kafka_meta.cli import report_reading
    from kafka_meta.cli.report_reading import in_parallel, plan

    logs = str(ROOT / "fixtures" / "log" / "kafka-logs")
    assert plan([logs], 2) is None
    monkeypatch.setattr(report_reading, "shared_groups", lambda sources: False)
    with pytest.raises(NotMergeable, match="both read group"):
        in_parallel(plan([logs], 2), None)
    assert json.loads(json.dumps(read_report([logs], None, True, jobs=2).to_json(), default=str)) \
        == collected([logs])


def test_partitions_of_their_own_groups_are_planned_apart():
    """A broker's layout (each group in one partition) is read by processes: the first records tell no group
    in two partitions."""
    from kafka_meta.cli.report_reading import shared_groups
    from kafka_meta.inputs import classify

    for logs in LAB:
        assert not shared_groups(classify(str(logs))[0]), logs.parent.name
    assert shared_groups(classify(str(ROOT / "fixtures" / "log" / "kafka-logs"))[0])


def test_a_commit_that_never_took_effect_is_not_the_groups_committed_offset(tmp_path):
    """The newest record of a key is its newest in force: an aborted transaction's commit never was, an open
    one's not yet, so neither counts among the group's committed partitions (as the analyze job counts)."""
    from kafka_meta.offsets import encode_record, new_record

    def commit(partition: int, offset: int, transaction: str | None) -> str:
        key, value = encode_record(new_record("OffsetCommit", {"group": "g", "topic": "t", "partition": partition},
                                              {"offset": offset}))
        return json.dumps({"topic": "__consumer_offsets", "partition": 0, "offset": offset, "key": key.hex(),
                           "value": value.hex(), "producerId": -1 if transaction is None else 7,
                           "transaction": transaction}) + "\n"

    dump = tmp_path / "commits.jsonl"
    dump.write_text(commit(0, 1, None) + commit(1, 2, "aborted") + commit(2, 3, "open") + commit(3, 4, "committed"))
    assert streamed([str(dump)])["groups"]["g"]["committedPartitions"] == 2  # partitions 0 and 3
