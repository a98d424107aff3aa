"""Bugs planted in the project's production code only (its readers, writers, assignors and version decisions; never
in the conformance harness or on Kafka's side), to show that the conformance run catches each one.

``python tests/sabotage.py PLANT [conformance arguments]`` plants one bug, then runs
``python -m kafka_meta.testing.conformance`` with the arguments in the same process. A plant replaces a production
function or a registered format's method before the harness is imported, so the harness calls the planted code as
any user would. docs/conformance.md ("Watching a planted bug caught") shows how to add one.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kafka_meta.errors import DecodeError
from kafka_meta.formats.catalogue import REGISTRY


@dataclass(frozen=True)
class Plant:
    """One planted bug: what it breaks, the family of bug, the ``--type`` that exercises it, the type the unexplained
    list must name, and the function that plants it."""

    name: str
    family: str
    types: str
    named: str
    plant: Callable[[], None]


def _wrap_decode(type_name: str, after: Callable[[Any, bytes, Callable[..., Any], dict[str, Any]], Any]) -> None:
    fmt = REGISTRY.get(type_name)
    original = fmt.decode

    def decode(data: bytes, *args: Any, **kwargs: Any) -> Any:
        return after(original(data, *args, **kwargs), data, original, kwargs)

    fmt.decode = decode  # type: ignore[method-assign]


def misread_epoch_with_unknown_tags() -> None:
    """ConsumerGroupMetadataValue: the epoch read one too high whenever the value carries unknown tagged fields."""
    def after(message: Any, data: bytes, original: Any, kwargs: Any) -> Any:
        if message.unknown_tagged_fields:
            message.epoch = message.epoch + 1 if message.epoch < 2**31 - 1 else 0
        return message
    _wrap_decode("ConsumerGroupMetadataValue", after)


def refuse_valid_last_byte() -> None:
    """ShareGroupMetadataValue: any value whose last byte is not 0 refused."""
    def after(message: Any, data: bytes, original: Any, kwargs: Any) -> Any:
        if data and data[-1] != 0:
            raise DecodeError("planted: the last byte is not 0", type_name="ShareGroupMetadataValue")
        return message
    _wrap_decode("ShareGroupMetadataValue", after)


def refuse_trailing_key() -> None:
    """OffsetCommitKey (no tagged fields at all): a key followed by trailing bytes refused."""
    def after(message: Any, data: bytes, original: Any, kwargs: Any) -> Any:
        if message.unknown_trailing:
            raise DecodeError("planted: bytes after the key", type_name="OffsetCommitKey")
        return message
    _wrap_decode("OffsetCommitKey", after)


def accept_what_does_not_read() -> None:
    """HeartbeatRequest: bytes that do not read taken for the last request that did (an invalid input accepted)."""
    fmt = REGISTRY.get("HeartbeatRequest")
    original = fmt.decode
    last: dict[int | None, bytes] = {}

    def decode(data: bytes, version: int | None = None, *args: Any, **kwargs: Any) -> Any:
        try:
            message = original(data, version, *args, **kwargs)
        except DecodeError:
            if version not in last:
                raise
            return original(last[version], version, *args, **kwargs)
        last[version] = data
        return message

    fmt.decode = decode  # type: ignore[method-assign]


def drop_unknown_tags() -> None:
    """ConsumerGroupMemberMetadataValue: the value's own unknown tagged fields dropped (not kept to be written back)."""
    def after(message: Any, data: bytes, original: Any, kwargs: Any) -> Any:
        if message.unknown_tagged_fields:
            message.unknown_tagged_fields = []
        return message
    _wrap_decode("ConsumerGroupMemberMetadataValue", after)


def write_generation_off_by_one() -> None:
    """HeartbeatRequest's writer: the generation id written one too high."""
    fmt = REGISTRY.get("HeartbeatRequest")
    original = fmt.encode

    def encode(message: Any, version: int | None = None) -> bytes:
        if isinstance(message, dict) and isinstance(message.get("generation_id"), int):
            g = message["generation_id"]
            message = {**message, "generation_id": g + 1 if g < 2**31 - 1 else 0}
        return original(message, version)

    fmt.encode = encode  # type: ignore[method-assign]


def range_moves_a_partition() -> None:
    """The range assignor: the first member's last partition given to the last member."""
    from kafka_meta.negotiation import assignors, range_assignor

    original = range_assignor.range_assign

    def range_assign(*args: Any, **kwargs: Any) -> Any:
        out = {member: list(parts) for member, parts in original(*args, **kwargs).items()}
        members = sorted(out)
        if len(members) > 1 and out[members[0]]:
            out[members[-1]].append(out[members[0]].pop())
        return out

    range_assignor.range_assign = range_assign
    assignors.range_assign = range_assign


def upgrade_from_sends_an_older_version() -> None:
    """Kafka Streams' upgrade.from decision: one subscription version lower than Kafka sends, from version 3 on."""
    from kafka_meta.negotiation import upgrade_from

    original = upgrade_from.decide_upgrade_from

    def decide(at: Any, value: str | None) -> Any:
        decision = original(at, value)
        if decision.failure is None and decision.subscription_version >= 3:
            return dataclasses.replace(decision, subscription_version=decision.subscription_version - 1)
        return decision

    upgrade_from.decide_upgrade_from = decide


def misread_ongoing_epoch() -> None:
    """TransactionLogValue (``__transaction_state``): the producer epoch of an Ongoing transaction read one too
    high."""
    def after(message: Any, data: bytes, original: Any, kwargs: Any) -> Any:
        if message.transaction_status == 1:
            message.producer_epoch = message.producer_epoch + 1 if message.producer_epoch < 2**15 - 1 else 0
        return message
    _wrap_decode("TransactionLogValue", after)


def misread_partition_leader() -> None:
    """MetadataRecord (``__cluster_metadata``): a PartitionRecord's leader read one too high."""
    def after(message: Any, data: bytes, original: Any, kwargs: Any) -> Any:
        record = message.record
        if message.record_type == "PartitionRecord":
            record.leader = record.leader + 1 if record.leader < 2**31 - 1 else 0
        return message
    _wrap_decode("MetadataRecord", after)


def counting_lane_misreads_offset() -> None:
    """The counting lane of ``kafka-meta report`` (``commit_view.commit_value``): an odd offset read one too
    high. The typed reader is right, so only the harness's check of the lanes against it can catch this."""
    from kafka_meta.offsets import commit_view

    original = commit_view.commit_value

    def commit_value(value: bytes) -> tuple[int, int, bytes] | None:
        read = original(value)
        if read is not None and read[1] % 2 == 1:
            return read[0], read[1] + 1, read[2]
        return read

    commit_view.commit_value = commit_value


PLANTS = {p.name: p for p in [
    Plant("misread-epoch-with-unknown-tags", "a misread value (where unknown tagged fields are)",
          "ConsumerGroupMetadataValue", "ConsumerGroupMetadataValue", misread_epoch_with_unknown_tags),
    Plant("refuse-valid-last-byte", "a refused valid input", "ShareGroupMetadataValue", "ShareGroupMetadataValue",
          refuse_valid_last_byte),
    Plant("refuse-trailing-key", "a refused valid input (trailing bytes)", "OffsetCommitKey", "OffsetCommitKey",
          refuse_trailing_key),
    Plant("accept-what-does-not-read", "an accepted invalid input", "HeartbeatRequest", "HeartbeatRequest",
          accept_what_does_not_read),
    Plant("drop-unknown-tags", "a wrong tagged-field handling", "ConsumerGroupMemberMetadataValue",
          "ConsumerGroupMemberMetadataValue", drop_unknown_tags),
    Plant("write-generation-off-by-one", "a wrong writer", "HeartbeatRequest", "HeartbeatRequest",
          write_generation_off_by_one),
    Plant("range-moves-a-partition", "a wrong assignor decision", "assignor range", "assignor range",
          range_moves_a_partition),
    Plant("misread-ongoing-epoch", "a misread value of another internal topic", "TransactionLog",
          "TransactionLog record (TransactionCoordinatorRecordSerde)", misread_ongoing_epoch),
    Plant("misread-partition-leader", "a misread metadata record", "MetadataRecord",
          "MetadataRecord (MetadataRecordSerde)", misread_partition_leader),
    Plant("counting-lane-misreads-offset", "a misread fast lane (report's counting of commits)", "OffsetCommit",
          "OffsetCommit record (GroupCoordinatorRecordSerde)", counting_lane_misreads_offset),
    Plant("upgrade-from-sends-an-older-version", "a wrong Streams version decision", "upgrade.from 4.4",
          "upgrade.from 4.4", upgrade_from_sends_an_older_version),
]}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in PLANTS:
        print(f"usage: python tests/sabotage.py PLANT [conformance arguments]; plants: {', '.join(PLANTS)}",
              file=sys.stderr)
        return 2
    PLANTS[argv[0]].plant()
    from kafka_meta.testing.conformance.__main__ import main as conformance  # after the plant: it binds the bug

    return conformance(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
