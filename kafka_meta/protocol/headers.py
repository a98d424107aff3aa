"""Request and response headers of Kafka's binary protocol, read from a frame without its size prefix, and the
request header written (the one a live connection sends).

Hand-read rather than through a spec: a header is a handful of fixed fields read for every frame of a
capture, and its layout depends on the *api* (see :mod:`kafka_meta.protocol.apis`), not on a version of
its own. Request header v0: apiKey int16, apiVersion int16, correlationId int32; v1 adds the client id
(int16-length string, -1 for null, never compact); v2 adds a tagged-field section. Response header v0:
correlationId int32; v1 adds a tagged-field section.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from kafka_meta.errors import DecodeError
from kafka_meta.protocol.apis import APIS, request_header_version
from kafka_meta.protocol.produce import PRODUCE, plausible_produce
from kafka_meta.wire.runtime import Fault, uvarint

MAX_CLIENT_ID = 1024  # librdkafka, the Java client and kafka-python all use short ids; more means noise
_FIXED = struct.Struct(">hhih")  # apiKey, apiVersion, correlationId, clientId length: header v1 and v2
FUTURE_VERSIONS = 2  # versions this far above the newest known still count as Kafka (newer clients)


class ProtocolError(DecodeError):
    """A header (or frame) that cannot be read; carries the byte offset within the frame."""


@dataclass(frozen=True, slots=True)
class RequestHeader:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    header_version: int
    body_offset: int  # where the body starts within the frame


@dataclass(frozen=True, slots=True)
class ResponseHeader:
    correlation_id: int
    header_version: int
    body_offset: int


def _int16(frame: bytes, at: int, what: str, kind: str) -> int:
    if at + 2 > len(frame):
        raise ProtocolError(f"{what} needs 2 bytes, {len(frame) - at} left", type_name=kind, offset=at)
    return int.from_bytes(frame[at:at + 2], "big", signed=True)


def _int32(frame: bytes, at: int, what: str, kind: str) -> int:
    if at + 4 > len(frame):
        raise ProtocolError(f"{what} needs 4 bytes, {len(frame) - at} left", type_name=kind, offset=at)
    return int.from_bytes(frame[at:at + 4], "big", signed=True)


def _uvarint(frame: bytes, at: int, what: str, kind: str) -> tuple[int, int]:
    """A header's varint, by the wire layer's reader, its faults as this module's errors."""
    try:
        return uvarint(frame, at)
    except IndexError:
        raise ProtocolError(f"{what}: varint runs past the end", type_name=kind, offset=at) from None
    except Fault as e:
        raise ProtocolError(f"{what}: {e.reason}", type_name=kind, offset=at) from None


def skip_tagged_fields(frame: bytes, at: int, kind: str) -> int:
    """Skip a tagged-field section (count, then tag + size + payload each); returns the offset after it.
    Header tagged fields carry nothing kafka_meta reports, so they are checked for fit, not kept."""
    count, at = _uvarint(frame, at, "tagged field count", kind)
    for _ in range(count):
        _, at = _uvarint(frame, at, "tag", kind)
        size, at = _uvarint(frame, at, "tagged field size", kind)
        if at + size > len(frame):
            raise ProtocolError(f"tagged field of {size} bytes, {len(frame) - at} left", type_name=kind, offset=at)
        at += size
    return at


def read_request_header(frame: bytes) -> RequestHeader:
    """Read the request header at the start of ``frame``; raises :class:`ProtocolError` on damage."""
    if len(frame) >= 10:
        # the common case, once per request of a capture: the fixed fields in one unpack, a sound client id
        api_key, api_version, correlation_id, size = _FIXED.unpack_from(frame)
        header_version = request_header_version(api_key, api_version)
        if header_version and 0 <= size <= len(frame) - 10:
            try:
                client_id = frame[10:10 + size].decode()
            except UnicodeDecodeError:
                pass  # reported with its offset below
            else:
                at = 10 + size
                if header_version == 2:  # no tagged fields, nearly always: one zero byte
                    at = at + 1 if at < len(frame) and not frame[at] else skip_tagged_fields(frame, at, "RequestHeader")
                return RequestHeader(api_key, api_version, correlation_id, client_id, header_version, at)
    kind = "RequestHeader"
    api_key = _int16(frame, 0, "apiKey", kind)
    api_version = _int16(frame, 2, "apiVersion", kind)
    correlation_id = _int32(frame, 4, "correlationId", kind)
    header_version = request_header_version(api_key, api_version)
    at = 8
    client_id: str | None = None
    if header_version >= 1:
        size = _int16(frame, at, "clientId length", kind)
        at += 2
        if size >= 0:
            if at + size > len(frame):
                raise ProtocolError(f"clientId of {size} bytes, {len(frame) - at} left", type_name=kind,
                                    offset=at - 2)
            try:
                client_id = frame[at:at + size].decode()
            except UnicodeDecodeError as exc:
                raise ProtocolError(f"clientId is not UTF-8 ({exc.reason})", type_name=kind, offset=at) from None
            at += size
        elif size != -1:
            raise ProtocolError(f"clientId length {size}", type_name=kind, offset=at - 2)
    if header_version >= 2:
        at = skip_tagged_fields(frame, at, kind)
    return RequestHeader(api_key, api_version, correlation_id, client_id, header_version, at)


def request_header_bytes(api_key: int, api_version: int, correlation_id: int, client_id: str | None) -> bytes:
    """The request header Kafka's clients write for this api and version (:func:`read_request_header` reads it
    back): v0 without the client id, v1 with it (-1 for none), v2 with an empty tagged-field section."""
    header_version = request_header_version(api_key, api_version)
    out = struct.pack(">hhi", api_key, api_version, correlation_id)
    if header_version >= 1:
        client = None if client_id is None else client_id.encode()
        out += struct.pack(">h", -1 if client is None else len(client)) + (client or b"")
    return out + b"\x00" if header_version >= 2 else out


def read_response_header(frame: bytes, header_version: int) -> ResponseHeader:
    """Read a response header of the given version (from the request's api; see ``response_header_version``)."""
    if len(frame) >= 5 and (header_version == 0 or not frame[4]):  # the common case: no tagged fields
        return ResponseHeader(int.from_bytes(frame[:4], "big", signed=True), header_version, 4 + header_version)
    kind = "ResponseHeader"
    correlation_id = _int32(frame, 0, "correlationId", kind)
    at = skip_tagged_fields(frame, 4, kind) if header_version >= 1 else 4
    return ResponseHeader(correlation_id, header_version, at)


def peek_correlation_id(frame: bytes) -> int | None:
    """The first int32 of a response frame, or None when the frame is shorter."""
    return int.from_bytes(frame[:4], "big", signed=True) if len(frame) >= 4 else None


def looks_like_request(frame: bytes, size: int | None = None) -> bool:
    """Cheap plausibility check: could ``frame`` (without its size prefix) be a Kafka request?

    A known api key, a version between its lowest and a little above its newest, a non-negative
    correlation id and a client id (when the header has one) that fits the frame, is short and holds no
    control bytes; for Produce (api key 0, which the start of many responses mimics) a plausible start of
    its body. Used to find Kafka on any port and to find the next frame after damage. ``size``: the
    frame's whole size when ``frame`` holds only its first bytes (still arriving); a Produce body's fields
    that have not arrived then count as plausible.
    """
    if len(frame) < 8:
        return False
    api = APIS.get(int.from_bytes(frame[0:2], "big", signed=True))
    if api is None:
        return False
    version = int.from_bytes(frame[2:4], "big", signed=True)
    if not api.low <= version <= api.high + FUTURE_VERSIONS:
        return False
    if frame[4] & 0x80:  # negative correlation id
        return False
    if request_header_version(api.key, version) == 0:
        return True
    complete = size is None or size <= len(frame)
    whole = len(frame) if size is None else max(size, len(frame))
    if len(frame) < 10:
        return not complete and whole >= 10
    client_id = int.from_bytes(frame[8:10], "big", signed=True)
    if client_id < -1 or client_id > min(MAX_CLIENT_ID, whole - 10):
        return False
    if client_id > 0 and min(frame[10:10 + client_id], default=0x20) < 0x20:
        return False  # client ids are short text: no control bytes
    if api.key != PRODUCE:
        return True
    # a response whose correlation id is small reads as Produce at a small version: check its body
    try:
        header = read_request_header(frame)
    except ProtocolError:
        return not complete  # a header still arriving
    return plausible_produce(frame[header.body_offset:], version, complete)
