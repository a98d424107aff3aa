"""Which candidates become vectors: one or two of each kind, so the file stays small and every case says
something the others do not.

Candidates of the same kind (type, version, writer and shape, see ``Candidate.identity``) are one case: the
first the recordings hold is kept, and the largest too when it is a different one (a group with more members,
a commit of more partitions: the realistic extreme). Identical bytes of one type are kept once, whoever wrote
them (the same bytes may well be two types: a COMMIT marker's key and a cooperative-sticky generation 1).
"""

from __future__ import annotations

from collections.abc import Iterable

from labvectors.candidate import Candidate


def choose(candidates: Iterable[Candidate]) -> list[Candidate]:
    """The kept candidates, in the order the recordings hold them."""
    first: dict[tuple, int] = {}
    largest: dict[tuple, int] = {}
    seen: set[tuple[str, bytes | None, bytes | None]] = set()
    ordered: list[Candidate] = []
    for candidate in candidates:
        blob = (candidate.type, candidate.key, candidate.data)
        if blob in seen:
            continue
        seen.add(blob)
        index = len(ordered)
        ordered.append(candidate)
        kind = candidate.identity
        first.setdefault(kind, index)
        if kind not in largest or candidate.size > ordered[largest[kind]].size:
            largest[kind] = index
    kept = sorted(set(first.values()) | set(largest.values()))
    return [ordered[i] for i in kept]
