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


class TransactionFeed:
    """The transaction history fed one row at a time (the report reads its inputs once, in log order): a
    record that does not read is said in ``errors`` with its place."""

    def __init__(self, errors: list[str] | None = None) -> None:
        self.history = TransactionHistory()
        self.errors = errors
        self.states = 0
        self.held = 0
        self.roles: dict[str, str] = {}  # topic -> its role, looked up once

    def row(self, row: Mapping[str, Any]) -> None:
        """One record row of any topic: ``__transaction_state``'s are read, the others' times kept."""
        topic = row.get("topic")
        role = self.roles.get(topic) if type(topic) is str else None
        if role is None:
            role = role_of_row(row)
            if type(topic) is str:
                self.roles[topic] = role
        if role not in ("offsets", "transactions"):
            return
        ms = _ms(row.get("timestamp"))
        self.history.seen(ms)  # where the inputs end: as analyze tells it too
        if role != "transactions" or row.get("control"):
            return
        where = Evidence(file=row.get("_file"), offset=row.get("offset"), line=row.get("_line"),
                         ts=ms / 1000 if ms is not None else None)
        try:
            state = decode_state(row.get("key"), row.get("value"))
        except (KafkaMetaError, ValueError) as e:
            if self.errors is not None:
                self.errors.append(f"{where}: {e}")
            return
        if state is None:
            return  # a record type of a newer Kafka: counted where records are counted
        self.history.state(*state, ms, where)
        self.states += 1

    def partition(self, row: Mapping[str, Any]) -> None:
        """A user topic's partition summary: its open transactions."""
        self.history.open_partition(row)
        self.held += len(row.get("openTransactions") or [])

    def merge(self, later: TransactionFeed) -> bool:
        """The feed of the rows after this one's added to it (see :meth:`TransactionHistory.merge`)."""
        if not self.history.merge(later.history):
            return False
        self.states += later.states
        self.held += later.held
        if self.errors is not None and later.errors is not None:
            self.errors.extend(later.errors)
        return True

    def finish(self) -> TransactionsReport | None:
        """The story (None when the rows held no ``__transaction_state`` record and no open transaction)."""
        return self.history.finish() if self.states or self.held else None


def transactions_of(rows: Iterable[Mapping[str, Any]], partitions: Iterable[Mapping[str, Any]] = (),
                    errors: list[str] | None = None) -> TransactionsReport | None:
    """The transaction story of the rows (None when they hold no ``__transaction_state`` record and no open
    transaction of a partition): a record that does not read is said in ``errors`` with its place."""
    feed = TransactionFeed(errors)
    for row in rows:
        feed.row(row)
    for row in partitions:
        feed.partition(row)
    return feed.finish()
