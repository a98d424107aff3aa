"""Kafka Streams ``upgrade.from``: which values a release accepts, and what an accepted value does to the
subscription version and the rebalance protocol (section 5.2 of the wire-format notes).

Two tables: the accepted values per code release (a value outside them is a ConfigException from the
StreamsConfig validator; 4.0 and 4.1 additionally let the Streams assignor refuse the eager-era values), and
the effect of each kind of value per code release. A release without the config at all (before
0.10.2.2 / 0.11.0.3 / 1.0.2 / 1.1.1) treats a set value as an unknown config: Kafka logs a warning and ignores it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from kafka_meta.negotiation.outcomes import JavaFailure
from kafka_meta.negotiation.rebalance_protocol import (
    EAGER_ONLY,
    STREAMS_ASSIGNOR,
    Assignor,
    RebalanceProtocol,
)
from kafka_meta.negotiation.releases import Release, ReleaseLike, ReleaseTable
from kafka_meta.negotiation.streams_versions import latest_supported_version

PRE_2_0 = ("0.10.0", "0.10.1", "0.10.2", "0.11.0", "1.0", "1.1")
EAGER_ERA = ("2.0", "2.1", "2.2", "2.3")
COOPERATIVE_ERA = ("2.4", "2.5", "2.6", "2.7", "2.8", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8",
                   "3.9", "4.0", "4.1", "4.2", "4.3")


def _upto(last: str) -> frozenset[str]:
    every = PRE_2_0 + EAGER_ERA + COOPERATIVE_ERA
    return frozenset(every[: every.index(last) + 1])


def _between(first: str, last: str) -> frozenset[str]:
    every = PRE_2_0 + EAGER_ERA + COOPERATIVE_ERA
    return frozenset(every[every.index(first): every.index(last) + 1])


# None: the release has no upgrade.from config at all.
ACCEPTED_VALUES: ReleaseTable[frozenset[str] | None] = ReleaseTable("upgrade.from accepted values", [
    ("0.10.0", None),
    ("0.10.2.2", frozenset({"0.10.0"})),
    ("0.11.0", None),
    ("0.11.0.3", frozenset({"0.10.0"})),   # KAFKA-6054 backported to the 0.11.0 branch in March 2018
    ("1.0.0", None),
    ("1.0.2", frozenset({"0.10.0"})),
    ("1.1.0", None),
    ("1.1.1", frozenset({"0.10.0"})),
    ("2.0", _upto("1.1")),
    ("2.4", _upto("2.3")),
    ("3.3", _upto("3.2")),
    ("3.4", _upto("3.3")),
    ("3.5", _upto("3.4")),
    ("3.6.2", _upto("3.5")),
    ("3.7", _upto("3.6")),
    ("3.8", _upto("3.7")),
    ("3.9", _upto("3.8")),
    ("4.0", _upto("3.9")),
    ("4.1", _upto("4.0")),
    ("4.2", _between("2.4", "4.1")),
    ("4.3", _between("2.4", "4.2")),
    ("4.4", _between("2.4", "4.3")),
])

# Values StreamsConfig accepts but the Streams assignor refuses (AssignorConfiguration.validateUpgradeFrom).
REFUSED_BY_ASSIGNOR: ReleaseTable[frozenset[str]] = ReleaseTable("upgrade.from refused by the assignor", [
    ("0.10.0", frozenset()),
    ("4.0", _upto("2.3")),
    ("4.2", frozenset()),     # removed from StreamsConfig's list instead
])


class ValueKind(Enum):
    """What a value means to the code that reads it."""

    UNSET = "unset"
    SEND_V1 = "0.10.0"                  # speak version 1 (0.10.0.x members)
    SEND_V2 = "0.10.1 - 1.1"            # speak version 2
    EAGER_ERA = "2.0 - 2.3"             # no version override, but stay EAGER
    LATER = "2.4+"                      # no effect on version or protocol


def value_kind(value: str | None) -> ValueKind:
    if value is None:
        return ValueKind.UNSET
    if value == "0.10.0":
        return ValueKind.SEND_V1
    if value in PRE_2_0:
        return ValueKind.SEND_V2
    if value in EAGER_ERA:
        return ValueKind.EAGER_ERA
    return ValueKind.LATER


_EAGER_COOP = (RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE)
_COOP_ONLY = (RebalanceProtocol.COOPERATIVE,)

# (version override or None = send the code's latest, Streams assignor's supportedProtocols or None = no
# protocol choice: the release predates KIP-429 and rebalances EAGER)
Effect = tuple[int | None, tuple[RebalanceProtocol, ...] | None]
EFFECTS: ReleaseTable[dict[ValueKind, Effect]] = ReleaseTable("upgrade.from effect", [
    ("0.10.0", {ValueKind.UNSET: (None, None), ValueKind.SEND_V1: (1, None)}),
    ("2.0", {ValueKind.UNSET: (None, None), ValueKind.SEND_V1: (1, None), ValueKind.SEND_V2: (2, None)}),
    ("2.4", {ValueKind.UNSET: (None, _EAGER_COOP), ValueKind.SEND_V1: (1, EAGER_ONLY),
             ValueKind.SEND_V2: (2, EAGER_ONLY), ValueKind.EAGER_ERA: (None, EAGER_ONLY),
             ValueKind.LATER: (None, _EAGER_COOP)}),
    ("4.0", {ValueKind.UNSET: (None, _COOP_ONLY), ValueKind.LATER: (None, _COOP_ONLY)}),
])


@dataclass(frozen=True)
class UpgradeFromDecision:
    """What a Streams instance of ``release`` does with ``upgrade.from = value``."""

    release: Release
    value: str | None
    accepted: bool
    ignored: bool
    subscription_version: int | None
    supported_protocols: tuple[RebalanceProtocol, ...]
    protocol: RebalanceProtocol | None
    failure: JavaFailure | None
    reason: str

    @property
    def assignor(self) -> Assignor:
        """The Streams assignor as the protocol selection sees it (EAGER only before 2.4)."""
        return Assignor(STREAMS_ASSIGNOR, self.supported_protocols or EAGER_ONLY)


def accepted_values(at: ReleaseLike) -> frozenset[str] | None:
    """The ``upgrade.from`` values StreamsConfig of a release accepts (None: the config does not exist)."""
    return ACCEPTED_VALUES[at]


def decide_upgrade_from(at: ReleaseLike, value: str | None) -> UpgradeFromDecision:
    """Section 5.2 for one Streams instance: the subscription version it sends and its rebalance protocol,
    or the ConfigException its release gives for the value."""
    rel = Release.parse(at)
    latest = latest_supported_version(rel)
    accepted = ACCEPTED_VALUES[rel]
    if value is not None and accepted is None:
        return UpgradeFromDecision(rel, value, False, True, latest, EAGER_ONLY, RebalanceProtocol.EAGER, None,
                                   f"{rel} has no upgrade.from config: the value is logged as an unknown config "
                                   f"and ignored, so it sends version {latest}")
    if value is not None and accepted is not None and value not in accepted:
        listed = _describe(accepted)
        failure = JavaFailure("ConfigException", "StreamsConfig",
                              f"invalid value {value!r} for upgrade.from: {rel} accepts {listed}")
        return UpgradeFromDecision(rel, value, False, False, None, (), None, failure, str(failure))
    if value is not None and value in REFUSED_BY_ASSIGNOR[rel]:
        failure = JavaFailure("ConfigException", "StreamsPartitionAssignor (AssignorConfiguration)",
                              f"upgrade.from={value} needs eager rebalancing, which {rel} no longer has; upgrade "
                              f"through a bridge release (2.4 - 3.9) first")
        return UpgradeFromDecision(rel, value, False, False, None, (), None, failure, str(failure))
    override, protocols = EFFECTS[rel][value_kind(value)]
    version = latest if override is None else override
    if protocols is None:
        chosen = RebalanceProtocol.EAGER
        how = "EAGER (no protocol choice before 2.4)"
        protocols = EAGER_ONLY
    else:
        chosen = max(protocols)
        how = f"supportedProtocols [{', '.join(p.name for p in protocols)}] -> {chosen.name}"
    said = "unset" if value is None else f"upgrade.from={value}"
    return UpgradeFromDecision(rel, value, True, False, version, protocols, chosen, None,
                               f"{rel} with {said}: sends version {version}"
                               f"{'' if override is None else ' (overridden)'}, {how}")


def streams_assignor(at: ReleaseLike, value: str | None = None) -> Assignor:
    """The Streams assignor's ``supportedProtocols()`` for a release and ``upgrade.from`` value, for
    :func:`~kafka_meta.negotiation.rebalance_protocol.choose_rebalance_protocol`."""
    return decide_upgrade_from(at, value).assignor


def _describe(values: frozenset[str]) -> str:
    order = PRE_2_0 + EAGER_ERA + COOPERATIVE_ERA
    ordered = sorted(values, key=order.index)
    if len(ordered) > 3:
        return f"{ordered[0]} ... {ordered[-1]} ({len(ordered)} values)"
    return ", ".join(ordered)
