"""How ``kafka-meta report`` reads its inputs: in one pass, and a broker's big log directory by one process per
core, their readers' states added up.

The report's reader (:class:`~kafka_meta.analysis.report_reader.ReportReader`) holds what the report shows, not
the rows, so a process that read some partitions can hand its reader back and the readers can be added up
(:meth:`~kafka_meta.analysis.report_reader.ReportReader.merge`). That is exact where no group, key or
transactional id was read by two of them, which is how a broker lays its internal topics out (a group lives in
one partition of ``__consumer_offsets``, a transactional id in one of ``__transaction_state``); where it is not
(two copies of one partition, say) the inputs are read in one process: told before reading by the first
records of each partition (:func:`shared_groups`) where they show it, else by the merge, which then reads them
again. Inputs that are not all log
segments, and logs too small for processes to pay, are read in one pass here; rows that come out of log order
are collected and sorted first (:class:`~kafka_meta.analysis.report_reader.NotInLogOrder`).
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kafka_meta.analysis.findings import Thresholds
from kafka_meta.analysis.generations import NotMergeable
from kafka_meta.analysis.report import AnalysisReport
from kafka_meta.analysis.report_reader import NotInLogOrder, ReportReader
from kafka_meta.cli.processes import usable_cores, worker_context
from kafka_meta.errors import KafkaMetaError
from kafka_meta.inputs import Damage, Row, Source, classify, rows, source_rows
from kafka_meta.inputs.items import Item
from kafka_meta.inputs.segment import OFFSETS_TOPIC, RecordBatch
from kafka_meta.log import Partition, read_partitions
from kafka_meta.log.files import SEGMENT_SUFFIX
from kafka_meta.offsets import decode_record
from kafka_meta.offsets.commit_view import commit_key

PARALLEL_FROM_BYTES = 64 << 20  # below this, starting processes costs more than they save
SNIFFED_RECORDS = 256  # records read from the start of each partition to tell whether two hold one group
Chunk = list[tuple[str, Source]]  # partitions of the inputs, each with the input it was found under


def read_report(names: list[str], thresholds: Thresholds | None = None, ordered: bool = True,
                jobs: int | None = None) -> AnalysisReport:
    """The report of the inputs ``names``. ``ordered`` reads the rows as they come (falling back to collecting
    and sorting them if they come out of log order); ``jobs`` caps the processes (default: one per core, for a
    log of at least :data:`PARALLEL_FROM_BYTES`)."""
    if ordered:
        chunks = plan(names, jobs)
        if chunks is not None:
            try:
                return in_parallel(chunks, thresholds)
            except (NotMergeable, NotInLogOrder, pickle.PicklingError):
                pass  # read again, in one process: exact whatever the layout
        try:
            return read_in_turn(names, thresholds, ordered=True)
        except NotInLogOrder:
            pass
    return read_in_turn(names, thresholds, ordered=False)


def feed(reader: ReportReader, items: Iterable[Item | RecordBatch], name: str | None = None) -> None:
    """Every item to the reader, by its kind; a batch of offset commits whole (read from the input ``name``)."""
    by_kind = {"exchange": reader.exchange, "record": reader.record, "payload": reader.payload,
               "partition": reader.partition}
    commits = reader.commits
    for item in items:
        if type(item) is RecordBatch:
            segment = item.segment
            commits(name, item.where, segment.topic, segment.partition, item.records, item.row)  # type: ignore[arg-type]
        elif isinstance(item, Row):
            take = by_kind.get(item.kind)
            if take is not None:  # a member's bytes (kafka-meta explain's input) is nothing to the report
                take(item.data)
        elif isinstance(item, Damage):
            reader.damage(item.text)
        else:
            reader.unreadable(str(item))


def read_in_turn(names: list[str], thresholds: Thresholds | None, ordered: bool) -> AnalysisReport:
    reader = ReportReader(thresholds, ordered=ordered)
    for name in names:
        feed(reader, rows([name], batches=True), name)
    return reader.finish()


def plan(names: list[str], jobs: int | None) -> list[Chunk] | None:
    """The inputs' partitions in log order, cut into one run per process by their bytes; None when they are
    better read in one process (fewer than two cores or jobs, something other than log segments, something
    unreadable, too few bytes)."""
    wanted = usable_cores() if jobs is None else jobs
    if wanted < 2 or "-" in names:
        return None
    found: list[tuple[str, Source, int]] = []
    for name in names:
        sources, unreadable = classify(name)
        if unreadable or any(s.kind != "log" for s in sources):
            return None
        found += [(name, s, _bytes(s.path)) for s in sources]
    total = sum(size for _, _, size in found)
    if len(found) < 2 or (jobs is None and total < PARALLEL_FROM_BYTES):
        return None
    if shared_groups([source for _, source, _ in found]):
        return None
    runs = min(wanted, len(found))
    chunks: list[Chunk] = [[]]
    share, taken = total / runs, 0
    for name, source, size in found:
        if chunks[-1] and len(chunks) < runs and taken >= share * len(chunks):
            chunks.append([])
        chunks[-1].append((name, source))
        taken += size
    return chunks if len(chunks) > 1 else None


def shared_groups(sources: list[Source]) -> bool:
    """Whether two partitions of ``__consumer_offsets`` among ``sources`` start with records of one group (a
    copy of a partition beside it, say): their readers could not be added up, so they are read in one process
    from the start rather than twice. Only the first :data:`SNIFFED_RECORDS` records of each are read."""
    owner: dict[str, tuple[str, Any]] = {}
    for source in sources:
        try:
            for partition in read_partitions(str(source.path)):
                place = (str(source.path), partition.partition)
                if partition.topic != OFFSETS_TOPIC:
                    continue
                for group in _first_groups(partition):
                    if owner.setdefault(group, place) != place:
                        return True
        except (KafkaMetaError, OSError, ValueError):
            return False  # the reading proper says what is wrong with it
    return False


def _first_groups(partition: Partition) -> set[str]:
    """The groups of a partition's first records (:data:`SNIFFED_RECORDS` of them)."""
    groups: set[str] = set()
    read = 0
    for _, item in partition.batches():
        if type(item) is not tuple:
            continue
        for record in item[1]:
            group = _group_of(record.key)
            if group:
                groups.add(group)
        read += len(item[1])
        if read >= SNIFFED_RECORDS:
            break
    return groups


def _group_of(key: bytes | None) -> str | None:
    if key is None:
        return None
    fields = commit_key(key)
    if fields is not None:
        return fields[1]
    try:
        return getattr(decode_record(key, None), "group_id", None)
    except (KafkaMetaError, ValueError):
        return None


def in_parallel(chunks: list[Chunk], thresholds: Thresholds | None) -> AnalysisReport:
    """Each run of partitions read by a process of its own (forked where the platform can, so the compiled
    readers come along), the readers added up in log order."""
    with worker_context().Pool(len(chunks)) as pool:
        readers = pool.map(_read_chunk, [(chunk, thresholds) for chunk in chunks])
    first = pickle.loads(readers[0])
    for state in readers[1:]:
        first.merge(pickle.loads(state))
    return first.finish()


def _read_chunk(work: tuple[Chunk, Thresholds | None]) -> bytes:
    """A worker: its partitions read into a reader, handed back whole (pickled here, so a state that does not
    pickle is a :class:`pickle.PicklingError` the caller catches, not a broken pool)."""
    chunk, thresholds = work
    reader = ReportReader(thresholds)
    for name, source in chunk:
        feed(reader, source_rows(source, name, batches=True), name)
    try:
        return pickle.dumps(reader, protocol=pickle.HIGHEST_PROTOCOL)
    except (TypeError, AttributeError) as e:
        raise pickle.PicklingError(str(e)) from None


def _bytes(path: Path) -> int:
    """A partition directory's segment bytes (a lone segment's own)."""
    if path.is_file():
        return path.stat().st_size
    with os.scandir(path) as entries:
        return sum(e.stat().st_size for e in entries if e.name.endswith(SEGMENT_SUFFIX) and e.is_file())
