"""Every api key Kafka defines: its name, the versions ever defined, and the first flexible version.

The header layouts follow from the first flexible version (KIP-482): a request at a flexible version has
header v2 (tagged fields after the client id), its response header v1. So this table is what lets a reader
of raw traffic find where a body starts for *any* api, including the ones whose bodies it cannot read.

``low`` is the oldest version Kafka ever defined (Kafka 4 removed several old versions, KIP-896, but old
clients still send them and captures still hold them); ``high`` the newest Kafka 4.4 defines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple


class Api(NamedTuple):
    key: int
    name: str
    low: int
    high: int
    first_flexible: int | None  # None: no flexible version

    def flexible(self, version: int) -> bool:
        return self.first_flexible is not None and version >= self.first_flexible


TABLE = Path(__file__).with_name("api_keys.json")


def _versions(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    return int(low), int(high or low)


def _first_flexible(text: str) -> int | None:
    return None if text == "none" else int(text.rstrip("+"))


def load_apis(path: Path = TABLE) -> dict[int, Api]:
    """The api table, kept as data beside this module in the spec dialect's words (``validVersions`` as
    ``"0-13"``, ``flexibleVersions`` as ``"9+"`` or ``"none"``): a new api or version is a line of data."""
    apis = {}
    for row in json.loads(path.read_text(encoding="utf-8")):
        low, high = _versions(row["validVersions"])
        api = Api(row["apiKey"], row["name"], low, high, _first_flexible(row["flexibleVersions"]))
        apis[api.key] = api
    return apis


APIS: dict[int, Api] = load_apis()

API_KEYS: dict[str, int] = {api.name: api.key for api in APIS.values()}

CONTROLLED_SHUTDOWN = 7
API_VERSIONS = 18


def api_name(key: int) -> str:
    """The api's name; ``Unknown(N)`` for a key Kafka does not define, so every exchange has a name."""
    api = APIS.get(key)
    return api.name if api is not None else f"Unknown({key})"


def request_header_version(key: int, version: int) -> int:
    """0: no client id (ControlledShutdown v0 only), 1: int16-length client id, 2: v1 plus tagged fields.

    An unknown api key is taken as non-flexible: the client id is still readable, which is what matters.
    """
    if key == CONTROLLED_SHUTDOWN and version == 0:
        return 0
    api = APIS.get(key)
    return 2 if api is not None and api.flexible(version) else 1


def response_header_version(key: int, version: int) -> int:
    """0: the correlation id alone, 1: plus tagged fields. ApiVersions responses always use v0, because a
    client reads one before it knows which versions the broker speaks (KIP-511)."""
    if key == API_VERSIONS:
        return 0
    api = APIS.get(key)
    return 1 if api is not None and api.flexible(version) else 0
