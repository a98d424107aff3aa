"""The classic group coordinator, as far as the negotiation needs it: membership, leader, group protocol.

What is modelled (and documented in docs/negotiation.md):

* Membership is ordered by join time. A restarted member rejoins with a new member id at the end.
* The first member to join an empty group becomes the leader (``GroupMetadata.add`` sets the leader only
  when there is none). The leader stays leader while it is a member.
* When the leader leaves, Kafka's coordinator promotes the first member id of its member hash map
  (``GroupMetadata.remove``; later coordinators also ``maybeElectNewJoinedLeader`` when the leader does not
  rejoin).
  Member ids are the client id plus a random UUID, so in practice the successor is arbitrary: any remaining
  member, including the new incarnation of a restarted leader, whose JoinGroup is already in when the old
  incarnation (which sent no LeaveGroup) is dropped. The simulator makes that choice with an explicit
  :class:`Succession` rule, so each possibility can be run and tested.
* The group protocol (the assignor name) is chosen among the names every member offers: each member votes
  for the first of those it lists, most votes win, and a tie goes to the candidate the longest-standing
  member lists first.
* A member whose offered names share none with the rest of a non-empty group is refused at JoinGroup with
  INCONSISTENT_GROUP_PROTOCOL (InconsistentGroupProtocolException on the client).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum


class Succession(Enum):
    """Which member the coordinator promotes when the leader leaves (Kafka: whichever comes first in a hash
    map of random member ids; these are the two ends of that choice)."""

    OLDEST = "oldest"
    """The longest-standing remaining member."""

    NEWEST = "newest"
    """The member that joined last: after a bounce, the restarted member itself (its new incarnation)."""

    def successor(self, members: Sequence[str]) -> str | None:
        """The new leader among ``members`` (in join order), or None for an empty group."""
        if not members:
            return None
        return members[0] if self is Succession.OLDEST else members[-1]


@dataclass
class Coordinator:
    members: list[str] = field(default_factory=list)
    leader: str | None = None
    generation: int = 0
    succession: Succession = Succession.OLDEST

    def join(self, member_id: str) -> None:
        self.members.append(member_id)
        if self.leader is None:
            self.leader = member_id

    def leave(self, member_id: str) -> None:
        self.members.remove(member_id)
        if self.leader == member_id:
            self.leader = self.succession.successor(self.members)

    def replace(self, old_id: str, new_id: str) -> None:
        """A restarted member: its new incarnation joins before the old one is dropped (a Streams instance
        sends no LeaveGroup on close, so the coordinator removes the old member id only when the rebalance the
        new JoinGroup started completes). A departing leader's successor can therefore be the new incarnation."""
        self.join(new_id)
        self.leave(old_id)

    def replace_static(self, old_id: str, new_id: str) -> None:
        """A static member rejoining in time: its new member id takes the old one's place, leadership included
        (``ClassicGroup.replaceStaticMember``)."""
        self.members[self.members.index(old_id)] = new_id
        if self.leader == old_id:
            self.leader = new_id

    @staticmethod
    def candidates(offers: Sequence[Sequence[str]]) -> list[str]:
        """Protocol names every member offers, in the first member's order."""
        if not offers:
            return []
        common = set(offers[0])
        for names in offers[1:]:
            common &= set(names)
        return [n for n in offers[0] if n in common]

    def accepts(self, offered: Sequence[str], others: Sequence[Sequence[str]]) -> bool:
        """GroupMetadata.supportsProtocols for a joining member against the current members."""
        if not others:
            return bool(offered)
        return bool(set(offered) & set(self.candidates(others)))

    @staticmethod
    def select(offers: Sequence[Sequence[str]]) -> str | None:
        """The group protocol: most first-choice votes among the common names."""
        common = Coordinator.candidates(offers)
        if not common:
            return None
        votes = {name: 0 for name in common}
        for names in offers:
            first = next(n for n in names if n in votes)
            votes[first] += 1
        best = max(votes.values())
        return next(n for n in common if votes[n] == best)
