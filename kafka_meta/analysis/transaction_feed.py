"""The rows a report reads, fed to the transaction history: ``__transaction_state`` records decoded by their
topic's decoder, user topics' partition summaries, and the times of the coordinators' records (the latest is
where the inputs end, for what is still open)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from kafka_meta.analysis.generations import record_bytes
from kafka_meta.analysis.timeline import Evidence
from kafka_meta.analysis.transactional_ids import TransactionHistory, TransactionsReport
from kafka_meta.errors import KafkaMetaError
from kafka_meta.internal_topics import transaction_log
from kafka_meta.log.topics import role_of_row
from kafka_meta.offsets import CoordinatorRecord


def _ms(value: Any) -> int | None:
    """A row's timestamp in epoch milliseconds: a number as the readers give it, or Spark's datetime."""
    if isinstance(value, dt.datetime):
        return int(value.timestamp() * 1000)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


def decode_state(key: Any, value: Any) -> tuple[str, dict[str, Any] | None] | None:
    """One ``__transaction_state`` record (its key and value as bytes, hex or base64 text) as the history takes
    it: its transactional id and its value's JSON (None: a tombstone); None for a record type of a newer Kafka.
    A record that does not read raises :class:`~kafka_meta.errors.KafkaMetaError` (or ValueError: text that is
    no bytes). ``kafka-meta watch`` reads the live topic's records with it, one at a time."""
    record = transaction_log.decode_record(record_bytes(key), record_bytes(value))
    if not isinstance(record, CoordinatorRecord):
        return None
    decoded = None if record.value is None else record.value.model_dump(by_alias=True, mode="json")
    return record.key.transactional_id, decoded


def transactions_of(rows: Iterable[Mapping[str, Any]], partitions: Iterable[Mapping[str, Any]] = (),
                    errors: list[str] | None = None) -> TransactionsReport | None:
    """The transaction story of the rows (None when they hold no ``__transaction_state`` record and no open
    transaction of a partition): a record that does not read is said in ``errors`` with its place."""
    history, states = TransactionHistory(), 0
    for row in rows:
        ms = _ms(row.get("timestamp"))
        role = role_of_row(row)
        if role in ("offsets", "transactions"):  # where the inputs end: as analyze tells it too
            history.seen(ms)
        if role != "transactions" or row.get("control"):
            continue
        where = Evidence(file=row.get("_file"), offset=row.get("offset"), line=row.get("_line"),
                         ts=ms / 1000 if ms is not None else None)
        try:
            state = decode_state(row.get("key"), row.get("value"))
        except (KafkaMetaError, ValueError) as e:
            if errors is not None:
                errors.append(f"{where}: {e}")
            continue
        if state is None:
            continue  # a record type of a newer Kafka: counted where records are counted
        history.state(*state, ms, where)
        states += 1
    held = 0
    for row in partitions:
        history.open_partition(row)
        held += len(row.get("openTransactions") or [])
    return history.finish() if states or held else None
