"""What an input is: a file of one kind, or a directory of many, each file recognised by its content.

A directory may hold anything the kinds know, mixed (captures beside a broker's partition directories beside
JSON Lines): each file is recognised on its own. A broker's partition directory (``<topic>-<partition>``
holding ``*.log`` segments, Kafka's own layout) is one log source whatever its segments hold, so segments
damaged from their first byte are still read as segments and their damage reported, and its freshly rolled
(empty) segment is read with it; the broker's other files there (indexes, checkpoints, ``meta.properties``)
are its bookkeeping, not inputs. An empty file anywhere else has no content to recognise: it is reported as
empty, whatever its name (``00000000000000000000.log`` included). Hidden files and Spark's own
(``_SUCCESS``) are skipped. Anything else no kind claims is reported, never silently dropped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_meta.inputs.items import Source, Unreadable
from kafka_meta.inputs.kinds import BY_NAME, KINDS, SEGMENT
from kafka_meta.sniff import SNIFF_BYTES, binary_offset

if TYPE_CHECKING:
    from kafka_meta.log.files import Segment

# The log reader (kafka_meta.log, its codecs and checksums) is imported where a path may hold segments, not with
# this module: a face that reads only captures through the inputs (the capture verb) loads none of it.

SHOWN_BYTES = 8  # of an unrecognised file's start, in its error
EMPTY = "empty: nothing to read (an empty file has no content to tell its kind by)"
NO_SUCH = "no such file or directory"


def classify(name: str) -> tuple[list[Source], list[Unreadable]]:
    """The sources of one input (a file or a directory), and what in it cannot be read."""
    path = Path(name)
    if not path.exists():
        return [], [Unreadable(name, NO_SUCH)]
    if path.is_dir():
        return _directory(path, name)
    if not path.is_file():
        return [], [Unreadable(name, "not a regular file")]
    found = _file(path, name)
    return ([found], []) if isinstance(found, Source) else ([], [found])


def segments_of(paths: list[str]) -> tuple[list[Segment], list[Unreadable]]:
    """The log segments of the paths, told by content as every input is, and what is refused: a file of another
    kind (a capture is no segment; the refusal names its kind), an empty one (no content: no segment, whatever
    its name or suffix), a missing one, and what a directory holds that cannot be read. A file that no kind
    claims is read as a segment when named outright: a segment damaged from its first byte is still one, and
    its reader reports the damage. Every face that reads segments (the ``log`` verb, Spark's log source) finds
    them here."""
    from kafka_meta.log.files import find_segments

    segments: list[Segment] = []
    refused: list[Unreadable] = []
    for path in paths:
        sources, unreadable = classify(path)
        for source in sources:
            if source.kind == SEGMENT:
                segments += find_segments(source.path)
            elif not Path(path).is_dir():
                refused.append(Unreadable(str(source.path), f"{BY_NAME[source.kind].what}, not log segments",
                                          source.kind))
        for problem in unreadable:
            named = Path(path).is_file() and problem.path == path
            if named and problem.reason != EMPTY:
                segments += find_segments(path)  # no kind claims it: a damaged segment, read around
            else:
                refused.append(problem)
    return segments, refused


def _file(path: Path, given: str) -> Source | Unreadable:
    try:
        with path.open("rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError as e:
        return Unreadable(str(path), f"cannot be read ({e.strerror or e})")
    if not head:  # no content, so no kind: an empty file named like a segment is no segment either
        return Unreadable(str(path), EMPTY)
    for kind in KINDS:
        if kind.recognise(path, head):
            return Source(kind.name, path, given)
    if binary_offset(head) is None:
        return Unreadable(str(path), "text, but not JSON Lines: its first line is not a JSON object")
    known = ", ".join(k.what for k in KINDS[:-1]) + f" nor {KINDS[-1].what}"
    return Unreadable(str(path), f"neither {known} (it starts with {head[:SHOWN_BYTES].hex()})")


def is_partition_directory(path: Path) -> bool:
    """Kafka's layout: a ``<topic>-<partition>`` directory holding ``*.log`` segment files."""
    from kafka_meta.log.files import PARTITION_DIR, SEGMENT_SUFFIX

    return (PARTITION_DIR.match(path.name) is not None
            and any(f.name.endswith(SEGMENT_SUFFIX) and f.is_file() for f in path.iterdir()))


def _hidden(name: str) -> bool:
    """Hidden files, and Spark's own beside its output (``_SUCCESS``, ``_temporary``); not Kafka's internal
    topics' partition directories (``__consumer_offsets-7``)."""
    from kafka_meta.log.files import PARTITION_DIR

    return name.startswith(".") or (name.startswith("_") and PARTITION_DIR.match(name) is None)


def _log_order(name: str) -> tuple[str, int]:
    """A partition directory's place in log order: by topic, then by partition number (``-2`` before ``-10``),
    the order the timeline reads partitions in, so a broker's directory can be read as it is walked."""
    topic, _, partition = name.rpartition("-")
    return topic, int(partition)


def _directory(path: Path, given: str) -> tuple[list[Source], list[Unreadable]]:
    if is_partition_directory(path):
        return [Source(SEGMENT, path, given)], []
    sources: list[Source] = []
    problems: list[Unreadable] = []
    for root, dirs, files in os.walk(path):
        here = Path(root)
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        partitions = sorted((d for d in dirs if is_partition_directory(here / d)), key=_log_order)
        sources += [Source(SEGMENT, here / d, given) for d in partitions]
        dirs[:] = [d for d in dirs if d not in partitions]
        broker_directory = bool(partitions)  # its other top-level files are the broker's bookkeeping
        for name in sorted(f for f in files if not _hidden(f)):
            found = _file(here / name, given)
            if isinstance(found, Source):
                sources.append(found)
            elif not broker_directory:
                problems.append(found)
    if not sources and not problems:
        problems.append(Unreadable(given, "a directory with nothing to read in it"))
    return sources, problems
