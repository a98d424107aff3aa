"""Broker addresses as Kafka's clients take them: ``bootstrap.servers``, ``host:port[,host:port...]``.

One reading for every face that connects (the watch, the ApiVersions reachability check and login probe, Spark's
Kafka source), so a form one of them takes is never one another refuses.
"""

from __future__ import annotations

from kafka_meta.errors import InputError


def bootstrap_servers(bootstrap: str, option: str = "bootstrap server") -> list[tuple[str, int]]:
    """``host:port[,host:port...]`` as (host, port) pairs, an IPv6 host in brackets (``[::1]:9092``) without
    them; :class:`InputError` naming ``option`` for a form that is none (a missing port, a port out of range):
    the command line's mistake."""
    found = []
    for item in (s.strip() for s in bootstrap.split(",")):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise InputError(f"{option} {item!r}: expected HOST:PORT[,HOST:PORT...]")
        found.append((host.strip("[]"), int(port)))
    return found
