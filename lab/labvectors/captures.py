"""Vectors from a recording's capture: the request and response bodies of every api kafka_meta has specs for
(the group apis, and the ApiVersions and Metadata exchanges around them), and the member metadata inside
JoinGroup and SyncGroup requests (consumer-protocol subscriptions and assignments, their assignors' user
data, Kafka Streams' SubscriptionInfo and AssignmentInfo).

The bytes are cut from the frames themselves: the capture's connections give the frames, each request's
header says where its body starts and how its response's header reads. Who wrote them: the broker wrote the
responses; a request was written by the client whose connection's ApiVersions request (v3 and later, KIP-511)
named its software and version.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kafka_meta as km
from kafka_meta.capture.connections import KafkaConnections, KafkaFrame
from kafka_meta.capture.containers import ContainerReader
from kafka_meta.capture.events import Packet
from kafka_meta.protocol import APIS, Connection, read_request_header, read_response_header
from kafka_meta.protocol.apis import API_VERSIONS, response_header_version
from kafka_meta.protocol.member_metadata import ASSIGNMENT, SUBSCRIPTION, USER_DATA_TYPES
from labvectors.candidate import Candidate, Unreadable, shape, writer_of

CONSUMER = "consumer"
FAMILIES = {SUBSCRIPTION: "consumer-protocol", ASSIGNMENT: "consumer-protocol", "SubscriptionInfo":
            "streams-subscription", "AssignmentInfo": "streams-assignment",
            "CooperativeStickyAssignorUserData": "sticky-userdata", "StickyAssignorUserData": "sticky-userdata"}


@dataclass(frozen=True)
class Body:
    """One request or response body, with the frame that carried it."""

    conn: Connection
    request: bool
    api_key: int
    version: int
    data: bytes
    packet: int
    client_id: str | None
    correlation_id: int


def frames(capture: Path) -> Iterator[KafkaFrame]:
    """The whole Kafka frames of a capture, in the order its connections release them; what is not a whole
    frame (the capture stopped inside one) is the capture reader's to report, and gives no vector."""
    reader, connections = ContainerReader(), KafkaConnections()
    for item in reader.feed(capture.read_bytes()) + reader.close():
        if isinstance(item, Packet):
            yield from (f for f in connections.packet(item) if isinstance(f, KafkaFrame))
    yield from (f for f in connections.finish() if isinstance(f, KafkaFrame))


def bodies(capture: Path) -> Iterator[Body]:
    """Every body of a capture whose request was seen, requests and responses in capture order."""
    asked: dict[tuple[Connection, int], Any] = {}
    for conn, is_request, frame in frames(capture):
        payload = frame.payload
        if is_request:
            header = read_request_header(payload)
            asked[(conn, header.correlation_id)] = header
            yield Body(conn, True, header.api_key, header.api_version, payload[header.body_offset:], frame.packet,
                       header.client_id, header.correlation_id)
            continue
        header = asked.pop((conn, int.from_bytes(payload[:4], "big", signed=True)), None)
        if header is None:
            continue
        answer = read_response_header(payload, response_header_version(header.api_key, header.api_version))
        yield Body(conn, False, header.api_key, header.api_version, payload[answer.body_offset:], frame.packet,
                   header.client_id, header.correlation_id)


class CaptureVectors:
    """The vectors of one capture; ``broker`` names the broker as a writer (its software is not on the wire)."""

    def __init__(self, scenario: str, broker: str) -> None:
        self.scenario = scenario
        self.broker = broker
        self.software: dict[Connection, tuple[str, str]] = {}  # from each connection's ApiVersions request
        self.protocols: dict[str, tuple[str | None, str | None]] = {}  # group -> (protocol type, name) chosen
        self.joins: dict[tuple[Connection, int], tuple[str, str]] = {}  # JoinGroup requests: (group, type)

    def source(self, body: Body) -> str:
        writer = writer_of(self.software.get(body.conn), body.client_id) if body.request else self.broker
        return f"{writer} (lab recording: {self.scenario})"

    def read(self, capture: Path) -> Iterator[Candidate]:
        types = set(km.types())
        for body in bodies(capture):
            api = APIS.get(body.api_key)
            name = f"{api.name}{'Request' if body.request else 'Response'}" if api is not None else None
            if name not in types:
                continue
            message = self.decode(name, body.data, f"capture.pcapng frame {body.packet}", body.version)
            fields = message.to_json_dict(every_field=True)
            if body.api_key == API_VERSIONS and body.request and fields.get("clientSoftwareName"):
                self.software[body.conn] = (fields["clientSoftwareName"], fields["clientSoftwareVersion"])
            source = self.source(body)
            where = f"capture.pcapng frame {body.packet}"
            yield Candidate("protocol", name, body.version, body.data,
                            f"A {name} v{body.version} body as {source.split(' (')[0]} wrote it ({self.scenario} "
                            f"recording, {where}). Case: {self.scenario} {name} v{body.version}", source,
                            shape=shape(name, fields))
            yield from self.member_metadata(name, message, body, source, where)

    def decode(self, type_name: str, data: bytes, where: str, version: int | None = None) -> Any:
        try:
            return km.decode(type_name, data, version=version)
        except km.DecodeError as e:
            raise Unreadable(f"{self.scenario} recording, {where}: {e}") from None

    def member_metadata(self, name: str, message: Any, body: Body, source: str, where: str) -> Iterator[Candidate]:
        """Subscriptions a member offers when it joins, assignments its leader hands out; the protocol each
        group chose is remembered from the JoinGroup response for SyncGroups before v5, which do not name it."""
        if name == "JoinGroupRequest":
            self.joins[(body.conn, body.correlation_id)] = (message.group_id, message.protocol_type)
            if message.protocol_type == CONSUMER:
                for offered in message.protocols:
                    yield from self.nested(SUBSCRIPTION, offered.metadata, offered.name, name, source, where)
        elif name == "JoinGroupResponse":
            joined = self.joins.pop((body.conn, body.correlation_id), None)
            if joined is not None and message.error_code == 0:
                self.protocols[joined[0]] = (joined[1], message.protocol_name)
        elif name == "SyncGroupRequest":
            kind, protocol = self.protocols.get(message.group_id, (None, None))
            kind = getattr(message, "protocol_type", None) or kind
            protocol = getattr(message, "protocol_name", None) or protocol
            if kind in (CONSUMER, None):
                for given in message.assignments:
                    if given.assignment:
                        yield from self.nested(ASSIGNMENT, given.assignment, protocol, name, source, where)

    def nested(self, type_name: str, data: bytes, protocol: str | None, inside: str, source: str, where: str
               ) -> Iterator[Candidate]:
        """A subscription or assignment, and its user data when the assignor's layout is known."""
        member = self.decode(type_name, data, where)
        assignor = f" ({protocol})" if protocol else ""
        yield Candidate(FAMILIES[type_name], type_name, member.version, data,
                        f"A {type_name} v{member.version}{assignor} inside a {inside} body ({self.scenario} "
                        f"recording, {where}). Case: {self.scenario} {protocol or ''} {type_name} v{member.version}",
                        source, shape=(protocol or "", *shape(type_name, member.to_json_dict(every_field=True))))
        user_data = member.user_data
        user_type = USER_DATA_TYPES.get(protocol or "", (None, None))[type_name == ASSIGNMENT]
        if user_type is None or not user_data:
            return
        decoded = self.decode(user_type, user_data, where)
        version = getattr(decoded, "version", None)
        yield Candidate(FAMILIES[user_type], user_type, version, user_data,
                        f"The {protocol} user data of a {type_name} v{member.version} inside a {inside} body "
                        f"({self.scenario} recording, {where}). Case: {self.scenario} {user_type} v{version}", source,
                        shape=shape(user_type, decoded.to_json_dict(every_field=True)))
