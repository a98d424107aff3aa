"""The Java peer: Kafka's own code in one JVM, asked over JSON Lines (lab/src/main/java/kafkameta/lab/peer).

Requests are written as a stream and answers read back in order, so thousands of cases cost one round trip
each way in bulk, not a process each. The peer runs from the lab's Maven build (lab/kafka/target), found
beside the package (a source checkout) or where ``KAFKA_META_LAB`` points; it is built first when needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAIN_CLASS = "kafkameta.lab.peer.Peer"
HEAP = "-Xmx1g"


class PeerError(RuntimeError):
    """The peer could not be started, or it stopped answering: the message says why and where to look."""


@dataclass(frozen=True)
class Answer:
    """Kafka's answer to one request: its result, or the exception Kafka's code threw (a refusal)."""

    ok: bool
    result: Any = None
    error: str | None = None


def lab_directory() -> Path:
    """The lab: ``KAFKA_META_LAB``, else lab/ beside the package of a source checkout."""
    configured = os.environ.get("KAFKA_META_LAB")
    lab = Path(configured) if configured else Path(__file__).resolve().parents[3] / "lab"
    if not (lab / "pom.xml").exists():
        raise PeerError(f"no lab at {lab}: the peer runs Kafka's jars from the lab's Maven project "
                        "(set KAFKA_META_LAB to a checkout's lab/ directory)")
    return lab


def peer_command(lab: Path) -> list[str]:
    """Build the lab if it changed, and the java command that starts the peer on Kafka 4.4's classpath."""
    sys.path.insert(0, str(lab))
    try:
        from labkit import build  # the lab's own build helper (standard library only)
    finally:
        sys.path.remove(str(lab))
    try:
        build.ensure_built()
    except build.BuildError as e:
        raise PeerError(str(e)) from e
    return [build.java(), HEAP, "-XX:+UseParallelGC", "-cp", build.classpath("kafka"), MAIN_CLASS]


class Peer:
    """One running peer; use as a context manager so the JVM always ends."""

    def __init__(self, command: list[str] | None = None) -> None:
        command = command or peer_command(lab_directory())
        # the JVM's standard error goes to a file, never a pipe nobody reads: a chatty JVM would fill the pipe
        # and stall; its end is quoted when the peer stops answering
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._stderr, text=True, encoding="utf-8", bufsize=1 << 16)
        self._next = 0
        pong = self.call("ping")
        if not pong.ok:
            raise PeerError(f"the peer does not answer: {pong.error}")
        self.kafka_version: str = pong.result["kafka"]

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()  # type: ignore[union-attr]
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr.close()

    def _stderr_tail(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read()[-2000:]

    def call(self, op: str, **arguments: Any) -> Answer:
        return next(iter(self.many([{"op": op, **arguments}])))

    def many(self, requests: Iterable[Mapping[str, Any]]) -> Iterator[Answer]:
        """Answers to the requests, in their order; written by a thread while answers are read, so neither
        side's pipe fills up and stalls the other."""
        batch = [dict(r) for r in requests]
        first = self._next
        self._next += len(batch)

        def send() -> None:
            stdin = self.process.stdin
            assert stdin is not None
            for n, request in enumerate(batch):
                stdin.write(json.dumps({**request, "id": first + n}, separators=(",", ":")) + "\n")
            stdin.flush()

        writer = threading.Thread(target=send, daemon=True)
        writer.start()
        stdout = self.process.stdout
        assert stdout is not None
        for n in range(len(batch)):
            line = stdout.readline()
            if not line:
                writer.join(5)
                raise PeerError(f"the peer stopped answering ({self.process.poll()}): {self._stderr_tail()}")
            answer = json.loads(line)
            if answer.get("id") != first + n:
                raise PeerError(f"answer out of order: expected {first + n}, got {answer.get('id')}")
            yield Answer(bool(answer.get("ok")), answer.get("result"), answer.get("error"))
        writer.join()
