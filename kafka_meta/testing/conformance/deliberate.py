"""Where the project differs from Kafka on purpose: the one table of deliberate differences.

Each entry names what differs, why, and where the project documents it. A difference the conformance run finds is
counted as deliberate only when a recogniser below matches it by what the project itself reports about the input
(the version it read forward, the layout variant, the field it refused): anything else is an unexplained
difference, and the run fails.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kafka_meta.testing.conformance import refusals, tag_rule

CURRENT_LAYOUT = "2026-08"  # kafka_meta.formats.offsets.CURRENT: the layouts Kafka 4.4 has


@dataclass(frozen=True)
class Deliberate:
    key: str
    what: str  # the behaviour: what Kafka does, what the project does
    reason: str  # why the project does it
    documented: str  # where the project says so


TABLE: dict[str, Deliberate] = {d.key: d for d in [
    Deliberate("sticky-kafka-python",
               "StickyAssignor user data in kafka-python's form (an int16 version first): Kafka's StickyAssignor "
               "cannot read it: it takes the member as owning nothing (generation -1), or misreads it where its own "
               "layout happens to read the bytes; the project reads it as kafka-python does",
               "kafka-python 3 writes sticky user data that way; reading it shows what such a member owned",
               "docs/offsets.md (The whole nest), kafka_meta/formats/assignors.py"),
    Deliberate("tag-size",
               "a known tagged field whose declared size does not fit its type: Kafka's generated readers read the "
               "type and ignore the size (the bytes after it are then misread, or the read fails); the project "
               "keeps such an entry as an unknown tagged field, or refuses it when the size runs past the end",
               "one tag number can mean different things to different writers (KIP-915 adds fields as tags); "
               "reading by the declared size keeps the record readable and writable back byte for byte",
               "docs/offsets.md (A tag whose size does not fit its type)"),
    Deliberate("older-release-negative-tag-count",
               "a tagged-field count that Java reads as a negative int (a varint of 2^31 or more), in a version "
               "only an older release describes (its class is the one compared): the generated readers of "
               "kafka-clients 3.9 and 4.0 read no tagged fields then and leave the rest unread; Kafka 4.4's refuse "
               "the count (Invalid negative number of tagged fields), and so does the project",
               "the project reads as the newest Kafka does",
               "docs/conformance.md (Deliberate differences)"),
    Deliberate("offsets-unknown-record-type",
               "a coordinator log's record (__consumer_offsets, __transaction_state, __share_group_state) of a type "
               "no class describes: Kafka 4.4's serde throws "
               "UnknownRecordTypeException (its loader skips the record); the project reads it as an UnknownRecord "
               "keeping the raw bytes (strict reading refuses it)",
               "a log reader reports every record it meets instead of dropping it",
               "docs/offsets.md (Reading policy)"),
    Deliberate("offsets-retired-record-type",
               "record types 9 (ShareGroupPartitionMetadata) and 18 (StreamsGroupPartitionMetadata), which Kafka "
               "retired: Kafka 4.4 throws UnknownRecordTypeException; the project reads them with the layouts "
               "Kafka wrote them with while they existed",
               "logs written by the Kafka releases that had them still hold them",
               "docs/offsets.md (Layout variants)"),
    Deliberate("offsets-older-layout",
               "a record value that only an older layout of its type reads (share-group records changed without a "
               "version bump while in preview, a type-0 key followed by an OffsetCommitValue): Kafka 4.4 reads "
               "it with its one layout, or refuses it; the project reads it with the older layout it fits",
               "logs of the releases that wrote those layouts still hold them",
               "docs/offsets.md (Layout variants)"),
    Deliberate("offsets-newer-value-version",
               "a record value of a version newer than Kafka 4.4 knows: its serde throws "
               "UnknownRecordVersionException (the loader skips the record); the project reads it with the newest "
               "layout, KIP-915 style, and says read_forward (strict reading refuses it)",
               "KIP-915: a newer coordinator's records stay readable by tools that have not caught up",
               "docs/offsets.md (Reading policy)"),
    Deliberate("metadata-unregistered-record-type",
               "a metadata-log record of a type the project does not register: Kafka's MetadataRecordSerde reads "
               "every metadata record type; the project declares every type Kafka 4.4 has, so only a registry "
               "whose metadata specs were replaced (kafka_meta.load_specs) lacks one, and refuses it",
               "a registry reads the record types it holds",
               "docs/kraft.md (Reading a metadata log)"),
    Deliberate("remote-log-metadata-unknown-record-type",
               "a __remote_log_metadata record of an apiKey no class describes: RemoteLogMetadataSerde throws "
               "(Unknown metadata id); the project reads it as an UnknownRemoteLogMetadataRecord keeping the raw bytes "
               "(strict reading refuses it)",
               "a log reader reports every record it meets instead of dropping it",
               "docs/internal-topics.md (`__remote_log_metadata`)"),
    Deliberate("metadata-newer-version-struct",
               "a metadata record of a version newer than Kafka 4.4 knows that holds a struct (an element of an "
               "array of structs, e.g. RegisterBrokerRecord v5 with an endpoint): Kafka's generated reader of the "
               "record reads on at that version, but the struct's own reader refuses it (Can't read version 5 of "
               "BrokerEndpoint); the project reads the whole record forward, every field's version range evaluated "
               "at that version",
               "a reader of logs shows what a newer controller wrote as far as the known layout goes; the records "
               "without such a struct are read alike, and strict reading refuses every newer version",
               "docs/kraft.md (Newer record versions)"),
    Deliberate("tag-of-another-version",
               "a tagged field whose tag the spec gives a field of the same struct only at other versions "
               "(PartitionChangeRecord v0 holding tag 8, Directories from v1): Kafka's generated readers refuse it "
               "(Tag 8 is not valid for version 0); the project reads it as an unknown tagged field and keeps its "
               "bytes, as for any tag the version does not have (and refuses it where its declared size runs past "
               "the end)",
               "an unknown tagged field is skippable by design (KIP-482): a reader of logs keeps what it can read, "
               "byte for byte",
               "docs/kraft.md (Tagged fields of another version)"),
    Deliberate("streams-repeated-client-tag",
               "a SubscriptionInfo naming a client tag twice: Kafka Streams decodes it, but its clientTags() throws "
               "IllegalStateException (Collectors.toMap refuses a repeated key), failing the leader's assignment; the "
               "project reads it, and its streams_view keeps the last value",
               "a reader shows what a member sent, including what would make a Kafka leader fail",
               "docs/streams.md (What Kafka refuses, and what strict reading adds)"),
    Deliberate("streams-topic-index-not-in-dictionary",
               "an AssignmentInfo (v5+) whose host map names a topic by an index the topic dictionary lacks: Kafka "
               "Streams' AssignmentInfo.decode reads it as a partition of topic null; the project refuses it",
               "the topic cannot be named, and no Java writer produces it (Java builds the dictionary from the same "
               "partitions it then writes)",
               "docs/streams.md (What Kafka refuses, and what strict reading adds)"),
    Deliberate("streams-assignment-probe",
               "an AssignmentInfo of a version above 11: Kafka Streams' AssignmentInfo.decode throws; the project "
               "reads it as a version probe (its version and commonlySupportedVersion), strict reading refuses it",
               "to show what a newer leader sent, as for subscriptions",
               "docs/streams.md (Version probing)"),
]}


def get(key: str) -> Deliberate:
    return TABLE[key]


def _alike(a: Any, b: Any, same: Any) -> bool:
    """Both refused, or both read and ``same`` says the readings are equal."""
    if (a.refused is None) != (b.refused is None):
        return False
    return a.refused is not None or same(a, b)


def recognise_tag_sizes(production: Any, tree: Any, kafka_rule: Any, kafka: Any, same: Any) -> Deliberate | None:
    """``tag-size``, only where all three hold (docs/offsets.md, "A tag whose size does not fit its type"):

    1. the situation is in the bytes: the construct tree read with Kafka's rule (``kafka_rule``: a known tag read by
       its type, its declared size unchecked) met a known tag whose type took other bytes than it declared; and
       where the production reader (``Format.decode``, what users call) read the bytes, it kept such a tag as an
       unknown tagged field (where it refused, the refusal is checked by 2);
    2. the production reader did what the project's rule says: the construct tree's own reading with that rule
       (``tree``) gives the same outcome: the same values, unread bytes and unknown tagged fields, or the same
       refusal (reason and field path);
    3. Kafka's rule explains Kafka's outcome: ``kafka_rule`` gives exactly what Kafka gave.

    A bug planted in the production reader breaks 2 (the tree still reads right), or lies where no known tag
    misfits (1); a bug in both readers shows in the cases without a misfit, which no rule excuses.
    """
    if not kafka_rule.facts.get("tag misfits") or not _alike(kafka_rule, kafka, same):
        return None
    if (production.refused is None) != (tree.refused is None):
        return None
    if production.refused is not None:
        return TABLE["tag-size"] if tag_rule.same_refusal(production.error, tree.error) else None
    kept = production.facts.get("unknown tags") or []
    if not any(entry[3] for entry in kept) or kept != tree.facts.get("unknown tags") or not same(production, tree):
        return None
    return TABLE["tag-size"]


def recognise_release(production: Any, tree: Any, older: Any, kafka: Any, same: Any) -> Deliberate | None:
    """``older-release-negative-tag-count``, only where: the project refused (the production reader, and the
    construct tree's reading alike); the tree read as the older release's generated readers read (a tagged-field
    count Java sees as negative taken for none) met such a count; and that reading gives exactly the older
    release's outcome. A refusal of the production reader's own making (the tree reads the bytes) is not this."""
    if production.refused is None or tree.refused is None:
        return None
    if not older.facts.get("negative tag counts") or not _alike(older, kafka, same):
        return None
    return TABLE["older-release-negative-tag-count"]


def recognise_record(ours: Any, kafka: Any, current: Any = None, forward: Any = None,
                     same: Any = None, current_forward: Any = None) -> Deliberate | None:
    """A deliberate difference between GroupCoordinatorRecordSerde and the project's record reader, each only where
    Kafka's side shows the situation too:

    * ``offsets-unknown-record-type`` / ``offsets-retired-record-type``: Kafka threw UnknownRecordTypeException and
      the production reader says the type is unknown, or retired;
    * ``offsets-newer-value-version``: Kafka threw UnknownRecordVersionException, the production reader read the
      value forward, and Kafka's own class, reading the same value as the newest version it knows (``forward``, the
      peer's answer), read what the project read (or refused it, for the same kind of reason as the project);
    * ``offsets-older-layout``: the production reader chose an older layout, and reading the same bytes with the
      current layout only (``current``, the production reader restricted to Kafka's one layout) gives exactly
      Kafka's outcome: the layout choice is the whole difference. Where the value's version is also newer than
      Kafka knows, Kafka's reading of it as its newest version (``forward``) must equal the current layout's
      reading of it as the newest (``current_forward``).

    A misread within a layout, or of a forward read, is unexplained: it differs from Kafka's reading of the same
    layout (older-layout cases aside, whose layouts Kafka 4.4 no longer has: the golden files hold those).
    """
    refusal = kafka.refused or ""
    if ours.refused is not None and kafka.refused is not None:  # both refused, for different reasons
        if "UnknownRecordTypeException" in refusal and ours.facts.get("retired"):
            return TABLE["offsets-retired-record-type"]
        if ("UnknownRecordVersionException" in refusal and ours.facts.get("read forward") and forward is not None
                and forward.refused is not None and refusals.agree(forward.refused, ours.error or ours.refused)[0]):
            return TABLE["offsets-newer-value-version"]
        return None
    if ours.refused is None and "UnknownRecordTypeException" in refusal:
        if ours.facts.get("unknown type"):
            return TABLE["offsets-unknown-record-type"]
        if ours.facts.get("retired"):
            return TABLE["offsets-retired-record-type"]
    variant = ours.facts.get("variant")
    if ours.refused is None and "UnknownRecordVersionException" in refusal and forward is not None and same:
        if ours.facts.get("read forward") and forward.refused is None and same(ours, forward):
            return TABLE["offsets-newer-value-version"]
        # read with an older layout it fits: Kafka's reading at its newest version is the current layout's
        if variant not in (None, CURRENT_LAYOUT) and current_forward is not None and _alike(current_forward, forward,
                                                                                              same):
            return TABLE["offsets-older-layout"]
        return None
    if (ours.refused is None and variant not in (None, CURRENT_LAYOUT) and current is not None and same is not None
            and _alike(current, kafka, same)):
        return TABLE["offsets-older-layout"]
    return None


def recognise_metadata_record(ours: Any, kafka: Any, registered: set[int]) -> Deliberate | None:
    """A deliberate difference between MetadataRecordSerde and the project's MetadataRecord."""
    if ours.refused is not None and kafka.refused is None and kafka.view["apiKey"] not in registered:
        return TABLE["metadata-unregistered-record-type"]
    return None


def recognise_remote_log_metadata(ours: Any, kafka: Any) -> Deliberate | None:
    """A deliberate difference between the remote-log metadata serde and the project's reader of that topic."""
    if ours.refused is None and ours.facts.get("unknown type") and "Unknown metadata id" in (kafka.refused or ""):
        return TABLE["remote-log-metadata-unknown-record-type"]
    return None
NESTED_VERSION = re.compile(r"Can't read version (\d+) of (\w+)")


def recognise_newer_version_struct(kafka: Any, version: int, newest: int, structs: set[str]) -> Deliberate | None:
    """``metadata-newer-version-struct``, only where the record's version is newer than its spec's newest and Kafka
    refused with a struct's generated reader's ``Can't read version V of S``, V that version and S a struct of the
    record's spec (not the record itself, whose reader reads on)."""
    found = NESTED_VERSION.search(kafka.refused or "")
    if found is None or version <= newest or int(found[1]) != version or found[2] not in structs:
        return None
    return TABLE["metadata-newer-version-struct"]


def recognise_tag_of_another_version(production: Any, kafka: Any, other: dict[str, set[int]]) -> Deliberate | None:
    """``tag-of-another-version``, only where Kafka refused with its generated readers' ``Tag N is not valid for
    version V`` and, in a struct whose spec gives N to a field at another version (``other``:
    :func:`~kafka_meta.testing.conformance.tag_rule.tags_of_other_versions`), the production reader either read the
    bytes keeping tag N as an unknown tagged field (its ``unknown tags`` fact), or refused tag N's declared size
    as running past the end (it checks the size before the tag; Kafka the tag before the value). The error's
    field path is the struct's own (a frame's reader gives the body's path)."""
    found = tag_rule.ANOTHER_VERSION.search(kafka.refused or "")
    if found is None:
        return None
    tag = int(found[1])
    if production.refused is None:
        matched = tag_rule.another_versions_tag(production.facts.get("unknown tags") or [], other, tag)
    else:
        matched = tag_rule.refused_tag_of_another_version(production.error, other, tag)
    return TABLE["tag-of-another-version"] if matched else None


def recognise_streams(type_name: str, ours: Any, kafka: Any) -> Deliberate | None:
    """A deliberate difference between Kafka Streams' classes and the project."""
    if type_name == "AssignmentInfo" and ours.facts.get("probe") and kafka.refused is not None:
        return TABLE["streams-assignment-probe"]
    # both refuse a version above 11: Kafka the version itself, the project the probe's commonlySupportedVersion
    # it then reads (the bytes end before it)
    error = ours.error
    if (type_name == "AssignmentInfo" and kafka.refused is not None and error is not None
            and refusals.kafka_why(kafka.refused).kind == "version" and (getattr(error, "version", None) or 0) > 11
            and getattr(error, "path", "") == "commonlySupportedVersion"):
        return TABLE["streams-assignment-probe"]
    if type_name == "AssignmentInfo" and kafka.refused is None and "is not in the dictionary" in (ours.refused or ""):
        return TABLE["streams-topic-index-not-in-dictionary"]
    if type_name == "SubscriptionInfo" and kafka.facts.get("client tags error") and ours.facts.get(
            "repeated client tag"):
        view = {k: v for k, v in kafka.view.items() if k != "clientTags"}
        if view == {k: v for k, v in ours.view.items() if k != "clientTags"}:
            return TABLE["streams-repeated-client-tag"]
    return None
