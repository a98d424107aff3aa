"""Pairs requests with responses per connection, decoding both: bytes in, exchanges out (sans-IO).

The caller (a capture reader, a live tap) frames each direction of each connection and hands over whole
frames without their size prefix. A request is decoded on arrival, because its api key and version say
how to read the response header and body (a response names neither). Responses are matched by
correlation id within their connection; Kafka answers in order, but matching by id also copes with
pipelining and with frames lost from a capture.

Never raises on bad bytes: what does not decode is kept raw and described in the exchange's ``_error``.
Requests that get no response (Produce with acks=0) are complete on arrival; a request whose
correlation id comes again before an answer is given up on; :meth:`Correlator.finish` returns the rest.

SyncGroup requests before v5, and their responses, do not say which protocol the group uses; the
correlator remembers what the JoinGroup response said, per connection and group (and per group, for a
sync on another connection), so the assignments can be decoded.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, cast

from kafka_meta.errors import KafkaMetaError
from kafka_meta.protocol import member_metadata as nest
from kafka_meta.protocol.apis import API_VERSIONS, APIS, api_name, response_header_version
from kafka_meta.protocol.bodies import BODIES, BodyReader
from kafka_meta.protocol.exchange import Connection, Exchange
from kafka_meta.protocol.headers import ProtocolError, peek_correlation_id, read_request_header, read_response_header
from kafka_meta.protocol.produce import expects_response
from kafka_meta.protocol.shapes import Body, ExchangeSource
from kafka_meta.protocol.summary import group_facts

JOIN_GROUP = 11
SYNC_GROUP = 14
DESCRIBE_GROUPS = 15
NESTED_IN_PLACE = frozenset({JOIN_GROUP, SYNC_GROUP, DESCRIBE_GROUPS})  # apis whose trees get member metadata

Protocol = tuple[str | None, str | None]  # (protocol type, protocol name)


def _ends(conn: Hashable, client: str | None, broker: str | None, stream: int | None
          ) -> tuple[str | None, str | None, int | None]:
    """The connection's addresses and number: given explicitly, else from a :class:`Connection` key."""
    if isinstance(conn, Connection):
        return client or conn.client, broker or conn.broker, conn.stream if stream is None else stream
    return client, broker, stream


# the spec names of every api's bodies, built once: looked up for every frame
_SPEC_NAMES: dict[tuple[int, str], str] = {(key, kind): api.name + kind for key, api in APIS.items()
                                          for kind in ("Request", "Response")}


def _copy(source: ExchangeSource | None) -> ExchangeSource | None:
    """The exchange's own copy of where it was read (the caller may reuse its dict)."""
    return cast(ExchangeSource, dict(source)) if source is not None else None


def _spec_name(api_key: int, kind: str) -> str | None:
    return _SPEC_NAMES.get((api_key, kind))


class Correlator:
    """See the module docstring. ``on_request``/``on_response``/``finish`` return finished exchanges."""

    def __init__(self, bodies: BodyReader = BODIES, nested: bool = True, *, shared_bodies: bool = False) -> None:
        self.bodies = bodies
        self.nested = nested
        # the bodies of apis whose trees are not changed here (member metadata is nested into JoinGroup,
        # SyncGroup and DescribeGroups in place) may be the body cache's own trees, the same object in every
        # exchange with those bytes: for callers that only read the exchanges (serialize them, count them)
        self.shared_bodies = shared_bodies
        # per connection, correlation id -> (arrival number, exchange), in arrival order
        self._pending: dict[Hashable, dict[int, tuple[int, Exchange]]] = {}
        self._arrivals = 0
        self._protocols: dict[tuple[Hashable, str], Protocol] = {}
        self._group_protocols: dict[str, Protocol] = {}
        self.unmatched_responses = 0

    # -- requests -------------------------------------------------------------------------------------

    def on_request(self, conn: Hashable, ts: float, frame: bytes, source: ExchangeSource | None = None, *,
                   client: str | None = None, broker: str | None = None, stream: int | None = None) -> list[Exchange]:
        """Decode a request (a frame without its size prefix) and wait for its response; returns the exchanges
        this completes: the request itself when no response will come (Produce acks=0, a damaged header), an
        unanswered request whose correlation id it reuses."""
        client, broker, stream = _ends(conn, client, broker, stream)
        src = _copy(source)
        try:
            header = read_request_header(frame)
        except ProtocolError as exc:
            key = int.from_bytes(frame[:2], "big", signed=True) if len(frame) >= 2 else None
            bad = Exchange(ts, key, None if key is None else api_name(key), None, None, client=client, broker=broker,
                           stream=stream, request={"_raw": bytes(frame)}, errors=[f"request header: {exc}"],
                           source=src)
            return [bad]
        ex = Exchange(ts, header.api_key, api_name(header.api_key), header.api_version, header.correlation_id,
                      client_id=header.client_id, client=client, broker=broker, stream=stream, source=src)
        body = frame[header.body_offset:]
        ex.request = self._decode(ex, _spec_name(header.api_key, "Request"), body, "request")
        if ex.request is not None and "_raw" not in ex.request:
            self._nest_request(conn, ex)
        if not expects_response(header.api_key, header.api_version, body):
            self._summarize(ex)
            return [ex]
        pending = self._pending.setdefault(conn, {})
        done: list[Exchange] = []
        earlier = pending.pop(header.correlation_id, None)
        if earlier is not None:
            earlier[1].errors.append(f"no response before correlation id {header.correlation_id} was used again")
            self._summarize(earlier[1])
            done.append(earlier[1])
        self._arrivals += 1
        pending[header.correlation_id] = (self._arrivals, ex)
        return done

    # -- responses ------------------------------------------------------------------------------------

    def on_response(self, conn: Hashable, ts: float, frame: bytes, source: ExchangeSource | None = None, *,
                    client: str | None = None, broker: str | None = None, stream: int | None = None
                    ) -> list[Exchange]:
        """The exchange this response completes (after any requests it shows were never answered); the
        keyword arguments and ``source`` only serve a response that has no request."""
        correlation_id = peek_correlation_id(frame)
        pending = self._pending.get(conn)
        entry = pending.pop(correlation_id, None) if pending is not None and correlation_id is not None else None
        skipped = self._skipped(pending, entry[0]) if entry is not None and pending else []
        ex = entry[1] if entry is not None else None
        if ex is None:
            self.unmatched_responses += 1
            client, broker, stream = _ends(conn, client, broker, stream)
            what = "a response frame shorter than its correlation id" if correlation_id is None else \
                f"response without a request (correlation id {correlation_id})"
            return [Exchange(ts, None, None, None, correlation_id, client=client, broker=broker, stream=stream,
                             response_ts=ts, response={"_raw": bytes(frame)}, errors=[what],
                             source=_copy(source))]
        done = [*skipped, ex]
        ex.response_ts = ts
        assert ex.api_key is not None and ex.api_version is not None  # set for every pending request
        try:
            header = read_response_header(frame, response_header_version(ex.api_key, ex.api_version))
        except ProtocolError as exc:
            ex.errors.append(f"response header: {exc}")
            ex.response = {"_raw": bytes(frame)}
            self._summarize(ex)
            return done
        ex.response = self._decode(ex, _spec_name(ex.api_key, "Response"), frame[header.body_offset:], "response")
        if ex.response is not None and "_raw" not in ex.response:
            self._nest_response(conn, ex)
        self._summarize(ex)
        return done

    @staticmethod
    def _skipped(pending: dict[int, tuple[int, Exchange]], arrival: int) -> list[Exchange]:
        """Requests sent before the one just answered: a broker answers a connection's requests in order,
        so theirs will never come (lost from the capture). Given up on now, so a long capture does not
        keep them all until ``finish``."""
        skipped = []
        while pending:
            correlation_id, (earlier, ex) = next(iter(pending.items()))
            if earlier > arrival:
                break
            del pending[correlation_id]
            ex.errors.append("no response: the broker answered a later request on this connection first")
            Correlator._summarize(ex)
            skipped.append(ex)
        return skipped

    def finish(self) -> list[Exchange]:
        """Every request still waiting for its response (response None), oldest first."""
        left = [ex for pending in self._pending.values() for _, ex in pending.values()]
        self._pending.clear()
        for ex in left:
            self._summarize(ex)
        return sorted(left, key=lambda ex: ex.ts)

    # -- decoding -------------------------------------------------------------------------------------

    def _decode(self, ex: Exchange, type_name: str | None, body: bytes, what: str) -> Body:
        assert ex.api_version is not None
        if type_name is None or not self.bodies.has_spec(type_name):
            return {"_raw": bytes(body)}
        try:
            return self.bodies.decode(type_name, body, ex.api_version,
                                      shared=self.shared_bodies and ex.api_key not in NESTED_IN_PLACE)
        except KafkaMetaError as exc:
            # its text only: the exception itself, kept in this frame, would form a cycle with its traceback
            # (exception -> traceback -> this frame -> exception) that only the cyclic collector frees
            failure = str(exc)
        if ex.api_key == API_VERSIONS and what == "response" and ex.api_version:
            # a broker that does not speak the requested version answers with a v0 body (KIP-511)
            try:
                return self.bodies.decode(type_name, body, 0)
            except KafkaMetaError:
                pass
        try:
            decoded = self.bodies.decode_lenient(type_name, body, ex.api_version)
        except KafkaMetaError:
            ex.errors.append(f"{what}: {failure}")
            return {"_raw": bytes(body)}
        ex.errors.append(f"{what} read leniently: {failure}")
        return decoded

    def _protocol_of(self, conn: Hashable, group: Any) -> Protocol:
        if not isinstance(group, str):
            return None, None
        return self._protocols.get((conn, group)) or self._group_protocols.get(group) or (None, None)

    def _nest_request(self, conn: Hashable, ex: Exchange) -> None:
        if not self.nested or ex.request is None:
            return
        if ex.api_key == JOIN_GROUP:
            ex.errors += [f"request {e}" for e in nest.nest_join_request(ex.request)]
        elif ex.api_key == SYNC_GROUP:
            kind, name = self._protocol_of(conn, ex.request.get("groupId"))
            ex.errors += [f"request {e}" for e in nest.nest_sync_request(ex.request, kind, name)]

    def _nest_response(self, conn: Hashable, ex: Exchange) -> None:
        request, response = ex.request or {}, ex.response
        if response is None:
            return
        if ex.api_key == JOIN_GROUP:
            kind = response.get("protocolType") or request.get("protocolType")
            name = response.get("protocolName")
            group = request.get("groupId")
            if isinstance(group, str) and name and not response.get("errorCode"):
                self._protocols[(conn, group)] = self._group_protocols[group] = (kind, name)
            if self.nested:
                ex.errors += [f"response {e}" for e in nest.nest_join_response(response, kind)]
        elif ex.api_key == SYNC_GROUP and self.nested:
            known_kind, known_name = self._protocol_of(conn, request.get("groupId"))
            kind = request.get("protocolType") or known_kind
            name = request.get("protocolName") or known_name
            ex.errors += [f"response {e}" for e in nest.nest_sync_response(response, kind, name)]
        elif ex.api_key == DESCRIBE_GROUPS and self.nested:
            ex.errors += [f"response {e}" for e in nest.nest_describe_groups(response)]

    @staticmethod
    def _summarize(ex: Exchange) -> None:
        ex.group_id, ex.member_id, ex.generation_id, ex.error_code = group_facts(ex.api_key, ex.request, ex.response)
