"""Kafka Streams rebalance-metadata versions: the constants and which release speaks which version.

The table is section 5.3 of the wire-format notes (StreamsAssignmentProtocolVersions at each release tag or
branch). 2.6.0 is the only 2.6 release at 7: version 8 (``uniqueField``) was backported to 2.6.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kafka_meta.negotiation.outcomes import NegotiationError
from kafka_meta.negotiation.releases import KNOWN_LINES, Release, ReleaseLike, ReleaseTable

FIRST_RELEASE_WITH_PROBING = "2.0"

LATEST_SUPPORTED_VERSION: ReleaseTable[int] = ReleaseTable("Streams LATEST_SUPPORTED_VERSION", [
    ("0.10.0", 1),
    ("0.10.1", 2),
    ("2.0", 3),
    ("2.1", 4),
    ("2.4", 5),
    ("2.5", 6),
    ("2.6.0", 7),
    ("2.6.1", 8),   # KAFKA-10455 backported: 2.6.1 - 2.6.3 and 2.7 share version 8
    ("2.8", 9),
    ("3.0", 10),
    ("3.2", 11),    # unchanged through 3.9, the 4.0 ... 4.4 branches and 2026 trunk
])


def latest_supported_version(at: ReleaseLike) -> int:
    """The highest SubscriptionInfo/AssignmentInfo version the Streams code of a release speaks."""
    return LATEST_SUPPORTED_VERSION[at]


def releases_speaking(latest: int) -> tuple[Release, Release | None] | None:
    """The release range ``[first, end)`` whose Streams code has this latest version (None: no release)."""
    ranges = LATEST_SUPPORTED_VERSION.releases_with(latest)
    return ranges[0] if ranges else None


def describe_releases_speaking(latest: int) -> str:
    """The releases whose Streams code has this latest version, as text: ``"2.6.1 - 2.7"``, ``"2.6.0"``."""
    found = releases_speaking(latest)
    if found is None:
        return f"no Kafka release has latest version {latest}"
    first, end = found
    if end is not None and end.line == first.line:  # a patch-level split inside one line
        last_patch = f"{end.line}.{end.patch - 1}"
        return str(first) if last_patch == str(first) else f"{first} - {last_patch}"
    start = first.line if first.patch == 0 else str(first)
    lines = [line for line in KNOWN_LINES
             if Release.parse(first.line) <= Release.parse(line) and (end is None or Release.parse(line) < end)]
    last = lines[-1]
    if end is not None and end.patch > 0 and end.line == last:
        last = f"{end.line}.{end.patch - 1}"
    return start if start == last else f"{start} - {last}"


FIRST_SUBSCRIPTION_VERSION_WITH_ERROR_CODE = 9
FIRST_ASSIGNMENT_VERSION_WITH_ERROR_CODE = 4
FIRST_ASSIGNMENT_VERSION_WITH_NEXT_REBALANCE = 7


NEWEST_KNOWN_LATEST = LATEST_SUPPORTED_VERSION.rows[-1][1]


@dataclass(frozen=True, order=True)
class StreamsCode:
    """The Streams code a party runs: its latest supported version and the release whose rules it follows.

    A party is named by release (``"3.9"``) or by its latest supported version (``12``, ``"v12"``,
    ``"latest+1"``). A version some release speaks means that release (the first one speaking it); a version
    above every release is *future code*, as Kafka's own system tests run it (``StreamsUpgradeTest``'s
    ``FutureStreamsPartitionAssignor`` at LATEST_SUPPORTED_VERSION + 1): the newest release's rules with a
    higher latest version. ``"2.4.1+1"`` is a given release's code with its latest version raised, as each
    branch's system test builds its own future code. Ordering compares the latest version first, so
    ``max()`` is the newest code.
    """

    latest: int
    release: Release

    @property
    def future(self) -> bool:
        return self.latest > latest_supported_version(self.release)

    def __str__(self) -> str:
        return f"future code (latest version {self.latest})" if self.future else str(self.release)

    @property
    def label(self) -> str:
        """A short name for tables: ``3.9.0`` or ``future v12``."""
        return f"future v{self.latest}" if self.future else str(self.release)


_BY_VERSION = re.compile(r"^\s*(?:v(\d+)|latest\s*\+\s*(\d+))\s*$", re.IGNORECASE)
_RELEASE_PLUS = re.compile(r"^\s*([0-9.]+)\s*\+\s*(\d+)\s*$")

StreamsParty = StreamsCode | ReleaseLike | int


def streams_code(party: StreamsParty) -> StreamsCode:
    """A party's code from its release, or from its latest supported version (see :class:`StreamsCode`)."""
    if isinstance(party, StreamsCode):
        return party
    latest: int | None = None
    if isinstance(party, int):
        latest = party
    elif isinstance(party, str) and (m := _BY_VERSION.match(party)):
        latest = int(m.group(1)) if m.group(1) else NEWEST_KNOWN_LATEST + int(m.group(2))
    elif isinstance(party, str) and (m := _RELEASE_PLUS.match(party)):
        # "2.4.1+1": that release's code with a higher latest version, as each branch's system test builds it
        rel = Release.parse(m.group(1))
        return StreamsCode(latest_supported_version(rel) + int(m.group(2)), rel)
    if latest is None:
        rel = Release.parse(party)  # type: ignore[arg-type]
        return StreamsCode(latest_supported_version(rel), rel)
    if latest < 1:
        raise NegotiationError(f"a Streams latest supported version is at least 1, not {latest}")
    if latest > NEWEST_KNOWN_LATEST:
        return StreamsCode(latest, Release.parse(KNOWN_LINES[-1]))
    found = releases_speaking(latest)
    if found is None:
        raise NegotiationError(f"no Kafka release has Streams latest supported version {latest}")
    return StreamsCode(latest, found[0])
