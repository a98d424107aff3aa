"""The comparison every subject goes through, case by case, with the peer's answers fetched in bulk.

A *subject* is one thing both sides can write and read (a message type through Kafka's generated class, the
consumer protocol through ``ConsumerProtocol``, a record through the coordinator's serde...). For each value it
draws, and for damaged copies of the bytes, the engine puts the same input to the project and to Kafka:

* **writing**: both encode the value; the bytes must be identical, or both must refuse. Where Kafka's writer
  iterates a hash map (the order is Java's to decide, the value has none), the subject says so
  (:attr:`Subject.hash_ordered`) and identical means: Kafka's bytes read back as the value, and re-encoding what
  the project read from them gives Kafka's bytes exactly;
* **reading**: each side reads the other's bytes, and the project its own; the values must be equal in the form
  the subject compares them in (Kafka's JSON form, or what Kafka's classes expose), and so must the bytes Kafka
  left unread;
* **damage**: mutated and truncated copies of the project's bytes: Kafka must throw exactly when the project
  raises ``DecodeError``, and when both read, the values must be equal.

Each input is a *case*; a case is identical when every comparison of it agrees. A disagreement is a
:class:`~kafka_meta.testing.conformance.results.Difference`, unless the subject recognises it as one of the
deliberate differences (:mod:`kafka_meta.testing.conformance.deliberate`), which are counted apart.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.testing.conformance import refusals
from kafka_meta.testing.conformance.deliberate import Deliberate
from kafka_meta.testing.conformance.peer import Answer, Peer, Pending
from kafka_meta.testing.conformance.results import Result, finished
from kafka_meta.testing.fuzz.mutate import EDITS, Mutator

CHUNK = 256  # values per round trip to the peer
MUTANTS = 2  # damaged copies of each value's bytes, each a case of its own
REDRAWS = 100  # draws of another value in place of one that nothing of could be compared


class Refused(Exception):
    """The project refused (an EncodeError or DecodeError, or a KafkaMetaError of a reader)."""


@dataclass
class Drawn:
    """One generated value and everything the project made of it."""

    version: int
    value: Any
    ours: bytes | None  # the project's encoding; None when it refused
    refusal: str | None  # why it refused
    kafka_request: dict[str, Any] | None  # asks Kafka to write the same value (None: Kafka's API cannot say it)
    expected: Any  # the value as the subject compares values (what reading ``ours`` must give)
    damageable: bytes | None = None  # what to mutate (default: ``ours``)
    # what Kafka's write is compared with, when Kafka's API cannot say all of the value (unknown tagged fields):
    # the project's bytes of what it can say, and what reading them gives (defaults: ``ours``, ``expected``)
    written: bytes | None = None
    expected_written: Any = None
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def compared_write(self) -> bytes | None:
        return self.written if self.written is not None else self.ours

    @property
    def compared_read(self) -> Any:
        return self.expected_written if self.expected_written is not None else self.expected


@dataclass
class Read:
    """What one side made of some bytes: a value in the compared form, or a refusal."""

    view: Any = None
    refused: str | None = None
    unread: int | None = None  # bytes left after the value (None: not compared)
    facts: dict[str, Any] = field(default_factory=dict)  # what a deliberate difference is recognised by
    error: Any = None  # the project's exception, where it refused (its reason and field path are compared)


class Subject:
    """One thing both sides write and read. Subclasses fill in the hooks; the engine does the rest."""

    name: str = ""
    family: str = ""
    types: tuple[str, ...] = ()  # the registered types it covers (for --type)
    hash_ordered: bool = False  # Kafka's writer orders by Java hash containers: compare bytes by read-back
    apart: str | None = None  # why its result is listed apart from the headline (results.Result.apart)

    def draw(self, rng: random.Random) -> Drawn:
        raise NotImplementedError

    def kafka_bytes(self, result: Any) -> bytes:
        return bytes.fromhex(result["hex"])

    def kafka_read_request(self, data: bytes, drawn: Drawn) -> dict[str, Any]:
        raise NotImplementedError

    def kafka_read(self, answer: Answer, drawn: Drawn) -> Read:
        raise NotImplementedError

    def companion_request(self, data: bytes, drawn: Drawn) -> dict[str, Any] | None:
        """A second question to Kafka about damaged ``data``, asked beside the reading (None: none), whose answer a
        deliberate difference needs as evidence of Kafka's side; it reaches :meth:`deliberate` as
        ``kafka.facts["companion"]``."""
        return None

    def our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        """The project's reading of ``data``; ``explain=False`` may refuse without saying where (the engine asks
        again, explained, for the differences it reports)."""
        raise NotImplementedError

    def reencode(self, data: bytes, drawn: Drawn) -> bytes | None:
        """The project's encoding of what it reads from ``data`` (for hash-ordered subjects)."""
        return None

    def deliberate(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> Deliberate | None:
        """The documented reason the two reads of ``data`` differ, if it is a deliberate difference."""
        return None

    def refusal_places(self, ours: Read, kafka: Read, data: bytes, drawn: Drawn) -> tuple[bool, str] | None:
        """Where both sides refused ``data`` for the same kind of reason: whether they refused at one place, and
        how each place was read (:func:`~kafka_meta.testing.conformance.refusals.places_agree`); None where the
        subject cannot tell Kafka's place."""
        return None

    def deliberate_write(self, drawn: Drawn, kafka: Answer | None) -> Deliberate | None:
        """The documented reason the two sides write ``drawn`` differently, if it is a deliberate difference."""
        return None

    def mutants(self, data: bytes, rng: random.Random) -> list[bytes]:
        return damage(data, rng, MUTANTS)

    def canonical(self, view: Any) -> Any:
        """A view without what Java's hash order decides (for :attr:`hash_ordered` subjects: the value Kafka's bytes
        are read back as is compared in this form)."""
        return view

    def same(self, ours: Read, kafka: Read) -> bool:
        """Whether both sides read damaged bytes alike (both read: equal values and, where both say, as many bytes
        left unread)."""
        return ours.view == kafka.view and (kafka.unread is None or ours.unread is None or kafka.unread == ours.unread)


def damage(data: bytes, rng: random.Random, count: int, keep: int = 0) -> list[bytes]:
    """``count`` damaged copies: one to four of the fuzzer's edits (bit flips, boundary values over fields,
    cuts, insertions, duplicated runs), or a plain truncation; the first ``keep`` bytes stay as they are."""
    out = []
    head, body = data[:keep], data[keep:]
    for _ in range(count):
        if rng.random() < 0.25 and body:
            out.append(head + body[:rng.randrange(len(body))])
            continue
        buf = bytearray(body)
        mutator = Mutator([body], rng.randrange(1 << 30))
        for _ in range(rng.randint(1, 4)):
            getattr(mutator, rng.choice(EDITS))(buf, mutator.random)
        out.append(head + bytes(buf[:len(body) + 256]))
    return out


def short(data: bytes | None, limit: int = 160) -> str | None:
    if data is None:
        return None
    text = data.hex()
    return text if len(text) <= limit else f"{text[:limit]}... ({len(data)} bytes)"


def shown(value: Any, limit: int = 400) -> Any:
    text = repr(value)
    return value if len(text) <= limit else text[:limit] + "..."


def _views_equal(a: Any, b: Any) -> bool:
    return a == b


@dataclass
class _Pending:
    drawn: Drawn
    encode: int | None
    decode: int | None
    mutants: list[tuple[bytes, int, int | None]]  # the bytes, where Kafka's reading is, where its companion is


class Runner:
    """Runs one subject's cases against the peer and tallies them into a :class:`Result`."""

    def __init__(self, peer: Peer, subject: Subject, rng: random.Random) -> None:
        self.peer = peer
        self.subject = subject
        self.rng = rng
        self.result = Result(subject.name, apart=subject.apart)

    def run(self, cases: int) -> Result:
        """``cases`` cases, in chunks: while Kafka's code answers one chunk, the next is drawn and encoded here."""
        done = 0
        waiting: tuple[list[_Pending], Pending, int] | None = None
        while done < cases or waiting is not None:
            ready = None
            if done < cases:
                values = max(1, min(CHUNK, (cases - done + MUTANTS) // (MUTANTS + 1)))
                ready = self._prepare(values, cases - done)
                done += ready[2]
            if waiting is not None:
                self._check(*waiting)
            waiting = ready
        return self.result

    def _prepare(self, values: int, budget: int) -> tuple[list[_Pending], Pending, int]:
        """Draw ``values`` values and their damaged copies, and hand Kafka's side of them to the peer; the count is
        how many cases they make (at most ``budget``)."""
        requests: list[dict[str, Any]] = []
        pending: list[_Pending] = []
        for _ in range(values):
            drawn = self.subject.draw(self.rng)
            for _ in range(REDRAWS):
                if drawn.kafka_request is not None or drawn.ours is not None:
                    break
                # the project refuses to write it and Kafka's API cannot be given it: nothing of it can be
                # compared, so it is no case (a value over a length limit that Kafka's maps cannot hold either)
                drawn = self.subject.draw(self.rng)
            encode = decode = None
            if drawn.kafka_request is not None:
                encode = len(requests)
                requests.append(drawn.kafka_request)
            if drawn.ours is not None:
                decode = len(requests)
                requests.append(self.subject.kafka_read_request(drawn.ours, drawn))
            mutants = []
            source = drawn.damageable if drawn.damageable is not None else drawn.ours
            if source is not None:
                for data in self.subject.mutants(source, self.rng):
                    at = len(requests)
                    requests.append(self.subject.kafka_read_request(data, drawn))
                    companion = self.subject.companion_request(data, drawn)
                    if companion is not None:
                        requests.append(companion)
                    mutants.append((data, at, at + 1 if companion is not None else None))
            pending.append(_Pending(drawn, encode, decode, mutants))
        count = min(budget, sum(1 + len(p.mutants) for p in pending))
        return pending, self.peer.submit(requests), count

    def _check(self, pending: list[_Pending], submitted: Pending, budget: int) -> None:
        answers = submitted.answers()
        count = 0
        for p in pending:
            self._guarded(self._value_case, p, answers)
            count += 1
            for data, at, companion in p.mutants:
                if count >= budget:
                    break
                self._guarded(self._damage_case, data, answers[at],
                              answers[companion] if companion is not None else None, p.drawn)
                count += 1

    def _guarded(self, check: Any, *arguments: Any) -> None:
        """One case's check; a failure of the harness itself is a difference of its own (a long run goes on)."""
        try:
            check(*arguments)
        except Exception as e:  # noqa: BLE001 - reported as a difference, with the input
            drawn = arguments[-1] if isinstance(arguments[-1], Drawn) else arguments[0].drawn
            self.result.differ("the harness failed", {"version": drawn.version, "error": repr(e),
                                                      "bytes": short(arguments[0]) if isinstance(arguments[0], bytes)
                                                      else short(drawn.ours)})

    # ------------------------------------------------------------------ one value
    def _value_case(self, p: _Pending, answers: list[Answer]) -> None:
        r, s, drawn = self.result, self.subject, p.drawn
        r.cases += 1
        agree = True

        def example() -> dict[str, Any]:  # only for a difference: the repr of a large value is not cheap
            return {"version": drawn.version, "value": shown(drawn.value)}

        kafka_wrote: bytes | None = None
        if p.encode is not None:
            answer = answers[p.encode]
            if not answer.ok:
                r.kafka_refusals += 1
            else:
                kafka_wrote = s.kafka_bytes(answer.result)
            if drawn.ours is None:
                r.our_refusals += 1
            if drawn.ours is None and answer.ok:
                agree = False
                why = s.deliberate_write(drawn, answer)
                r.differ("we refuse to write, Kafka writes", {**example(), "ours": drawn.refusal,
                                                              "kafka": short(kafka_wrote)},
                         why.key if why else None)
            elif drawn.ours is not None and not answer.ok:
                agree = False
                why = s.deliberate_write(drawn, answer)
                r.differ("Kafka refuses to write, we write", {**example(), "kafka": answer.error,
                                                              "ours": short(drawn.ours)},
                         why.key if why else None)
            elif (drawn.ours is not None and kafka_wrote is not None and drawn.compared_write != kafka_wrote
                  and not (s.hash_ordered and self._same_but_order(kafka_wrote, drawn))):
                agree = False
                ours_wrote = drawn.compared_write
                r.differ("bytes differ", {**example(), "ours": short(ours_wrote), "kafka": short(kafka_wrote),
                                          "first difference": _first_difference(ours_wrote, kafka_wrote)})
        elif drawn.ours is None:
            r.our_refusals += 1
        if kafka_wrote is not None:
            ours = self._our_read(kafka_wrote, drawn)
            if ours.refused is not None:
                agree = False
                r.differ("we refuse Kafka's bytes", {**example(), "kafka": short(kafka_wrote), "ours": ours.refused})
            elif not _views_equal(s.canonical(ours.view), s.canonical(drawn.compared_read)):
                agree = False
                r.differ("we read Kafka's bytes differently", {**example(), "kafka": short(kafka_wrote),
                                                               "expected": shown(drawn.compared_read),
                                                               "ours": shown(ours.view)})
        if p.decode is not None:
            kafka = s.kafka_read(answers[p.decode], drawn)
            if kafka.refused is not None:
                agree = False
                why = s.deliberate(self._our_read(drawn.ours, drawn), kafka, drawn.ours, drawn)  # type: ignore[arg-type]
                r.differ("Kafka refuses our bytes", {**example(), "ours": short(drawn.ours), "kafka": kafka.refused},
                         why.key if why else None)
            elif not _views_equal(kafka.view, drawn.expected) or (
                    kafka.unread is not None and kafka.unread != drawn.notes.get("unread", 0)):
                agree = False
                ours = self._our_read(drawn.ours, drawn)  # type: ignore[arg-type]
                why = s.deliberate(ours, kafka, drawn.ours, drawn)  # type: ignore[arg-type]
                r.differ("Kafka reads our bytes differently", {
                    **example(), "ours": short(drawn.ours), "expected": shown(drawn.expected),
                    "kafka": shown(kafka.view), "kafka unread": kafka.unread}, why.key if why else None)
        if agree and kafka_wrote is None and p.decode is None:
            # nothing was written, so nothing was compared but the two refusals to write it
            if p.encode is not None and not answers[p.encode].ok:
                r.both_refused += 1
            else:
                why = s.deliberate_write(drawn, None)
                r.differ("we refuse to write, and Kafka was not asked", {**example(), "ours": drawn.refusal},
                         why.key if why else None)
        elif agree:
            r.identical += 1

    def _same_but_order(self, kafka_wrote: bytes, drawn: Drawn) -> bool:
        """Kafka's bytes hold the value (read back equal) and are what the project writes for what it reads."""
        s = self.subject
        ours = self._our_read(kafka_wrote, drawn)
        return ours.refused is None and _views_equal(s.canonical(ours.view), s.canonical(drawn.compared_read)) and \
            s.reencode(kafka_wrote, drawn) == kafka_wrote

    def _our_read(self, data: bytes, drawn: Drawn, explain: bool = True) -> Read:
        try:
            return self.subject.our_read(data, drawn, explain)
        except (Refused, KafkaMetaError) as e:
            return Read(refused=str(e) or type(e).__name__, error=e)

    # ------------------------------------------------------------------ one damaged input
    def _damage_case(self, data: bytes, answer: Answer, companion: Answer | None, drawn: Drawn) -> None:
        r, s = self.result, self.subject
        r.cases += 1
        ours = self._our_read(data, drawn, explain=False)
        kafka = s.kafka_read(answer, drawn)
        if companion is not None:
            kafka.facts["companion"] = companion
        if kafka.refused is not None:
            r.kafka_refusals += 1
        if ours.refused is not None:
            r.our_refusals += 1
        if kafka.refused is None and ours.refused is None and s.same(ours, kafka):
            r.identical += 1
            return
        if ours.refused is not None:
            ours = self._our_read(data, drawn)  # again, to say why
        example = {"version": drawn.version, "bytes": short(data)}
        if kafka.refused is not None and ours.refused is not None:
            alike, said = refusals.agree(kafka.refused, ours.error if ours.error is not None else ours.refused)
            what = "both refuse, for different reasons"
            if alike:
                place = s.refusal_places(ours, kafka, data, drawn)
                if place is None or place[0]:
                    r.both_refused += 1
                    return
                what, said = "both refuse, at different places", place[1]
            why = s.deliberate(ours, kafka, data, drawn)
            r.differ(what, {**example, "kafka": kafka.refused, "ours": ours.refused, "read as": said},
                     why.key if why else None)
            return
        why = s.deliberate(ours, kafka, data, drawn)
        if kafka.refused is not None:
            r.differ("Kafka refuses, we read", {**example, "kafka": kafka.refused, "ours": shown(ours.view)},
                     why.key if why else None)
        elif ours.refused is not None:
            r.differ("we refuse, Kafka reads", {**example, "ours": ours.refused, "kafka": shown(kafka.view)},
                     why.key if why else None)
        else:
            r.differ("damaged bytes read differently", {**example, "ours": shown(ours.view),
                                                        "kafka": shown(kafka.view), "our unread": ours.unread,
                                                        "kafka unread": kafka.unread}, why.key if why else None)


def _first_difference(a: bytes, b: bytes) -> int:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def run_subjects(peer: Peer, subjects: list[Subject], cases: int, seed: int,
                 shard: tuple[int, int] = (0, 1)) -> Iterator[Result]:
    """Each subject's result (of those in ``shard``: see :func:`in_shard`), its cases drawn from a generator seeded by
    ``seed`` and the subject's name (so a subject's cases do not depend on which others run, or where)."""
    for n, subject in enumerate(subjects):
        if in_shard(n, shard):
            rng = random.Random(f"{seed}:{subject.name}")
            yield finished(Runner(peer, subject, rng).run(cases))


def run_in_batches(kinds: Iterable[Any], cases: int, types: set[str] | None, seed: int, shard: tuple[int, int],
                   batch_size: int, check_batch: Callable[[Any, list[Any], Result], None]) -> list[Result]:
    """The loop of the families whose cases are drawn by a kind (``.type``, ``.draw(rng)``): ``cases`` per kind
    selected by ``types`` and ``shard``, drawn from a generator seeded by ``seed`` and the kind's type, handed to
    ``check_batch`` ``batch_size`` at a time (one round trip to the peer each)."""
    results = []
    selected = [kind for kind in kinds if types is None or kind.type in types]
    for n, kind in enumerate(selected):
        if not in_shard(n, shard):
            continue
        rng = random.Random(f"{seed}/{kind.type}")
        result = Result(kind.type)
        done = 0
        while done < cases:
            batch = [kind.draw(rng) for _ in range(min(batch_size, cases - done))]
            check_batch(kind, batch, result)
            done += len(batch)
        results.append(finished(result))
    return results


def in_shard(position: int, shard: tuple[int, int]) -> bool:
    """Whether the type at ``position`` (among those a family runs) is one of shard ``(k, count)``'s: every count-th
    from the k-th, so that parallel workers share the types of each family (``--jobs``)."""
    k, count = shard
    return position % count == k
