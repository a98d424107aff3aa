"""One exit-status policy for every verb (README.md, "Exit status"): 0 when everything given was read (and a
check passed), 1 when some input or payload could not be read (the rest read and reported) or a check failed,
2 when the command line is wrong. Each verb is run as a user runs it, through ``kafka_meta.cli.main.main``, on
the fixtures and on files made here; ``analyze`` and ``stream`` are refused before Spark starts wherever the
command line or the cluster's address decides, and the verbs that connect give up on an address where no
Kafka answers within ``--connect-timeout``.
"""

from __future__ import annotations

import io
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kafka_meta.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
SAMPLE = FIXTURES / "offsets" / "sample.jsonl"  # __consumer_offsets records, all of them readable
DAMAGED_SAMPLE = FIXTURES / "captures" / "capture.jsonl"  # records and payloads; three payloads do not decode
STORM = FIXTURES / "captures" / "pcap" / "cfk_storm.pcap"
LAB_STORM = FIXTURES / "lab" / "storm" / "capture.pcapng"  # a whole capture, nothing damaged
PARTITION = FIXTURES / "log" / "kafka-logs" / "__consumer_offsets-1"  # a partition without damage
DAMAGED_PARTITION = FIXTURES / "log" / "kafka-logs" / "__consumer_offsets-3"  # a batch with a wrong CRC
GOLDEN_CASE = FIXTURES / "golden" / "ConsumerProtocolSubscription" / "v0" / "java-001-single-topic-nothing-else"
SPEC = ROOT / "schemas" / "consumer" / "ConsumerProtocolSubscription.json"
V1 = "0001000000010003666f6fffffffff00000000"  # a ConsumerProtocolSubscription v1
TYPE = "ConsumerProtocolSubscription"


@pytest.fixture
def made(tmp_path: Path) -> dict[str, str]:
    """Inputs made for the cases: each named by the placeholder the cases use."""
    (tmp_path / "empty-dir").mkdir()
    (tmp_path / "tiny.pcapng").write_bytes(LAB_STORM.read_bytes()[:30])  # nothing of it can be read
    (tmp_path / "bad-lines.jsonl").write_text(SAMPLE.read_text().splitlines()[0] + "\nnot json\n")
    (tmp_path / "blobs.jsonl").write_text(f'"{V1}"\n')
    (tmp_path / "bad-blobs.jsonl").write_text(f'"{V1}"\n"zz"\n')
    (tmp_path / "binary.bin").write_bytes(bytes([0x88]) + bytes(range(256)))
    for name, corrupt in (("golden", False), ("golden-bad", True)):
        case = tmp_path / name / TYPE / "v0"
        case.mkdir(parents=True)
        for suffix in (".bin", ".json"):
            data = bytearray(GOLDEN_CASE.with_suffix(suffix).read_bytes())
            if corrupt and suffix == ".bin":
                data[-5] ^= 0x01  # "foo" -> "fon": the bytes no longer decode to the .json
            (case / f"{GOLDEN_CASE.name}{suffix}").write_bytes(bytes(data))
    for name, versions in (("specs-old", '"0-3"'), ("specs-same", '"0-3"'), ("specs-breaking", '"0-2"')):
        (tmp_path / name).mkdir()
        text = SPEC.read_text().replace('"validVersions": "0-3"', f'"validVersions": {versions}', 1)
        (tmp_path / name / SPEC.name).write_text(text)
    return {name: str(tmp_path / name) for name in (
        "empty-dir", "tiny.pcapng", "bad-lines.jsonl", "blobs.jsonl", "bad-blobs.jsonl", "binary.bin", "golden",
        "golden-bad", "specs-old", "specs-same", "specs-breaking")} | {
        "missing": str(tmp_path / "missing.jsonl"), "tmp": str(tmp_path), "out": str(tmp_path / "out")}


def fill(argv: list[str], paths: dict[str, str]) -> list[str]:
    filled = []
    for arg in argv:
        for name, path in paths.items():
            arg = arg.replace("{" + name + "}", path)
        filled.append(arg)
    return filled


def run(capsys, argv: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """The command as the console script runs it; argparse's usage errors are its SystemExit."""
    real = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    finally:
        sys.stdin = real
    out, err = capsys.readouterr()
    return int(code or 0), out, err


# (argv with {placeholders}, stdin, exit status, what stderr says): per verb, each status it has
CASES: dict[str, tuple[list[str], bytes, int, str]] = {
    "types-0": (["types"], b"", 0, ""),
    "types-2-unknown-option": (["types", "--frob"], b"", 2, "unrecognized arguments: --frob"),
    "decode-0": (["decode", TYPE, "--hex", V1], b"", 0, ""),
    "decode-1-bytes-do-not-read": (["decode", TYPE, "--hex", "0001ff"], b"", 1, f"{TYPE} v1"),
    "decode-1-stdin-does-not-read": (["decode", TYPE], b"\x00", 1, "needs a 2-byte version"),
    "decode-1-bad-line": (["decode", TYPE, "--input", "{bad-blobs.jsonl}"], b"", 1, "{bad-blobs.jsonl} line 2: "),
    "decode-1-binary-input": (["decode", TYPE, "--input", "{binary.bin}"], b"", 1, "binary data at byte 0"),
    "decode-0-input": (["decode", TYPE, "--input", "{blobs.jsonl}"], b"", 0, "decoded 1, failed 0"),
    "decode-2-unknown-type": (["decode", "Nope", "--hex", V1], b"", 2, "unknown type 'Nope'"),
    "decode-2-bad-hex": (["decode", TYPE, "--hex", "zz"], b"", 2, "not valid hex"),
    "decode-2-missing-file": (["decode", TYPE, "--file", "{missing}"], b"", 2, "{missing}: no such file"),
    "decode-2-input-is-a-directory": (["decode", TYPE, "--input", "{empty-dir}"], b"", 2, "is a directory"),
    "encode-0": (["encode", TYPE], b'{"topics": ["foo"]}', 0, ""),
    "encode-1-not-json": (["encode", TYPE], b"{", 1, "stdin is not JSON"),
    "encode-1-does-not-fit": (["encode", TYPE], b'{"topics": "foo"}', 1, "does not fit"),
    "encode-1-not-utf8": (["encode", TYPE], b"\x88", 1, "not UTF-8 text"),
    "encode-2-unknown-type": (["encode", "Nope"], b"{}", 2, "unknown type 'Nope'"),
    "compat-0": (["compat", TYPE], b"", 0, ""),
    "compat-0-verify": (["compat", TYPE, "--verify", "{golden}"], b"", 0, ""),
    "compat-1-nothing-to-verify": (["compat", TYPE, "--verify", "{empty-dir}"], b"", 1, "nothing was checked"),
    "compat-2-unknown-type": (["compat", "Nope"], b"", 2, "unknown type 'Nope'"),
    "compat-2-missing-directory": (["compat", TYPE, "--verify", "{missing}"], b"", 2, "no such directory"),
    "evolution-0": (["evolution", "{specs-old}", "{specs-same}"], b"", 0, ""),
    "evolution-1-breaking": (["evolution", "{specs-old}", "{specs-breaking}"], b"", 1, ""),
    "evolution-1-no-specs": (["evolution", "{specs-old}", "{empty-dir}"], b"", 1, "no .json spec files"),
    "evolution-1-binary": (["evolution", "{binary.bin}", "{specs-old}"], b"", 1, "binary data at byte 0"),
    "evolution-2-one-path": (["evolution", "{specs-old}"], b"", 2, "give OLD and NEW"),
    "evolution-2-missing": (["evolution", "{specs-old}", "{missing}"], b"", 2, "{missing}: no such file"),
    "golden-verify-0": (["golden", "verify", "{golden}"], b"", 0, ""),
    "golden-verify-1-fails": (["golden", "verify", "{golden-bad}"], b"", 1, ""),
    "golden-verify-1-no-cases": (["golden", "verify", "{empty-dir}"], b"", 1, "no golden cases"),
    "golden-verify-2-missing": (["golden", "verify", "{missing}"], b"", 2, "no such directory"),
    "golden-add-0": (["golden", "add", TYPE, "--name", "x", "--hex", V1, "--dir", "{tmp}/new"], b"", 0, ""),
    "golden-add-1-bytes-do-not-read": (["golden", "add", TYPE, "--name", "x", "--hex", "0001ff", "--dir",
                                        "{tmp}/new"], b"", 1, TYPE),
    "golden-add-1-stdin-not-json": (["golden", "add", TYPE, "--version", "1", "--name", "x", "--dir",
                                     "{tmp}/new"], b"{", 1, "stdin is not JSON"),
    "golden-add-2-unknown-type": (["golden", "add", "Nope", "--name", "x", "--hex", V1, "--dir", "{tmp}/new"], b"",
                                  2, "unknown type 'Nope'"),
    "golden-add-2-bad-name": (["golden", "add", TYPE, "--name", "../x", "--hex", V1, "--dir", "{tmp}/new"], b"",
                              2, "case name '../x'"),
    "log-0": (["log", str(PARTITION)], b"", 0, ""),
    "log-1-damaged": (["log", str(DAMAGED_PARTITION)], b"", 1, "CRC-32C mismatch"),
    "log-1-empty-directory": (["log", "{empty-dir}"], b"", 1, "a directory with nothing to read in it"),
    "log-1-another-kind": (["log", str(STORM)], b"", 1, "not log segments (kafka-meta capture reads it)"),
    "log-2-missing": (["log", "{missing}"], b"", 2, "{missing}: no such file or directory"),
    "log-2-jobs": (["log", str(PARTITION), "--jobs", "0"], b"", 2, "--jobs must be at least 1"),
    "offsets-0": (["offsets", str(SAMPLE)], b"", 0, ""),
    "offsets-0-stdin": (["offsets", "-"], SAMPLE.read_bytes(), 0, ""),
    "offsets-1-empty-directory": (["offsets", "{empty-dir}"], b"", 1, "a directory with nothing to read in it"),
    "offsets-1-damaged-segment": (["offsets", str(DAMAGED_PARTITION)], b"", 1, "CRC-32C mismatch"),
    "offsets-1-bad-line": (["offsets", "{bad-lines.jsonl}"], b"", 1, "{bad-lines.jsonl} line 2: not JSON"),
    "offsets-1-no-records": (["offsets", str(STORM)], b"", 1, "no __consumer_offsets records"),
    "offsets-2-missing": (["offsets", str(SAMPLE), "{missing}"], b"", 2, "{missing}: no such file or directory"),
    "offsets-2-unknown-type": (["offsets", str(SAMPLE), "--type", "Bogus"], b"", 2, "unknown record type 'Bogus'"),
    "capture-0": (["capture", str(STORM)], b"", 0, ""),
    "capture-0-filtered-to-nothing": (["capture", str(STORM), "--group", "no-such-group"], b"", 0, ""),
    "capture-1-nothing-read": (["capture", "{tiny.pcapng}"], b"", 1, "no Kafka connection in the input"),
    "capture-1-not-a-capture": (["capture", str(SAMPLE)], b"", 1, "not a pcap or pcapng capture"),
    "capture-1-no-kafka-there": (["capture", str(STORM), "--port", "1"], b"", 1, "no Kafka on port 1"),
    "capture-2-missing": (["capture", "{missing}"], b"", 2, "{missing}: no such file or directory"),
    "capture-2-directory": (["capture", "{empty-dir}"], b"", 2, "is a directory, not a file"),
    "capture-2-unknown-api": (["capture", str(STORM), "--api", "Rebalance"], b"", 2, "unknown api 'Rebalance'"),
    "report-0": (["report", str(LAB_STORM), "--format", "json"], b"", 0, ""),
    "report-1-damaged-payload": (["report", str(DAMAGED_SAMPLE), "--format", "json"], b"", 1, ""),
    "report-1-damaged-segment": (["report", str(DAMAGED_PARTITION), "--format", "json"], b"", 1, ""),
    "report-1-empty-directory": (["report", "{empty-dir}", "--format", "json"], b"", 1, ""),
    "report-1-nothing-read": (["report", "{tiny.pcapng}", "--format", "json"], b"", 1, ""),
    "report-2-missing": (["report", str(SAMPLE), "{missing}"], b"", 2, "{missing}: no such file or directory"),
    "report-2-threshold": (["report", str(SAMPLE), "--storm-rounds", "1"], b"", 2, "thresholds must be positive"),
    "explain-0": (["explain", str(SAMPLE)], b"", 0, ""),
    "explain-1-damaged-payload": (["explain", str(DAMAGED_SAMPLE)], b"", 1, "group orders: "),
    "explain-1-damaged-segment": (["explain", str(DAMAGED_PARTITION)], b"", 1, "CRC-32C mismatch"),
    "explain-1-empty-directory": (["explain", "{empty-dir}"], b"", 1, "a directory with nothing to read in it"),
    "explain-1-no-message": (["explain", "--message", "nothing to see"], b"", 1, "no version message"),
    "explain-2-missing": (["explain", "{missing}"], b"", 2, "{missing}: no such file or directory"),
    "explain-2-bad-release": (["explain", str(SAMPLE), "--release", "a"], b"", 2, "MEMBER=RELEASE"),
    "simulate-0": (["simulate", "--kind", "consumer", "--from", "2.3", "--to", "3.9", "--members", "3", "--order",
                    "reverse"], b"", 0, ""),
    "simulate-1-a-problem": (["simulate", "--kind", "consumer", "--from", "3.9", "--to", "3.9", "--assignors",
                              "cooperative-sticky"], b"", 1, ""),
    "simulate-2-members": (["simulate", "--from", "2.3", "--to", "3.9", "--members", "0"], b"", 2,
                           "--members must be between 1 and"),
    "specs-1-binary": (["--specs", "{binary.bin}", "types"], b"", 1, "binary data at byte 0"),
    "specs-2-missing": (["--specs", "{missing}", "types"], b"", 2, "{missing}: no such file or directory"),
    "watch-2-no-port": (["watch", "--bootstrap-server", "localhost"], b"", 2, "expected HOST:PORT"),
    "watch-2-timeout": (["watch", "--bootstrap-server", "127.0.0.1:1", "--connect-timeout", "0"], b"", 2,
                        "--connect-timeout must be positive"),
    "watch-2-duration": (["watch", "--bootstrap-server", "127.0.0.1:1", "--duration", "-1"], b"", 2,
                         "--duration must be positive"),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_each_verb_ends_with_the_status_the_policy_gives(capsys, made, case):
    argv, stdin, status, says = CASES[case]
    code, _, err = run(capsys, fill(argv, made), stdin)
    assert code == status, err
    assert fill([says], made)[0] in err
    assert "Traceback" not in err
    if status == 2:
        assert len(err.splitlines()) == 1, err  # a usage error is one line, said before anything is read


def test_every_verb_has_its_cases():
    """A new verb gets its cases here: every verb the command has is run above with each status it can give
    without Spark or a cluster (analyze, stream and watch: below)."""
    import argparse

    from kafka_meta.cli.main import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    verbs = set(commands.choices)
    statuses: dict[str, set[int]] = {}
    for case, (_, _, status, _) in {**CASES, **{c: ([], b"", s, "") for c, (_, s, _) in BEFORE_SPARK.items()}}.items():
        statuses.setdefault(case.split("-")[0], set()).add(status)
    assert verbs - {"stream", "watch"} <= set(statuses), verbs - set(statuses)
    for verb in verbs - {"stream", "watch", "types", "analyze"}:
        assert statuses[verb] == {0, 1, 2}, (verb, statuses[verb])


def test_specs_that_load_are_read_in_a_process_of_their_own(made):
    """--specs replaces the registry's types for the process: run as the console script, not in this one."""
    import subprocess

    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "--specs", made["specs-old"], "types"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0 and "ConsumerProtocolSubscription" in done.stdout, done.stderr


def test_a_missing_path_is_said_before_anything_is_read(capsys, made):
    """One path mistyped among good ones: the run stops at once, nothing printed, instead of reading the rest
    and leaving the status to tell a typo from an input that could not be read."""
    code, out, err = run(capsys, ["offsets", str(SAMPLE), made["missing"]])
    assert code == 2 and out == "" and err == f"kafka-meta: {made['missing']}: no such file or directory\n"


def test_report_and_explain_agree_on_a_damaged_payload(capsys):
    """The sample's damaged payloads: explain says it cannot explain them, report lists them; both end with 1."""
    explained, _, said = run(capsys, ["explain", str(DAMAGED_SAMPLE)])
    reported, out, _ = run(capsys, ["report", str(DAMAGED_SAMPLE), "--format", "json"])
    import json

    doc = json.loads(out)
    assert doc["blobErrors"] and not doc["unreadable"] and not doc["problems"]  # only payloads could not be read
    assert explained == reported == 1 and "group orders: " in said


# --- analyze and stream: refused before Spark starts -------------------------------------------------------

@pytest.fixture
def no_spark(monkeypatch):
    """Starting Spark is a failure of the test: the cases here are all decided before a JVM is needed."""
    pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

    def started(*args, **kwargs):
        raise AssertionError("Spark was started")

    monkeypatch.setattr("kafka_meta.spark.session.local_session", started)


BEFORE_SPARK: dict[str, tuple[list[str], int, str]] = {
    "analyze-2-missing": (["analyze", str(SAMPLE), "{missing}", "--output", "{out}"], 2,
                          "{missing}: no such file or directory"),
    "analyze-2-missing-capture": (["analyze", str(SAMPLE), "--capture", "{missing}", "--output", "{out}"], 2,
                                  "{missing}: no such file or directory"),
    "analyze-2-format": (["analyze", str(SAMPLE), "--format", "xml"], 2, "invalid choice: 'xml'"),
    "analyze-2-master": (["analyze", str(SAMPLE), "--master", "foo://bar", "--output", "{out}"], 2,
                         "not a Spark master URL"),
    "analyze-2-timeout": (["analyze", "--format", "kafka", "--bootstrap-server", "127.0.0.1:1",
                           "--connect-timeout", "0"], 2, "--connect-timeout must be positive"),
    "analyze-2-kafka-without-address": (["analyze", "--format", "kafka"], 2, "a Kafka input is kafka://host:port"),
    "analyze-2-kafka-bad-port": (["analyze", "kafka://127.0.0.1:x", "--output", "{out}"], 2, "expected HOST:PORT"),
    "analyze-2-config-without-kafka": (["analyze", str(SAMPLE), "--command-config", "{blobs.jsonl}", "--output",
                                        "{out}"], 2, "--command-config is for Kafka inputs"),
    "analyze-1-empty-directory": (["analyze", "{empty-dir}", "--output", "{out}"], 1,
                                  "a directory with nothing to read in it"),
    "analyze-1-nothing-readable": (["analyze", "{binary.bin}", "--output", "{out}"], 1, "neither a packet capture"),
    "stream-2-required": (["stream", "--bootstrap-server", "127.0.0.1:1"], 2, "required"),
    "stream-2-no-port": (["stream", "--bootstrap-server", "localhost", "--output", "{out}", "--checkpoint",
                          "{tmp}/cp"], 2, "expected HOST:PORT"),
    "stream-2-timeout": (["stream", "--bootstrap-server", "127.0.0.1:1", "--output", "{out}", "--checkpoint",
                          "{tmp}/cp", "--connect-timeout", "-1"], 2, "--connect-timeout must be positive"),
    "stream-2-trigger": (["stream", "--bootstrap-server", "127.0.0.1:1", "--output", "{out}", "--checkpoint",
                          "{tmp}/cp", "--trigger-seconds", "0"], 2, "--trigger-seconds must be positive"),
    "stream-2-master": (["stream", "--bootstrap-server", "127.0.0.1:1", "--output", "{out}", "--checkpoint",
                         "{tmp}/cp", "--master", "foo://bar"], 2, "not a Spark master URL"),
}


@pytest.mark.parametrize("case", BEFORE_SPARK, ids=list(BEFORE_SPARK))
def test_spark_verbs_refuse_before_spark_starts(capsys, made, no_spark, case):
    argv, status, says = BEFORE_SPARK[case]
    code, _, err = run(capsys, fill(argv, made))
    assert code == status, err
    assert fill([says], made)[0] in err and len(err.splitlines()) == 1, err
    assert not Path(made["out"]).exists()


def test_analyze_and_report_end_alike(spark, capsys, tmp_path):
    """Two real runs of the job: everything read (0), and damaged payloads read around (1), as report ends."""
    for source, status in ((SAMPLE, 0), (DAMAGED_SAMPLE, 1)):
        out = tmp_path / source.stem
        assert main(["analyze", str(source), "--output", str(out)]) == status
        assert main(["report", str(source), "--format", "json"]) == status
        capsys.readouterr()


# --- --connect-timeout: watch, stream and analyze against an address where no Kafka answers --------------

def closed_port() -> int:
    """A port nothing listens on: bound, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def listener(answer: bytes | None) -> Iterator[int]:
    """A real socket on 127.0.0.1 that accepts and is not Kafka: it sends ``answer`` to whatever it is sent,
    or, with None, says nothing at all. Closed when the block ends."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)
            if answer is not None:
                try:
                    conn.settimeout(1.0)
                    conn.recv(4096)
                    conn.sendall(answer)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        server.close()


HTTP = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
GARBAGE_FRAME = b"\x00\x00\x00\x04\xff\xff\xff\xff"  # a frame of the right size, answering another request


def connecting(verb: str, address: str, tmp_path: Path) -> list[str]:
    if verb == "watch":
        return ["watch", "--bootstrap-server", address, "--format", "json", "--connect-timeout", "2"]
    if verb == "stream":
        return ["stream", "--bootstrap-server", address, "--output", str(tmp_path / "out"), "--checkpoint",
                str(tmp_path / "cp"), "--connect-timeout", "2"]
    return ["analyze", "--format", "kafka", "--bootstrap-server", address, "--output", str(tmp_path / "out"),
            "--connect-timeout", "2"]


@contextmanager
def nothing_listening() -> Iterator[int]:
    yield closed_port()


# what is at the address: nothing, a socket that says nothing, one that answers as a web server does, one that
# answers with a frame that is no answer to ApiVersions
ADDRESSES = {"closed": nothing_listening, "silent": lambda: listener(None), "http": lambda: listener(HTTP),
             "frame": lambda: listener(GARBAGE_FRAME)}


@pytest.mark.parametrize("there", ADDRESSES)
@pytest.mark.parametrize("verb", ["watch", "stream", "analyze"])
def test_an_address_where_no_kafka_answers_ends_in_one_line_after_the_timeout(capsys, monkeypatch, tmp_path,
                                                                               verb, there):
    if verb == "watch":
        pytest.importorskip("kafka", reason="kafka-python is not installed (the live extra)")
    else:
        pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

        def started(*args, **kwargs):
            raise AssertionError("Spark was started for a cluster that does not answer")

        monkeypatch.setattr("kafka_meta.spark.session.local_session", started)
    with ADDRESSES[there]() as port:
        address = f"127.0.0.1:{port}"
        started_at = time.monotonic()
        code, _, err = run(capsys, connecting(verb, address, tmp_path))
        waited = time.monotonic() - started_at
    assert code == 1, err
    assert err.count("\n") == 1 and f"cannot reach the Kafka cluster at {address} within 2 s" in err, err
    assert 1.5 < waited < 20, waited  # tried until the timeout, not for the Java client's minute and more
    assert "Traceback" not in err


def test_a_broker_that_answers_apiversions_is_reachable():
    """The probe against a socket that answers as a broker does, with the answer the project's codec writes."""
    import struct

    import kafka_meta as km
    from kafka_meta.live.reach import check_reachable

    body = km.encode({"error_code": 0, "api_keys": [{"api_key": 18, "min_version": 0, "max_version": 4}]}, 0,
                     type_name="ApiVersionsResponse")
    answer = struct.pack(">ii", 4 + len(body), 0) + body  # size, correlation id 0, the body
    with listener(answer) as port:
        started = time.monotonic()
        check_reachable(f"127.0.0.1:{closed_port()},127.0.0.1:{port}", 5.0)  # the second server answers
        assert time.monotonic() - started < 4


def test_the_kafka_clients_wait_as_long_as_the_timeout():
    """The timeout Spark's Kafka clients get: connection set-up and blocking calls (and the Admin client's one
    request); what --command-config says itself wins."""
    pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")
    from kafka_meta.spark.kafka_settings import timeout_settings
    from kafka_meta.spark.kafka_source import source_options

    options = source_options("h:9092", "__consumer_offsets", [0], {"default.api.timeout.ms": "90000"}, 2000)
    assert options["kafka.socket.connection.setup.timeout.max.ms"] == "2000"
    assert options["kafka.socket.connection.setup.timeout.ms"] == "2000"
    assert options["kafka.default.api.timeout.ms"] == "90000"
    assert "kafka.request.timeout.ms" not in options  # a long read keeps Kafka's own request timeout
    assert timeout_settings(45000, admin=True) == {
        "socket.connection.setup.timeout.ms": "10000", "socket.connection.setup.timeout.max.ms": "45000",
        "default.api.timeout.ms": "45000", "request.timeout.ms": "45000"}
