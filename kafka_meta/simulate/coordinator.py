"""The classic group coordinator, as far as the negotiation needs it: membership, leader, group protocol.

What is modelled (and documented in docs/negotiation.md):

* Membership is ordered by join time. A restarted member rejoins with a new member id at the end.
* The leader stays leader while it is a member. When it leaves, the coordinator promotes a remaining member
  (Kafka takes the first of its member map); here the longest-standing one, so the choice is deterministic.
  An empty group's first member to join becomes the leader.
* The group protocol (the assignor name) is chosen among the names every member offers: each member votes
  for the first of those it lists, most votes win, and a tie goes to the candidate the longest-standing
  member lists first.
* A member whose offered names share none with the rest of a non-empty group is refused at JoinGroup with
  INCONSISTENT_GROUP_PROTOCOL (InconsistentGroupProtocolException on the client).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Coordinator:
    members: list[str] = field(default_factory=list)
    leader: str | None = None
    generation: int = 0

    def join(self, member_id: str) -> None:
        self.members.append(member_id)
        if self.leader is None:
            self.leader = member_id

    def leave(self, member_id: str) -> None:
        self.members.remove(member_id)
        if self.leader == member_id:
            self.leader = self.members[0] if self.members else None

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
