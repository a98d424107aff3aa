"""The sticky and cooperative-sticky assignors' user data, through the code Kafka's consumer runs (the peer's
``sticky.*`` and ``cooperative.*``): an assignor told its assignment and generation writes its next subscription's
user data; the group leader reads a member's user data with the assignor's ``memberData``.

Both sides are compared on what the leader gets: the owned partitions in wire order and the generation (absent
for StickyAssignor's version 0; -1 when Kafka falls back because it cannot read the bytes). Kafka's StickyAssignor
groups the partitions by topic in a HashMap, so its topic order is Java's hash order: its bytes are compared by
reading them back (:attr:`~kafka_meta.testing.conformance.engine.Subject.hash_ordered`), with the partitions of each
topic in the order given.
"""

from __future__ import annotations

import random
from typing import Any

from kafka_meta.codec.variants import UNREADABLE
from kafka_meta.errors import DecodeError, EncodeError
from kafka_meta.formats.assignors import JAVA, KAFKA_PYTHON
from kafka_meta.formats.catalogue import REGISTRY
from kafka_meta.testing.conformance import deliberate as why
from kafka_meta.testing.conformance.engine import Drawn, Read, Subject
from kafka_meta.testing.conformance.peer import Answer
from kafka_meta.testing.conformance.values import Sampler

STICKY = "StickyAssignorUserData"
COOPERATIVE = "CooperativeStickyAssignorUserData"
# what Kafka's StickyAssignor.memberData gives for user data it cannot read: the member owned nothing, no generation
KAFKA_SUBSTITUTE = {"partitions": [], "generation": -1}


def flat(groups: list[dict[str, Any]]) -> list[list[Any]]:
    return [[g["topic"], p] for g in groups for p in g["partitions"]]


class StickySubject(Subject):
    family = "AssignorUserData"
    name = f"{STICKY} (StickyAssignor)"
    types = (STICKY,)
    hash_ordered = True

    def __init__(self) -> None:
        self.fmt = REGISTRY.get(STICKY)
        self.java = self.fmt.variants[0].format  # type: ignore[attr-defined]  # Java's layout, versions 0 and 1
        self.sampler: Sampler | None = None

    def draw(self, rng: random.Random) -> Drawn:
        if self.sampler is None or self.sampler.rng is not rng:
            self.sampler = Sampler(rng)
        version = rng.choice((0, 1, 1, 1))
        tree = self.java.construct(version)
        value = self.sampler.value(tree)
        # Kafka's assignor writes the partitions it was assigned, grouped by topic: a topic without partitions is
        # nothing it can be told, so the value both sides write has none
        value["previous_assignment"] = [g for g in value["previous_assignment"] if g["partitions"]]
        generation = value["generation"] if version == 1 else None
        try:
            ours, refusal = self.java.encode(value, version), None
        except EncodeError as e:
            ours, refusal = None, str(e)
        request = {"op": "sticky.serialize", "partitions": flat(value["previous_assignment"]), "generation": generation}
        return Drawn(version, value, ours, refusal, request,
                     {"partitions": flat(value["previous_assignment"]), "generation": generation})

    def canonical(self, view: Any) -> Any:
        """The partitions by topic (each topic's in order), as Kafka's HashMap groups them, and the generation."""
        by_topic: dict[str, list[int]] = {}
        for topic, partition in view["partitions"]:
            by_topic.setdefault(topic, []).append(partition)
        return {"partitions": by_topic, "generation": view["generation"]}

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        return {"op": "sticky.deserialize", "hex": data.hex()}

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        if not answer.ok:
            return Read(refused=answer.error)
        return Read({"partitions": answer.result["partitions"], "generation": answer.result["generation"]})

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        if not data:
            # empty user data is none: Kafka's memberData returns no partitions and no generation before reading,
            # and the project's readers of member metadata decode no empty user data
            # (kafka_meta.offsets.nest, kafka_meta.protocol.member_metadata)
            return Read({"partitions": [], "generation": None})
        message = self.fmt.decode(data)
        facts = {"variant": message.variant}
        if message.variant == UNREADABLE:
            return Read(dict(KAFKA_SUBSTITUTE), facts=facts)  # Kafka's substitute (memberData)
        generation = message.generation if message.variant == JAVA and message.version == 1 else None
        return Read({"partitions": flat(message.to_json_dict()["previousAssignment"]), "generation": generation},
                    facts=facts)

    def reencode(self, data: bytes, drawn: Drawn) -> bytes | None:
        return self.fmt.encode(self.fmt.decode(data))

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> why.Deliberate | None:
        """``sticky-kafka-python`` only where both sides show it. Ours: the production reader read kafka-python's
        layout, and read it as kafka-python itself does (its own ``StickyAssignorUserData.decode``, the library the
        test extra pins: without it the rule never applies). Kafka's: its StickyAssignor gave exactly what its own
        rule makes of those bytes, which the project's Java layout predicts: the layout read leniently (version 1,
        else 0, what follows ignored: a kafka-python body Java's layout happens to read is misread, not refused),
        or, where neither version reads them, the substitute (no partitions, generation -1). A misread of either
        layout, on either side, or any other answer of Kafka's, stays unexplained."""
        if ours.facts.get("variant") != KAFKA_PYTHON or kafka.refused is not None:
            return None
        if self.canonical(kafka.view) != self.canonical(self.kafka_rule(data)):
            return None
        return why.get("sticky-kafka-python") if self.as_kafka_python_reads(data) else None

    def kafka_rule(self, data: bytes) -> dict[str, Any]:
        """What Kafka's StickyAssignor.memberData makes of ``data``, by the project's reading of Java's layout: the
        first version that reads it (what follows ignored), else the substitute."""
        try:
            message = self.fmt.decode(data, variant=JAVA)
        except DecodeError:
            return dict(KAFKA_SUBSTITUTE)
        generation = message.generation if message.version == 1 else None
        return {"partitions": flat(message.to_json_dict()["previousAssignment"]), "generation": generation}

    def as_kafka_python_reads(self, data: bytes) -> bool:
        """Whether the production reader's reading of kafka-python's layout is kafka-python 3's own."""
        try:
            from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData as KafkaPython
        except ImportError:
            return False
        try:
            theirs = KafkaPython.decode(data)
        except Exception:  # noqa: BLE001 - any failure of the other library's reader: it did not read the bytes
            return False
        message = self.fmt.decode(data, variant=KAFKA_PYTHON)
        partitions = [[tp.topic, p] for tp in theirs.previous_assignment for p in tp.partitions]
        generation = getattr(theirs, "generation", None) if theirs.version >= 1 else None
        ours = flat(message.to_json_dict()["previousAssignment"])
        return (theirs.version, partitions, generation) == (message.version, ours,
                                                              message.generation if message.version >= 1 else None)


class CooperativeSubject(Subject):
    family = "AssignorUserData"
    name = f"{COOPERATIVE} (CooperativeStickyAssignor)"
    types = (COOPERATIVE,)

    def __init__(self) -> None:
        self.fmt = REGISTRY.get(COOPERATIVE)
        self.java = self.fmt.variants[0].format  # type: ignore[attr-defined]
        self.sampler: Sampler | None = None

    def draw(self, rng: random.Random) -> Drawn:
        if self.sampler is None or self.sampler.rng is not rng:
            self.sampler = Sampler(rng)
        value = self.sampler.value(self.java.construct(0))
        return Drawn(0, value, self.java.encode(value, 0), None,
                     {"op": "cooperative.serialize", "generation": value["generation"]},
                     {"generation": value["generation"]})

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        return {"op": "cooperative.deserialize", "hex": data.hex()}

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        if not answer.ok:
            return Read(refused=answer.error)
        return Read({"generation": answer.result["generation"]})

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        message = self.fmt.decode(data)
        return Read({"generation": message.generation}, facts={"variant": message.variant})


def subjects(types: set[str] | None) -> list[Subject]:
    return [subject() for t, subject in ((STICKY, StickySubject), (COOPERATIVE, CooperativeSubject))
            if types is None or t in types]
