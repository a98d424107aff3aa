"""A member as a person reads it: its client id and the tail of its member id (``aio-upgrade-0 · ac005f80``),
the one name the charts' lanes and the findings' sentences both give it; the full id stays in the JSON."""

from __future__ import annotations

TAIL = 8  # characters of the member id kept beside the client id: enough to tell two instances apart


def member_label(member_id: str | None, client_id: str | None) -> str:
    """The client id and the member id's tail; the member id alone when it already holds the client id (a
    classic member id is the client id and a UUID), else whichever of the two there is."""
    if client_id and member_id and client_id not in member_id:
        return f"{client_id} · {member_id[-TAIL:]}"
    return member_id or client_id or "?"


def host_of(client: str | None) -> str:
    """The host of a client's address as a capture ("ip:port") or the log ("/ip") gives it: no port, since a
    restarted client keeps its host, not its port."""
    host = (client or "").lstrip("/")
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host
