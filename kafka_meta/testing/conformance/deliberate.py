"""Where the project differs from Kafka on purpose: the one table of deliberate differences.

Each entry names what differs, why, and where the project documents it. A difference the conformance run finds is
counted as deliberate only when a recogniser below matches it by what the project itself reports about the input
(the version it read forward, the layout variant, the field it refused): anything else is an unexplained
difference, and the run fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
               "cannot read it and takes the member as owning nothing (generation -1); the project reads it",
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
               "a __consumer_offsets record of a type no class describes: Kafka 4.4's serde throws "
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
               "every metadata record type; the project declares FeatureLevelRecord and TopicRecord only and "
               "refuses the others (any other type's spec can be loaded with kafka_meta.load_specs)",
               "the project reads the records it needs from the metadata log (feature levels, topic names)",
               "docs/kraft.md (Reading a metadata log)"),
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


def recognise_tag_sizes(emulated: Any, kafka: Any, same: Any, ours: Any = None) -> Deliberate | None:
    """The tag-size rule, when it is the whole difference: the project's own reading of the bytes, with Kafka's rule
    for known tags put in place of its own (``emulated``), gives exactly Kafka's outcome, and (where the project's
    actual reading ``ours`` is given) something else than the project's rule gives: a difference the rule does not
    change is not the rule's. Where the emulated reading saw a known tag whose type took other bytes than it
    declared (``tag misfits``), the rule did change the reading, even where the values compared look alike (a
    reading that cannot be written back is compared by its values, which leave unknown tagged fields out)."""
    applied = bool(emulated.facts.get("tag misfits"))
    if ours is not None and not applied and (ours.refused is None) == (emulated.refused is None) and (
            ours.refused is not None or same(ours, emulated)):
        return None
    if (emulated.refused is None) != (kafka.refused is None):
        return None
    if emulated.refused is not None or same(emulated, kafka):
        return TABLE["tag-size"]
    return None


def recognise_release(release: str, ours: Any, kafka: Any) -> Deliberate | None:
    """A difference between an older release's generated reader and Kafka 4.4's, which the project follows: the
    older reader took a tagged-field count it read as negative for none and went on. What it went on to read is
    often left unread, but may also pass for the enclosing structs' tagged sections (then nothing is left), so
    the older reader reading what the project refuses inside a tagged section is the sign, whatever is left."""
    if kafka.refused is None and "<tagged fields>" in (ours.refused or ""):
        return TABLE["older-release-negative-tag-count"]
    return None


def recognise_record(ours: Any, kafka: Any) -> Deliberate | None:
    """A deliberate difference between GroupCoordinatorRecordSerde and the project's record reader."""
    refusal = kafka.refused or ""
    if ours.refused is None and "UnknownRecordTypeException" in refusal:
        if ours.facts.get("unknown type"):
            return TABLE["offsets-unknown-record-type"]
        if ours.facts.get("retired"):
            return TABLE["offsets-retired-record-type"]
    if ours.refused is None and "UnknownRecordVersionException" in refusal and ours.facts.get("read forward"):
        return TABLE["offsets-newer-value-version"]
    if ours.facts.get("variant") not in (None, CURRENT_LAYOUT):
        return TABLE["offsets-older-layout"]
    return None


def recognise_metadata_record(ours: Any, kafka: Any, registered: set[int]) -> Deliberate | None:
    """A deliberate difference between MetadataRecordSerde and the project's MetadataRecord."""
    if ours.refused is not None and kafka.refused is None and kafka.view["apiKey"] not in registered:
        return TABLE["metadata-unregistered-record-type"]
    return None


def recognise_streams(type_name: str, ours: Any, kafka: Any) -> Deliberate | None:
    """A deliberate difference between Kafka Streams' classes and the project."""
    if type_name == "AssignmentInfo" and ours.facts.get("probe") and kafka.refused is not None:
        return TABLE["streams-assignment-probe"]
    if type_name == "AssignmentInfo" and kafka.refused is None and "is not in the dictionary" in (ours.refused or ""):
        return TABLE["streams-topic-index-not-in-dictionary"]
    if type_name == "SubscriptionInfo" and kafka.facts.get("client tags error") and ours.facts.get(
            "repeated client tag"):
        view = {k: v for k, v in kafka.view.items() if k != "clientTags"}
        if view == {k: v for k, v in ours.view.items() if k != "clientTags"}:
            return TABLE["streams-repeated-client-tag"]
    return None
