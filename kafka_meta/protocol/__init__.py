"""Kafka's binary protocol, sans-IO: request/response headers, the api table, body decoding through our
specs (``schemas/protocol``), member metadata nested in JoinGroup/SyncGroup, and the :class:`Correlator`
that turns frames into :class:`Exchange` records, whose dict form (:class:`ExchangeRow`) every reader hands to
the analysis. Shared by the capture reader and any live tap."""

from kafka_meta.protocol.apis import APIS, Api, api_name, request_header_version, response_header_version
from kafka_meta.protocol.bodies import BODIES, BodyReader
from kafka_meta.protocol.correlator import Correlator
from kafka_meta.protocol.exchange import Connection, Exchange
from kafka_meta.protocol.headers import (
    ProtocolError,
    RequestHeader,
    ResponseHeader,
    looks_like_request,
    read_request_header,
    read_response_header,
    request_header_bytes,
)
from kafka_meta.protocol.member_metadata import decode_member_metadata
from kafka_meta.protocol.shapes import ExchangeRow, ExchangeSource

__all__ = [
    "APIS",
    "BODIES",
    "Api",
    "BodyReader",
    "Connection",
    "Correlator",
    "Exchange",
    "ExchangeRow",
    "ExchangeSource",
    "ProtocolError",
    "RequestHeader",
    "ResponseHeader",
    "api_name",
    "decode_member_metadata",
    "looks_like_request",
    "read_request_header",
    "read_response_header",
    "request_header_bytes",
    "request_header_version",
    "response_header_version",
]
