"""Record a scenario: a fresh broker (or a running one), tshark on its port, the scenario's Java program, then
the capture, a copy of the broker's log directory and truth.jsonl in OUTDIR.

OUTDIR/
  capture.pcapng          the loopback traffic to and from the broker's port
  kafka-logs/             __consumer_offsets-*, __cluster_metadata-0 and the other internal topics' segments
                          (and those of the scenario's kept_topics, labkit.scenarios)
  truth.jsonl             what the Java side observed (lab/src/main/java/kafkameta/lab/truth/Truth.java)
  scenario.log            the scenario's standard output and error (the clients' logs)
  recording.json          what was recorded, when, with which versions, and how it ended
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from labkit import broker as brokers
from labkit import build
from labkit.capture import Capture
from labkit.scenarios import SCENARIOS

LAB = Path(__file__).resolve().parents[1]
SCENARIO_TIMEOUT_S = 900
# what of the broker's log directory a recording keeps: the internal topics' segments, not their indexes
KEPT_TOPICS = re.compile(r"^(__consumer_offsets|__cluster_metadata|__transaction_state|__share_group_state)-\d+$")


class RecordError(RuntimeError):
    """The scenario failed or its recording is incomplete; the message says where to look."""


def pinned_versions() -> dict[str, str]:
    pom = (LAB / "pom.xml").read_text()
    return dict(re.findall(r"<(kafka\.version|streams\.legacy\.version)>([^<]+)<", pom))


def record(scenario_name: str, outdir: str | Path, *, broker_dir: str | Path | None = None) -> Path:
    """Run one scenario and leave its recording in `outdir`; with `broker_dir`, use that running broker."""
    if scenario_name not in SCENARIOS:
        raise RecordError(f"unknown scenario {scenario_name!r}; known: {', '.join(sorted(SCENARIOS))}")
    scenario = SCENARIOS[scenario_name]
    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    for stale in ("capture.pcapng", "truth.jsonl", "scenario.log", "recording.json"):
        (outdir / stale).unlink(missing_ok=True)
    shutil.rmtree(outdir / "kafka-logs", ignore_errors=True)
    build.ensure_built()

    own_broker = broker_dir is None
    scratch = Path(tempfile.mkdtemp(prefix=f"lab-{scenario_name}-")) if own_broker else None
    if own_broker:
        broker = brokers.start(scratch / "broker", owner_pid=os.getpid())
    else:
        broker = brokers.running(broker_dir)
        if broker is None:
            raise RecordError(f"no broker is running from {broker_dir}")
    started = time.time()
    capture = Capture.start(outdir / "capture.pcapng", broker.port)
    try:
        outcome = _run_scenario(scenario.main_class, broker.bootstrap, outdir)
    finally:
        # an own broker stops first, so every connection of the recording ends in the capture
        try:
            if own_broker:
                brokers.stop(broker.directory)
        finally:
            capture.stop()
    copied = copy_log_dir(broker.log_dir, outdir / "kafka-logs", scenario.kept_topics)
    if own_broker and outcome == 0:
        shutil.rmtree(scratch, ignore_errors=True)
    summary = {
        "scenario": scenario_name,
        "about": scenario.about,
        "versions": pinned_versions(),
        "started": started,
        "seconds": round(time.time() - started, 1),
        "broker_port": broker.port,
        "exit": outcome,
        "segments": copied,
        "rerecord": f"lab/record {scenario_name} fixtures/lab/{scenario_name}",
    }
    (outdir / "recording.json").write_text(json.dumps(summary, indent=1) + "\n")
    if outcome != 0:
        kept = f"; the broker's files are kept in {scratch}" if own_broker else ""
        raise RecordError(f"scenario {scenario_name} failed (exit {outcome}); see {outdir / 'scenario.log'}{kept}")
    return outdir


def play(scenario_name: str, outdir: str | Path, *, broker_dir: str | Path) -> Path:
    """Run one scenario against the running broker of `broker_dir`, keeping only truth.jsonl and scenario.log
    in `outdir`: no capture and no copy of the broker's logs, for a test that watches the broker meanwhile."""
    if scenario_name not in SCENARIOS:
        raise RecordError(f"unknown scenario {scenario_name!r}; known: {', '.join(sorted(SCENARIOS))}")
    broker = brokers.running(broker_dir)
    if broker is None:
        raise RecordError(f"no broker is running from {broker_dir}")
    outdir = Path(outdir).resolve()
    outdir.mkdir(parents=True, exist_ok=True)
    build.ensure_built()
    outcome = _run_scenario(SCENARIOS[scenario_name].main_class, broker.bootstrap, outdir)
    if outcome != 0:
        raise RecordError(f"scenario {scenario_name} failed (exit {outcome}); see {outdir / 'scenario.log'}")
    return outdir


def _run_scenario(main_class: str, bootstrap: str, outdir: Path) -> int:
    command = [
        build.java(), "-Xmx512m", "-XX:+UseSerialGC",
        f"-Dlab.bootstrap={bootstrap}",
        f"-Dlab.truth={outdir / 'truth.jsonl'}",
        f"-Dlab.classpath.legacy={build.classpath('streams-legacy')}",
        f"-Dlab.classpath.current={build.classpath('kafka')}",
        f"-Dlog4j2.configurationFile={build.log4j_config('log4j2-clients.properties')}",
        "-cp", build.classpath("kafka"), main_class,
    ]
    with open(outdir / "scenario.log", "wb") as log:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            return process.wait(SCENARIO_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            return -9
        except BaseException:
            _kill_group(process)
            raise


def _kill_group(process: subprocess.Popen) -> None:
    """The scenario and every JVM it started (they share its process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def copy_log_dir(source: Path, target: Path, topics: tuple[str, ...] = ()) -> list[str]:
    """Copy the internal topics' .log segments and those of `topics` (not their indexes: they are rebuilt, and
    sparse)."""
    copied = []
    for partition in sorted(source.iterdir()):
        kept = KEPT_TOPICS.match(partition.name) or partition.name.rsplit("-", 1)[0] in topics
        if not (partition.is_dir() and kept):
            continue
        for segment in sorted(partition.glob("*.log")):
            destination = target / partition.name / segment.name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(segment, destination)
            copied.append(f"{partition.name}/{segment.name}")
    return copied


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="lab/record", description="Record a lab scenario (see docs/lab.md).")
    parser.add_argument("scenario", metavar="SCENARIO", choices=sorted(SCENARIOS), help=", ".join(sorted(SCENARIOS)))
    parser.add_argument("outdir", metavar="OUTDIR")
    parser.add_argument("--broker", metavar="DIR", help="use the broker already running from DIR (lab/broker start)")
    args = parser.parse_args(argv)
    try:
        out = record(args.scenario, args.outdir, broker_dir=args.broker)
    except (RecordError, brokers.BrokerError, build.BuildError) as error:
        print(f"lab/record: {error}", file=sys.stderr)
        return 1
    print(out)
    return 0
