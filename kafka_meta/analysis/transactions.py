"""Offsets committed inside transactions (KIP-98's ``sendOffsetsToTransaction``), from captured exchanges.

A transactional producer commits a group's offsets with TxnOffsetCommit; they take effect only when the
producer ends the transaction with EndTxn(committed=true), and an aborted transaction's offsets never do (a
member of the group never resumes from them). So TxnOffsetCommit exchanges are held per producer until that
producer's next EndTxn decides them, as the group coordinator itself does with the transaction's markers.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from typing import Any

from kafka_meta.analysis import exchange_rows
from kafka_meta.analysis.epochs import topic_label
from kafka_meta.analysis.timeline import Commit
from kafka_meta.protocol.shapes import ExchangeRow

TXN_COMMIT, END_TXN = "TxnOffsetCommit", "EndTxn"


def _producer(ex: ExchangeRow) -> int | None:
    producer = (ex["request"] or {}).get("producerId")
    return producer if isinstance(producer, int) and not isinstance(producer, bool) else None


def committed(commit: Commit, req: dict[str, Any], resp: dict[str, Any], names: Mapping[str, str]) -> None:
    """Count into ``commit`` what an OffsetCommit or a TxnOffsetCommit exchange committed (both lay out their
    topics and partitions alike): the partitions, each one's offset where the request says it, and the
    per-partition errors of the response."""
    for topic in req.get("topics") or []:
        for p in topic.get("partitions") or []:
            commit.partitions += 1
            if isinstance(p.get("committedOffset"), int) and isinstance(p.get("partitionIndex"), int):
                commit.offsets[f"{topic_label(topic, names)}-{p['partitionIndex']}"] = p["committedOffset"]
    for topic in resp.get("topics") or []:
        for p in topic.get("partitions") or []:
            if p.get("errorCode"):
                commit.error_codes[p["errorCode"]] += 1


class Transactions:
    """TxnOffsetCommit exchanges waiting for their producer's EndTxn, fed in time order."""

    def __init__(self) -> None:
        self.pending: dict[int, list[Commit]] = defaultdict(list)
        self.aborted: Counter[str] = Counter()  # group -> partitions whose offsets an aborted transaction held

    def offsets(self, group: str, ex: ExchangeRow, names: Mapping[str, str]) -> None:
        producer = _producer(ex)
        if producer is None:
            return
        req, resp = ex["request"] or {}, ex["response"] or {}
        generation = req.get("generationIdOrMemberEpoch", req.get("generationId"))
        commit = Commit(group, ex["ts"], member_id=req.get("memberId") or None,
                        generation=generation if isinstance(generation, int) and generation >= 0 else None,
                        evidence=exchange_rows.evidence(ex))
        committed(commit, req, resp, names)
        self.pending[producer].append(commit)

    def end(self, ex: ExchangeRow) -> Iterator[Commit]:
        """The commits an EndTxn puts in force (none when it aborts, or is refused)."""
        producer = _producer(ex)
        if producer is None or producer not in self.pending:
            return
        committed = (ex["request"] or {}).get("committed") is True
        refused = bool((ex["response"] or {}).get("errorCode")) or ex["responseTs"] is None
        for commit in self.pending.pop(producer):
            if committed and not refused and not commit.error_codes:
                commit.answered = ex["responseTs"]  # in force once the transaction committed
                yield commit
            else:
                self.aborted[commit.group] += commit.partitions
