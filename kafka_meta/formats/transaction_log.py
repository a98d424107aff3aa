"""``__transaction_state``: the transaction coordinator's log, a coordinator log (see
:mod:`kafka_meta.formats.family`) of one record type, 0: ``TransactionLogKey`` (the transactional id) and
``TransactionLogValue`` (v0, v1 flexible), from ``schemas/transaction-log/``. A transactional id that expires
is deleted with a tombstone (a null value).

The value's ``TransactionStatus`` is the id of the coordinator's ``TransactionState``; its model shows the
state's name beside it (:class:`TransactionLogValueBase`), as Kafka's DumpLogSegments does.
"""

from __future__ import annotations

from pydantic import computed_field

from kafka_meta.formats import family
from kafka_meta.formats.family import CoordinatorLog
from kafka_meta.models.base import Message

TOPIC = "__transaction_state"
FAMILY = "transaction-log"
CURRENT = "4.4"  # the layouts of schemas/transaction-log: Kafka 4.4.0's
LOG = CoordinatorLog(TOPIC, FAMILY, CURRENT)

# TransactionState (org.apache.kafka.coordinator.transaction, Kafka 4.4): id -> the name its stateName() gives
STATES: dict[int, str] = {0: "Empty", 1: "Ongoing", 2: "PrepareCommit", 3: "PrepareAbort", 4: "CompleteCommit",
                          5: "CompleteAbort", 6: "Dead", 7: "PrepareEpochFence"}


def state_name(status: int) -> str | None:
    """The name of a transaction state id (None for an id Kafka 4.4 has no state for: its reader refuses it)."""
    return STATES.get(status)


class TransactionLogValueBase(Message):
    """TransactionLogValue with the name of its transaction state beside the int8 ``TransactionStatus``."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def transaction_state(self) -> str | None:
        """``Ongoing`` for status 1 and so on (see :data:`STATES`); None for an id no state has."""
        return state_name(self.transaction_status)  # type: ignore[attr-defined]


PLUGIN = family.coordinator_plugin(LOG, {"TransactionLogValue": TransactionLogValueBase})
