"""Why each side refused some bytes, so that a case both sides refuse is compared, not assumed alike.

Kafka's readers say why in an exception (its class and message, with the causes and the classes on the stack the
peer appends); the project says why in a :class:`~kafka_meta.errors.DecodeError` (its reason and field path). Both
are mapped to one of the kinds of *why* in :data:`KINDS` (the table in docs/conformance.md, "Both refuse"). Two
refusals agree when their kinds are the same, with two exceptions, both documented there:

* ``unspecified``: a wrapper of Kafka's that says no more than that the bytes were bad (Kafka Streams'
  ``Corrupted user data``) agrees with any refusal of the project's that maps to a kind;
* the project checks a version (a message's, Streams' ``latestSupportedVersion``), a metadata record's type or a
  Streams topic index before it reads on, where Kafka's readers read on and refuse what follows: a refusal of the
  project's of kind ``version``, ``record type`` or ``value`` agrees with any refusal of Kafka's.

*Where*: refusals of the same kind must also lie in one line of structs (:func:`places_agree`): the struct Kafka's
reader was in when it threw (the innermost generated class on its stack) is one the project's error path passes
through, or one inside the field the project stopped at. Within one struct the two readers check in different
orders (the project checks an array's count against the bytes left before reading its elements, Kafka's readers
read on into them), so Kafka may stop deeper in the same field, never elsewhere. A refusal either side gives that
no rule maps is of kind ``other``, which agrees with nothing: a new kind of refusal is a difference until this
table says what it corresponds to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

KINDS = {
    "malformed": "the bytes do not hold a well-formed value: the input ends before something it declares, a "
                 "varint runs too long, a length is negative (null where the field is not nullable) or too "
                 "large, a tagged-field count is negative or exceeds the bytes left, a string is not valid "
                 "(modified) UTF-8 where the reader checks it, a tag the version read does not give its field "
                 "(Kafka's readers refuse it there; the project reads it as unknown and may refuse later bytes)",
    "version": "a version the reader does not know or accept",
    "record type": "a record type (or metadata apiKey) the reader does not know",
    "trailing": "bytes after the last field, where the reader refuses them",
    "value": "a well-formed value the reader refuses (a topic index the dictionary lacks)",
    "unspecified": "Kafka says only that the bytes are bad (a wrapper without a cause that maps)",
    "other": "anything no rule here maps: agrees with nothing",
}

# the project's checks before the body: they agree with any refusal of Kafka's
EARLY = ("version", "record type", "value")

# Kafka's messages (innermost cause first) -> kind
KAFKA_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), k) for p, k in [
    (r"UnknownRecordVersionException|[Uu]nsupported (?:\w+ )?version|Can't read version \d+ of|"
     r"version must be between|latest supported version|Value for version was too large", "version"),
    (r"UnknownRecordTypeException|Unknown metadata id|[Uu]nknown record type|Value for type was too large",
     "record type"),
    (r"byte\(s\) of garbage after", "trailing"),
    (r"BufferUnderflowException|EOFException|Error reading (?:byte array|string) of|Tried to read \d+ tagged fields|"
     r"Tried to allocate a collection of size|Varint is too long|was serialized as null|had invalid length|"
     r"Invalid negative number of tagged fields|NegativeArraySizeException|newLimit > capacity|"
     r"Could not read version from|Buffer underflow|UTFDataFormatException|[Mm]alformed input|"
     r"Tag \d+ is not valid for version \d+", "malformed"),
])
# wrappers that may say no more than that the bytes were bad
KAFKA_UNSPECIFIED = re.compile(r"TaskAssignmentException|SchemaException: Malformed consumer protocol|"
                               r"MetadataParseException")

# the project's DecodeError reasons -> kind
OUR_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), k) for p, k in [
    (r"is newer than the newest known|^unsupported version|Kafka refuses a latestSupportedVersion|"
     r"Kafka reads a version as an int16", "version"),
    (r"unknown (?:metadata )?record (?:type|apiKey)|Kafka reads an apiKey as an int16", "record type"),
    (r"bytes follow the last field", "trailing"),
    (r"is not in the dictionary", "value"),
    (r"^input ends inside|exceeds the \d+ bytes left|cannot fit in the \d+ bytes left|"
     r"has size \d+ but only \d+ bytes are left|^varint longer than|varint does not fit|is not a readable|"
     r"where the field is not nullable|^negative length|exceeds Kafka's limit|does not fit in a signed|"
     r"needs a \d+-byte version|could not read the record type|invalid (?:modified )?UTF-8", "malformed"),
])


THROWN_IN = re.compile(r" \[thrown in (?P<classes>[^\]]*)\]$")  # the peer's list of Kafka's classes on the stack


def thrown_in(error: str) -> tuple[str, ...]:
    """The classes of Kafka's code on the stack where ``error`` was thrown, innermost first (the peer's list)."""
    m = THROWN_IN.search(error)
    return tuple(m.group("classes").split(", ")) if m else ()


@dataclass(frozen=True)
class Why:
    """A refusal mapped to its kind of why (:data:`KINDS`)."""

    kind: str


def kafka_why(error: str) -> Why:
    """Kafka's refusal (``Class: message``, causes appended) as a :class:`Why`: the innermost reason that maps."""
    for part in reversed(_causes(error)):
        for pattern, kind in KAFKA_RULES:
            if pattern.search(part):
                return Why(kind)
    return Why("unspecified" if KAFKA_UNSPECIFIED.search(error) else "other")


def our_why(error: Any) -> Why:
    """The project's refusal (a DecodeError, or its text) as a :class:`Why`."""
    reason = getattr(error, "reason", None)
    if reason is None:  # only the text: "Type vN, field a.b, byte N: reason"
        reason = re.sub(r"^[^:]*?(?:, byte \d+)?: ", "", str(error), count=1)
    for pattern, kind in OUR_RULES:
        if pattern.search(reason):
            return Why(kind)
    return Why("other")


def agree(kafka_error: str, ours: Any) -> tuple[bool, str]:
    """Whether both refusals are the same kind of refusal (the module's rules), and a line saying how each was read."""
    kafka, mine = kafka_why(kafka_error), our_why(ours)
    said = f"Kafka: {kafka.kind}; ours: {mine.kind}"
    if "other" in (kafka.kind, mine.kind):
        return False, said
    return kafka.kind == mine.kind or kafka.kind == "unspecified" or mine.kind in EARLY, said


def _causes(error: str) -> list[str]:
    """The error and its causes, outermost first (the peer appends each as ``(caused by Class: message)``; Kafka's
    coordinator serde puts its cause after ``due to:``)."""
    error = THROWN_IN.sub("", error)
    parts = re.split(r" \(caused by |due to: ", error)
    return [p.rstrip(").") for p in parts]


def struct_names(tree: Any) -> set[str]:
    """The names of every struct type reachable in a construct tree (the root's is its message's name), a nullable
    struct's (``Marked``) among them: its own name is its inner struct's."""
    from kafka_meta.testing.conformance.tag_rule import _struct, children  # the tree walk lives beside the tag rule

    out: set[str] = set()
    todo = [tree]
    while todo:
        con = _struct(todo.pop())
        shape = getattr(con, "shape", None)
        if shape is not None:
            if shape.name in out:
                continue
            out.add(shape.name)
        todo.extend(children(con))
    return out


def places_agree(kafka_error: str, kafka_root: str, tree: Any, our_path: str) -> tuple[bool, str] | None:
    """Whether the two refusals happened in one line of structs: the struct Kafka's reader was in when it threw (the
    innermost generated class of ``kafka_root``, ``ConsumerGroupHeartbeatRequestData.TopicPartitions``, on its
    stack) is one the project's error path passes through, or one inside the field the project stopped at (Kafka
    read on into it: the project checks an array's count before its elements). None where Kafka's stack names no
    class of ``kafka_root`` (a wrapper's own check)."""
    from kafka_meta.testing.conformance.tag_rule import chain_at

    classes = [c for c in thrown_in(kafka_error) if c == kafka_root or c.startswith(kafka_root + ".")]
    if not classes or tree is None:
        return None
    theirs = classes[0].rpartition(".")[2] if classes[0] != kafka_root else None
    chain, last = chain_at(tree, our_path)
    root = getattr(getattr(tree, "shape", None), "name", None)
    names = [getattr(c.shape, "name", None) for c in chain]
    said = f"Kafka in {theirs or 'the message'}; ours in {' > '.join(n for n in names if n) or '-'}"
    wanted = root if theirs is None else theirs
    return wanted in names or wanted in struct_names(last), said
