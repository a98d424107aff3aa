"""The thin face between Kafka and the live core: kafka-python's consumer reads ``__consumer_offsets`` and
``__transaction_state``, its admin client's connections carry the describe requests the project's codec writes.

The consumer joins no group (``assign``, no ``group.id``, no commits: it changes nothing on the cluster) and
reads ``read_committed`` (``__transaction_state`` is written outside transactions: all of it is read). When the
cluster stops answering, :class:`Unreachable` says so; the session closes this source and opens a new one at the
core's positions once the cluster answers again. A broker that refuses
the login (a wrong password, a mechanism it does not enable) is :class:`Refused`: trying again cannot help;
so is a TLS handshake that fails (the broker's certificate not trusted, or not for the address dialled).
"""

from __future__ import annotations

import contextlib
import logging
import re
import ssl
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from kafka_meta.errors import KafkaMetaError
from kafka_meta.live import describe, login_probe, reasons
from kafka_meta.live.core import WATCHED_TOPICS, FetchedLike, Place
from kafka_meta.live.events import GroupDescription
from kafka_meta.live.wire_request import CodecRequest

ERROR_NAMES = re.compile(r"^(\[Error -?\d+\] )?(\w+(Error|Exception|Supported): )*")
# topic, partition, and that partition's records in offset order, as the consumer handed them over
Batch = tuple[str, int, Sequence[FetchedLike]]
# Sized for reading a backlog (``--from-beginning`` on a big __consumer_offsets, a reconnection): each poll hands
# over up to 20,000 records, and a fetch brings up to 8 MB (kafka-python's defaults, 500 records and 1 MB a
# partition, make a poll loop of many small steps that the per-poll work dominates). A record of
# __consumer_offsets is some 100 bytes, so a full fetch is what a few polls hand over: the memory it holds is a
# few fetches, whatever the backlog.
FETCH_SETTINGS = {"max_poll_records": 20_000, "max_partition_fetch_bytes": 8 << 20, "fetch_max_bytes": 8 << 20}


class Unreachable(KafkaMetaError):
    """The cluster did not answer (not running, the network, a timeout)."""


class Refused(KafkaMetaError):
    """The cluster answered but would not let the watch in (authentication, TLS): retrying will not help."""


def _kafka() -> Any:
    try:
        import kafka
        import kafka.errors
    except ImportError as e:
        raise KafkaMetaError("watch needs kafka-python: pip install 'kafka-meta[live]'") from e
    return kafka


def _problem(error: Exception, bootstrap: str) -> KafkaMetaError:
    """A kafka-python failure as Unreachable (try again later) or Refused (stop)."""
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    if isinstance(error, login_probe.LoginRefused):
        return Refused(str(error))
    if isinstance(error, _refusals()):  # "[Error 58] SaslAuthenticationFailedError: ...: why", said once
        why = ERROR_NAMES.sub("", text) or type(error).__name__
        return Refused(f"{bootstrap} refused the login (SASL authentication failed): {why}")
    if isinstance(error, ssl.SSLCertVerificationError):  # the client's verdict, not the broker's
        why = error.verify_message or error.reason or text
        return Refused(f"the TLS certificate of {bootstrap} was not accepted: certificate verify failed: {why} "
                       "(ssl.truststore.location must hold the authority that signed it)")
    if isinstance(error, ssl.SSLError):
        return Refused(f"the TLS handshake with {bootstrap} failed: {text}")
    # anything else may pass (a broker restarting, a network cut): a TLS or login refusal is found first, by
    # the login probe's own handshake, before kafka-python connects
    return Unreachable(f"{bootstrap}: {reasons.said(error)}")


def _refusals() -> tuple[type[Exception], ...]:
    errors = _kafka().errors
    return tuple(getattr(errors, name) for name in ("AuthenticationFailedError", "SaslAuthenticationFailedError",
                                                    "AuthenticationMethodNotSupported") if hasattr(errors, name))


class KafkaSource:
    """A consumer of every partition of ``__consumer_offsets`` and ``__transaction_state`` and an admin
    connection, both to ``bootstrap``."""

    def __init__(self, bootstrap: str, settings: dict[str, Any], timeout_s: float) -> None:
        kafka = _kafka()
        logging.getLogger("kafka").setLevel(logging.CRITICAL)  # its reconnect noise would break the live view
        self.bootstrap, self.timeout_s = bootstrap, timeout_s
        common = {"bootstrap_servers": bootstrap, "request_timeout_ms": int(timeout_s * 1000),
                  "reconnect_backoff_max_ms": 1000, **settings}
        verdict = login_probe.refusal(bootstrap, settings, timeout_s)  # before kafka-python, which can't tell
        if verdict is not None:
            raise _problem(verdict, bootstrap)
        try:
            self.admin = kafka.KafkaAdminClient(bootstrap_timeout_ms=int(timeout_s * 1000), **common)
        except Exception as e:  # noqa: BLE001 - kafka-python's errors are many; each is said in one line
            raise _problem(e, bootstrap) from None
        try:
            self.consumer = kafka.KafkaConsumer(group_id=None, enable_auto_commit=False,
                                                isolation_level="read_committed", **{**FETCH_SETTINGS, **common})
        except Exception as e:  # noqa: BLE001
            self.admin.close()
            raise _problem(e, bootstrap) from None
        self.assigned: list[Any] = []

    def assign(self, positions: Mapping[Place, int], from_beginning: Collection[str]) -> set[str]:
        """Read every partition of the watched topics that exist (``__consumer_offsets``, ``__transaction_state``:
        neither does before its first use) from ``positions`` ((topic, partition) -> next offset); a partition
        not there from its beginning when its topic is in ``from_beginning``, else from its end. The topics
        assigned, to be asked again while one is missing: a partition already assigned reads on where it is."""
        kafka = _kafka()
        found, wanted = set(), []
        for topic in WATCHED_TOPICS:
            try:
                partitions = self.consumer.partitions_for_topic(topic)
            except Exception as e:  # noqa: BLE001
                raise _problem(e, self.bootstrap) from None
            if partitions:
                found.add(topic)
                wanted += [kafka.TopicPartition(topic, p) for p in sorted(partitions)]
        new = [tp for tp in wanted if tp not in set(self.assigned)]
        if not new:
            return found
        self.assigned = wanted
        self.consumer.assign(self.assigned)  # kafka-python keeps the position of a partition assigned before
        fresh = [tp for tp in new if (tp.topic, tp.partition) not in positions]
        for tp in new:
            if (tp.topic, tp.partition) in positions:
                self.consumer.seek(tp, positions[tp.topic, tp.partition])
        for seek, chosen in ((self.consumer.seek_to_beginning, [tp for tp in fresh if tp.topic in from_beginning]),
                             (self.consumer.seek_to_end, [tp for tp in fresh if tp.topic not in from_beginning])):
            if chosen:
                seek(*chosen)
        return found

    def poll(self, timeout_s: float) -> list[Batch]:
        """The records fetched since the last call, per partition (each partition's in offset order): handed on
        as kafka-python made them, one list a partition, not copied record by record."""
        try:
            batches = self.consumer.poll(timeout_ms=int(timeout_s * 1000))
        except Exception as e:  # noqa: BLE001
            raise _problem(e, self.bootstrap) from None
        return [(tp.topic, tp.partition, records)
                for tp, records in sorted(batches.items(), key=lambda item: (item[0].topic, item[0].partition))]

    def positions(self) -> dict[Place, int]:
        """The next offset the consumer hands over, per partition assigned (a partition still looking for where
        to start left out)."""
        found = {}
        try:
            for tp in self.assigned:
                position = self.consumer.position(tp, timeout_ms=0)
                if position is not None:
                    found[tp.topic, tp.partition] = position
        except Exception as e:  # noqa: BLE001
            raise _problem(e, self.bootstrap) from None
        return found

    def end_offsets(self) -> dict[Place, int]:
        """The log end of every partition assigned, as this consumer can read it (:func:`end_offsets`)."""
        try:
            return end_offsets(self.consumer, self.assigned, self.timeout_s)
        except Exception as e:  # noqa: BLE001
            raise _problem(e, self.bootstrap) from None

    def log_ends(self, partitions: Collection[Place]) -> dict[Place, int]:
        """The log end of other topics' ``partitions`` (the groups' own, for their lag): the same ListOffsets,
        one per leader; a partition that no longer exists is left out."""
        kafka = _kafka()
        try:
            return end_offsets(self.consumer, [kafka.TopicPartition(t, p) for t, p in partitions], self.timeout_s)
        except Exception as e:  # noqa: BLE001
            raise _problem(e, self.bootstrap) from None

    def caught_up(self, topic: str) -> bool:
        """Whether every partition of ``topic`` is read to its end (its high watermark, as the last fetch gave
        it); False while the topic is not read or not fetched yet."""
        partitions = [tp for tp in self.assigned if tp.topic == topic]
        try:
            for tp in partitions:
                end, position = self.consumer.highwater(tp), self.consumer.position(tp, timeout_ms=0)
                if end is None or position is None or position < end:
                    return False
        except Exception as e:  # noqa: BLE001
            raise _problem(e, self.bootstrap) from None
        return bool(partitions)

    def version(self, api: describe.Api) -> int | None:
        """The version of ``api`` to send: the newest the broker's ApiVersions and the project's spec share,
        None when there is none that says what a watch needs."""
        manager = self.admin._manager  # kafka-python's connections, for requests it has no class for
        return describe.version(api, manager.broker_version_data.api_versions.get(api.key))

    def send(self, api: describe.Api, groups: list[str] | None = None, node: int | None = None
             ) -> dict[str, Any] | None:
        """One request to ``node`` (any broker when None) and its answer read; None when the broker does not
        speak a version of it that says what a watch needs."""
        manager = self.admin._manager
        version = self.version(api)
        if version is None:
            return None
        request = CodecRequest(api.key, version, describe.request(api, version, groups))

        async def exchange() -> Any:
            return await manager.send(request, node_id=node)

        try:
            answer = manager.run(exchange)
        except Exception as e:  # noqa: BLE001
            raise _problem(e, self.bootstrap) from None
        return describe.response(api, version, answer.body)

    def brokers(self) -> list[int]:
        return sorted(b.node_id for b in self.admin._manager.cluster.brokers())

    def describe(self, only: Iterable[str] | None = None) -> list[GroupDescription]:
        """Every group (or those of ``only``) as listed, each described by its coordinator with the describe of
        its type, where the broker speaks it (else as listed, with a note saying so)."""
        listed: dict[str, GroupDescription] = {}
        for node in self.brokers():
            body = self.send(describe.LIST_GROUPS, node=node)
            for g in describe.listed_groups(body) if body is not None else []:
                listed[g.group] = g
        wanted = set(only) if only is not None else None
        if wanted is not None:
            listed = {g: d for g, d in listed.items() if g in wanted}
        spoken = {kind for kind, d in describe.DESCRIBERS.items() if self.version(d.api) is not None}
        for d in listed.values():
            if d.kind not in spoken and d.kind in describe.DESCRIBERS:
                describe.not_described(d, describe.DESCRIBERS[d.kind].api)
        by_kind: dict[tuple[int | str, str], list[str]] = {}
        for group, coordinator in self._coordinators([g for g, d in listed.items() if d.kind in spoken]).items():
            if isinstance(coordinator, str):
                listed[group].error = coordinator
                continue
            by_kind.setdefault((coordinator, listed[group].kind), []).append(group)
        for (coordinator, kind), groups in sorted(by_kind.items(), key=str):
            describer = describe.DESCRIBERS[kind]
            body = self.send(describer.api, groups, node=int(coordinator))
            for d in describer.read(body) if body is not None else []:
                listed[d.group] = d
        return sorted(listed.values(), key=lambda d: d.group)

    def _coordinators(self, groups: list[str]) -> dict[str, int | str]:
        if not groups:
            return {}
        body = self.send(describe.FIND_COORDINATOR, groups)
        if body is None:  # a broker before Kafka 2.8 (no batched FindCoordinator): ask the one at hand
            node = self.brokers()[0]
            return dict.fromkeys(groups, node)
        return describe.coordinators(body)

    def close(self) -> None:
        for closing in (self.consumer.close, self.admin.close):
            with contextlib.suppress(Exception):  # closing what already failed: nothing more to say
                closing()


def end_offsets(consumer: Any, partitions: Sequence[Any], timeout_s: float) -> dict[Place, int]:
    """The log end offset of each of ``partitions`` (kafka-python ``TopicPartition``) by one ListOffsets per
    leader, at ``consumer``'s isolation level: for a ``read_committed`` consumer the last stable offset (what it
    can reach; an open transaction's records are not yet readable), else the high watermark. Empty for none."""
    if not partitions:
        return {}
    answered = consumer.end_offsets(list(partitions), timeout_ms=int(timeout_s * 1000))
    return {(tp.topic, tp.partition): offset for tp, offset in answered.items() if offset is not None}
