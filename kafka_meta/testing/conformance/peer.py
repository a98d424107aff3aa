"""The Java peer: Kafka's own code in one JVM, asked over JSON Lines (lab/src/main/java/kafkameta/lab/peer).

Requests are written as a stream and answers read back in order, so thousands of cases cost one round trip
each way in bulk, not a process each, and the project's side of a batch runs while Kafka's code works on it. The
peer runs from the lab's Maven build (lab/kafka/target), found beside the package (a source checkout) or where
``KAFKA_META_LAB`` points; it is built first when needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
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
    timeout: bool = False  # Kafka's code had not returned by the request's deadlineMs (the peer stopped it)


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
    # every exception keeps its stack, however often it is thrown (HotSpot drops it from a hot site's implicit
    # exceptions otherwise): where Kafka's code threw is compared with where the project says it would
    return [build.java(), HEAP, "-XX:+UseParallelGC", "-XX:-OmitStackTraceInFastThrow", "-cp",
            build.classpath("kafka"), MAIN_CLASS]


class Peer:
    """One running peer; use as a context manager so the JVM always ends.

    Two threads of its own keep both pipes moving: one writes the batches submitted, in order, and one reads every
    answer line as it comes. So the caller can hand the peer a batch (:meth:`submit`), work on its own side of the
    cases while Kafka's code works on the batch, and only then collect the answers, without either side's pipe
    filling up and stalling the other.
    """

    def __init__(self, command: list[str] | None = None) -> None:
        command = command or peer_command(lab_directory())
        # the JVM's standard error goes to a file, never a pipe nobody reads: a chatty JVM would fill the pipe
        # and stall; its end is quoted when the peer stops answering
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self._stderr, text=True, encoding="utf-8", bufsize=1 << 16)
        self._next = 0
        self._collected = 0  # answers handed out so far: a batch is collected only after those before it
        self._outbox: queue.Queue[list[str] | None] = queue.Queue()
        self._inbox: queue.Queue[str | None] = queue.Queue()
        self._writer = threading.Thread(target=self._write, name="peer-writer", daemon=True)
        self._reader = threading.Thread(target=self._read, name="peer-reader", daemon=True)
        self._writer.start()
        self._reader.start()
        pong = self.call("ping")
        if not pong.ok:
            raise PeerError(f"the peer does not answer: {pong.error}")
        self.kafka_version: str = pong.result["kafka"]

    def __enter__(self) -> Peer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._outbox.put(None)  # the writer closes the JVM's input once everything before is written
        self._writer.join(30)
        if self.process.poll() is None:
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stderr.close()

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            while (lines := self._outbox.get()) is not None:
                stdin.write("".join(lines))
                stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the JVM is gone: the reader says so
        finally:
            with contextlib.suppress(BrokenPipeError, OSError):
                stdin.close()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for line in stdout:
            self._inbox.put(line)
        self._inbox.put(None)

    def _stderr_tail(self) -> str:
        self._stderr.flush()
        self._stderr.seek(0)
        return self._stderr.read()[-2000:]

    def call(self, op: str, **arguments: Any) -> Answer:
        return next(iter(self.many([{"op": op, **arguments}])))

    def submit(self, requests: Iterable[Mapping[str, Any]]) -> Pending:
        """Send the requests now; their answers are collected, in order, through the returned :class:`Pending`
        (batches are collected in the order they were submitted)."""
        first = self._next
        lines = [json.dumps({**request, "id": first + n}, separators=(",", ":")) + "\n"
                 for n, request in enumerate(requests)]
        self._next += len(lines)
        self._outbox.put(lines)
        return Pending(self, first, len(lines))

    def many(self, requests: Iterable[Mapping[str, Any]]) -> Iterator[Answer]:
        """Answers to the requests, in their order."""
        return iter(self.submit(requests).answers())

    def _answer(self, expected: int) -> Answer:
        if self._collected != expected:
            raise PeerError(f"answers collected out of turn: {expected} while {self._collected} is next")
        line = self._inbox.get()
        if line is None:
            self._inbox.put(None)  # every later collection fails the same way
            raise PeerError(f"the peer stopped answering ({self.process.poll()}): {self._stderr_tail()}")
        answer = json.loads(line)
        if answer.get("id") != expected:
            raise PeerError(f"answer out of order: expected {expected}, got {answer.get('id')}")
        self._collected += 1
        return Answer(bool(answer.get("ok")), answer.get("result"), answer.get("error"),
                      bool(answer.get("timeout")))


class Pending:
    """The answers of one submitted batch, still to be collected."""

    def __init__(self, peer: Peer, first: int, count: int) -> None:
        self.peer = peer
        self.first = first
        self.count = count

    def answers(self) -> list[Answer]:
        return [self.peer._answer(self.first + n) for n in range(self.count)]
