"""The evidence the ``tag-size`` deliberate difference needs: that a known tagged field's declared size misfit its
type, as the project's production reader saw it, and what each rule makes of the bytes.

Kafka's generated readers read a known tag by its type and never look at the size it declares; the project reads a
known tag whose value does not take exactly the declared size as an unknown tagged field, and refuses one whose size
runs past the end (docs/offsets.md, "A tag whose size does not fit its type"). Three readings are gathered here:

* the **production** reading (what users call: ``Format.decode``, the generated reader): does it show the situation,
  a known tag kept as unknown (:func:`known_tags_kept`), or a refusal of a known tag's size past the end
  (:func:`refused_known_tag`)?
* the **tree** reading with the project's rule (the construct trees the codecs are declared with, interpreted): a
  second reader of the same bytes, which the production reading must equal, values, unread bytes and unknown tagged
  fields alike: a planted bug in the production reader makes the two differ;
* the **tree** reading with Kafka's rule: what Kafka's readers make of the bytes, which must be Kafka's outcome, and
  which lists the known tags whose type read other bytes than they declared (so the rule changed the reading).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from construct import Container

from kafka_meta.codec.dispatch import Dispatch
from kafka_meta.errors import KafkaMetaError
from kafka_meta.models.factory import UNKNOWN_ALIAS
from kafka_meta.wire.bindings import Bind
from kafka_meta.wire.codegen import UNKNOWN_KEY
from kafka_meta.wire.composite import KArray, KStruct, Marked
from kafka_meta.wire.errors import Fault

Entry = tuple[str, int, str, bool]  # (struct path, tag, data as base64, whether the struct knows the tag)


def _struct(con: Any) -> Any:
    while isinstance(con, (Bind, Marked)):
        con = con.inner if isinstance(con, Bind) else con.struct
    return con


def unknown_in_json(json: Any, con: Any, path: str = "") -> list[Entry]:
    """The unknown tagged fields of a value in the project's JSON form (``to_json_dict``), with where they are."""
    return _unknown_in(json, con, path, _JSON)


def unknown_of(message: Any, layout: Any) -> list[Entry]:
    """The unknown tagged fields a decoded message (the production reader's) holds, with where they are."""
    if message is None or layout is None:
        return []
    return unknown_in_json(message.model_dump(mode="json", by_alias=True), layout)


def unknown_in_plain(value: Any, con: Any, path: str = "") -> list[Entry]:
    """The same of a plain value (what the construct trees read: snake_case keys, raw bytes)."""
    return _unknown_in(value, con, path, _PLAIN)


@dataclass(frozen=True)
class _Form:
    """How one form of a value keys its members and holds its unknown tagged fields (as ``(tag, base64)``)."""

    key: Callable[[Any], str]
    unknown: Callable[[dict[str, Any]], list[tuple[int, str]]]


_JSON = _Form(lambda m: m.json, lambda value: [(u["tag"], u["data"]) for u in value.get(UNKNOWN_ALIAS) or []])
_PLAIN = _Form(lambda m: m.py, lambda value: [(tag, base64.b64encode(data).decode("ascii"))
                                              for tag, data in value.get(UNKNOWN_KEY) or []])


def _unknown_in(value: Any, con: Any, path: str, form: _Form) -> list[Entry]:
    """One walk for both forms: structs by the member names of ``form``, arrays element by element; a path names
    members by their JSON names in either form."""
    con = _struct(con)
    if value is None or isinstance(con, Dispatch):
        return []
    if isinstance(con, KArray):
        return [e for n, v in enumerate(value) for e in _unknown_in(v, con.element, f"{path}[{n}]", form)]
    if not isinstance(con, KStruct) or not isinstance(value, dict):
        return []
    out = [(path, tag, data, tag in con.by_tag) for tag, data in form.unknown(value)]
    for m in con.members:
        if m.con is not None and m.role != "absent" and form.key(m) in value:
            out += _unknown_in(value[form.key(m)], m.con, f"{path}.{m.json}" if path else m.json, form)
    return out


def known_tags_kept(entries: list[Entry]) -> list[Entry]:
    """The entries a struct knows the tag of: kept as unknown because their size misfit their type."""
    return [e for e in entries if e[3]]


PAST_THE_END = re.compile(r"tagged field (\d+) has size \d+ but only \d+ bytes are left")


def refused_known_tag(error: Any, tree: Any) -> bool:
    """Whether the production reader's refusal is the rule's other half: a known tag (known to the struct at the
    error's field path) declaring a size past the end of the input."""
    m = PAST_THE_END.search(getattr(error, "reason", "") or "")
    if m is None or tree is None:
        return False
    struct = struct_at(tree, getattr(error, "path", "") or "")
    return isinstance(struct, KStruct) and int(m.group(1)) in struct.by_tag


def struct_at(tree: Any, path: str) -> Any:
    """The struct a field path of the project's errors (``members[2].<tagged fields>``) ends in."""
    con = _struct(tree)
    for name in re.split(r"\.|(?=\[)", path):
        if not name or name.startswith("<"):
            continue
        if name.startswith("["):
            con = _struct(con.element) if isinstance(con, KArray) else con
            continue
        if not isinstance(con, KStruct):
            return None
        member = next((m for m in con.members if m.json == name), None)
        if member is None or member.con is None:
            return None
        con = _struct(member.con)
    return con


def same_refusal(production: Any, tree: Any) -> bool:
    """Whether the production reader's refusal and the tree's are the same: the same reason at the same field."""
    reason = getattr(production, "reason", None)
    path = getattr(production, "path", getattr(production, "field_path", None))
    tree_path = getattr(tree, "field_path", getattr(tree, "path", None))
    return reason is not None and reason == getattr(tree, "reason", None) and path == tree_path


def children(con: Any) -> list[Any]:
    """The constructs directly inside ``con`` that may hold structs (its members', an array's element)."""
    con = _struct(con)
    if isinstance(con, KArray):
        return [con.element]
    if isinstance(con, KStruct):
        return [m.con for m in con.members if m.con is not None]
    return []


def chain_at(tree: Any, path: str) -> tuple[list[Any], Any]:
    """The structs an error's field path (``members[2].assignment.<tagged fields>``) passes through, from the root,
    and the construct of the last field it names (the root where it names none)."""
    con = _struct(tree)
    chain = [con] if isinstance(con, KStruct) else []
    for name in re.split(r"\.|(?=\[)", path):
        if not name or name.startswith("<"):
            continue
        if name.startswith("["):
            con = _struct(con.element) if isinstance(con, KArray) else con
        elif isinstance(con, KStruct):
            member = next((m for m in con.members if m.json == name), None)
            if member is None or member.con is None:
                break
            con = _struct(member.con)
        else:
            break
        if isinstance(con, KStruct) and (not chain or chain[-1] is not con):
            chain.append(con)
    return chain, con


def parse_tree(fmt: Any, data: bytes, version: int | None, kafka_tags: bool = False,
               misfits: list[int] | None = None, negative_counts: list[int] | None = None) -> tuple[Any, int, Any]:
    """``(value, end, tree)`` of the construct tree's interpreted, lenient reading of ``data``, with Kafka's rule for
    known tags (``kafka_tags``) or the project's; ``(the exception, 0, None)`` when it fails. ``misfits`` collects the
    known tags whose type read other bytes than they declared (Kafka's rule only). With ``negative_counts`` (a list), a
    tagged-field count Java reads as a negative int is read as no tagged fields, as kafka-clients 3.9 and 4.0's
    generated readers do, and its offset is collected."""
    try:
        header = fmt.header(data, version)
        if header.layout_version is None:
            return "a version probe", 0, None
        tree = fmt.construct(header.layout_version)
        stream = BytesIO(data)
        stream.seek(header.body_offset)
        context = Container(_strict=False, _kafka_tags=kafka_tags, _kafka_tag_misfits=misfits,
                            _negative_tag_counts=negative_counts)
        value = tree._parse(stream, context, "(parsing)")
        return value, stream.tell(), tree
    except (Fault, KafkaMetaError) as e:
        return e, 0, None


ANOTHER_VERSION = re.compile(r"Tag (\d+) is not valid for version (\d+)")  # Kafka's generated readers' refusal


def tags_of_other_versions(fmt: Any, version: int) -> dict[str, set[int]]:
    """Struct path (array indices left out, as :func:`without_indices` gives them) -> the tags the spec gives fields
    of that struct at other versions but not at ``version``. Kafka's generated readers know every tag of a struct
    whatever the version, and refuse one whose field is not in the version read (``Tag 8 is not valid for version
    0``: PartitionChangeRecord's Directories, tag 8 from v1); a tag no version has is an unknown tagged field."""
    def tags(con: Any, path: str, into: dict[str, set[int]]) -> None:
        con = _struct(con)
        if isinstance(con, KArray):
            tags(con.element, path, into)
        elif isinstance(con, KStruct):
            into.setdefault(path, set()).update(con.by_tag)
            for m in con.members:
                if m.con is not None and m.role != "absent":
                    tags(m.con, f"{path}.{m.json}" if path else m.json, into)

    every: dict[str, set[int]] = {}
    for v in fmt.versions:
        tags(fmt.construct(fmt.layout_slot(v)), "", every)
    here: dict[str, set[int]] = {}
    tags(fmt.construct(fmt.layout_slot(version)), "", here)
    return {path: found - here.get(path, set()) for path, found in every.items() if found - here.get(path, set())}


def without_indices(path: str) -> str:
    """``voters[2].endpoints`` -> ``voters.endpoints``: a struct path as :func:`tags_of_other_versions` keys it."""
    return re.sub(r"\[\d+\]", "", path)


def refused_tag_of_another_version(error: Any, other: dict[str, set[int]], tag: int) -> bool:
    """Whether the production reader's refusal is tag ``tag``'s declared size past the end, in a struct whose spec
    gives ``tag`` to a field at another version (``other``: :func:`tags_of_other_versions`)."""
    m = PAST_THE_END.search(getattr(error, "reason", "") or "")
    if m is None or int(m.group(1)) != tag:
        return False
    path = re.sub(r"\.?<tagged fields>$", "", getattr(error, "path", "") or "")
    return tag in other.get(without_indices(path), set())


def another_versions_tag(entries: list[Entry], other: dict[str, set[int]], tag: int) -> bool:
    """Whether ``tag`` is among the unknown tagged fields kept (``entries``) in a struct whose spec gives it to a
    field at another version (``other``: :func:`tags_of_other_versions`)."""
    return any(e[1] == tag and tag in other.get(without_indices(e[0]), set()) for e in entries)
