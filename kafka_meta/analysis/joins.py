"""Whose JoinGroup is it: the member id behind every JoinGroup exchange of a classic group.

Since KIP-394 (Kafka 2.2, JoinGroup v4) a new member joins in two steps: its first JoinGroup carries no member
id and the coordinator answers MEMBER_ID_REQUIRED with the id it assigned; the member joins again with that
id. Every Java client and every broker since does this, so on a real cluster each join shows both steps,
often after a few retries without an id while the coordinator loads (COORDINATOR_LOAD_IN_PROGRESS). None of
them is a member of its own: they are the first steps of the member that the id names. A step whose answer
names no id is given the id of the next JoinGroup on the same connection (a client keeps its coordinator
connection while it joins); a step that never got any id stays anonymous, shown by its client id.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from kafka_meta.analysis.codes import MEMBER_ID_REQUIRED
from kafka_meta.protocol.shapes import ExchangeRow


def request_member_id(ex: ExchangeRow) -> str:
    return (ex["request"] or {}).get("memberId") or ""


def answered_member_id(ex: ExchangeRow) -> str:
    return (ex["response"] or {}).get("memberId") or ""


def is_first_step(ex: ExchangeRow) -> bool:
    """KIP-394's first step: a JoinGroup without a member id, answered MEMBER_ID_REQUIRED with one."""
    resp = ex["response"] or {}
    return not request_member_id(ex) and resp.get("errorCode") == MEMBER_ID_REQUIRED and bool(resp.get("memberId"))


def resolve_member_ids(joins: Sequence[ExchangeRow]) -> list[str]:
    """The member id of each JoinGroup exchange (in time order), '' where none can be known.

    The id the request carries; else the one its answer gives (MEMBER_ID_REQUIRED, or an old coordinator's
    successful answer); else the id of the next join on the same connection that has one."""
    ids = [request_member_id(ex) or answered_member_id(ex) for ex in joins]
    by_connection: dict[tuple[Any, Any], list[int]] = defaultdict(list)
    for i, ex in enumerate(joins):
        by_connection[(ex["client"], ex["stream"])].append(i)
    for (client, _), positions in by_connection.items():
        if client is None:
            continue
        following = ""
        for i in reversed(positions):
            if ids[i]:
                following = ids[i]
            elif following:
                ids[i] = following
    return ids
