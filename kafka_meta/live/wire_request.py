"""A request whose body the project's codec wrote, sent over a kafka-python connection.

kafka-python has no classes for some of the requests a watch sends (ConsumerGroupDescribe among them), and for
the rest it would decode the answers its own way. Its connections only need a request to write its header and
body and to read the header of the answer, so this is one that does exactly that with the project's own header
rules (:mod:`kafka_meta.protocol.apis`) and hands the answer's body back as bytes, for
:mod:`kafka_meta.live.describe` to read. It leans on what kafka-python 3.0 asks of a request
(``with_header``, ``encode``, ``header.get_response_class``, ``parse_header``/``decode``), tested against a
real broker by ``tests/test_lab_watch.py``.
"""

from __future__ import annotations

import struct
from typing import Any

from kafka_meta.protocol.apis import api_name, response_header_version
from kafka_meta.protocol.headers import read_response_header, request_header_bytes


class CodecRequest:
    """One request: api key, version and the body's bytes."""

    def __init__(self, api_key: int, version: int, body: bytes) -> None:
        self.API_KEY = api_key
        self.API_VERSION = version
        self.body = body
        self._header: _Header | None = None

    def expect_response(self) -> bool:
        return True

    @property
    def header(self) -> _Header | None:
        return self._header

    def with_header(self, correlation_id: int = 0, client_id: str = "kafka-meta") -> None:
        self._header = _Header(self.API_KEY, self.API_VERSION, correlation_id, client_id)

    def encode(self, version: int | None = None, header: bool = False, framed: bool = False) -> bytes:
        out = (self._header.encode() if header and self._header is not None else b"") + self.body
        return struct.pack(">i", len(out)) + out if framed else out

    def __repr__(self) -> str:
        return f"{api_name(self.API_KEY)}Request v{self.API_VERSION} ({len(self.body)} bytes)"


class _Header:
    def __init__(self, api_key: int, version: int, correlation_id: int, client_id: str) -> None:
        self.request_api_key = self.api_key = api_key
        self.request_api_version = self.api_version = version
        self.correlation_id = correlation_id
        self.client_id = client_id

    def encode(self) -> bytes:
        return request_header_bytes(self.api_key, self.api_version, self.correlation_id, self.client_id)

    def get_response_class(self) -> _Answer:
        return _Answer(response_header_version(self.api_key, self.api_version))


class CodecResponse:
    """An answer's body, unread."""

    throttle_time_ms = 0  # the body says it; kafka-python only uses it to slow down, which a watch need not

    def __init__(self, correlation_id: int, body: bytes) -> None:
        self.correlation_id = correlation_id
        self.body = body

    def __repr__(self) -> str:
        return f"response {self.correlation_id} ({len(self.body)} bytes)"


class _Answer:
    """What kafka-python asks of a response class: read the header, then the body, from one frame."""

    def __init__(self, header_version: int) -> None:
        self.header_version = header_version
        self.response: CodecResponse | None = None

    def parse_header(self, buffer: Any) -> CodecResponse:
        frame = buffer.read()
        header = read_response_header(frame, self.header_version)
        self.response = CodecResponse(header.correlation_id, bytes(frame[header.body_offset:]))
        return self.response

    def decode(self, buffer: Any) -> CodecResponse:
        assert self.response is not None
        return self.response
