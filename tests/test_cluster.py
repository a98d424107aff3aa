"""``kafka-meta analyze`` on a real Spark standalone cluster: a master and a worker started from the
installed PySpark, bound to 127.0.0.1, kafka_meta shipped to the executors as docs/spark.md tells users
to (a wheel as an archive, through spark-defaults.conf); the report and every Parquet row must equal those
of the embedded local run. The master and worker are stopped whatever happens."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark", reason="PySpark is not installed (the spark extra)")

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "fixtures" / "captures" / "capture.jsonl"
SPARK_HOME = Path(pyspark.__file__).parent
READY_SECONDS = 90


def java_missing() -> bool:
    home = os.environ.get("JAVA_HOME")
    return shutil.which("java") is None and not (home and (Path(home) / "bin" / "java").exists())


pytestmark = pytest.mark.skipif(java_missing(), reason="Java is missing: a Spark standalone cluster runs on a JVM")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def loopback_env(**extra: str) -> dict[str, str]:
    """Every Spark process binds its ports and web UIs to 127.0.0.1 only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    return {**env, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": "127.0.0.1", **extra}


def stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(15)


class Cluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.port, self.ui_port, self.worker_ui_port = free_port(), free_port(), free_port()
        self.work = root / "worker-work"
        self.processes: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def start(self, name: str, *args: str) -> None:
        log = (self.root / f"{name}.log").open("w")
        self.processes.append(subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), *args], stdout=log, stderr=subprocess.STDOUT,
            env=loopback_env(SPARK_WORKER_DIR=str(self.work)), start_new_session=True))

    def state(self) -> dict:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as response:
            return json.load(response)

    def wait_for_worker(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if any(p.poll() is not None for p in self.processes):
                break
            try:
                if self.state().get("aliveworkers", 0) >= 1:
                    return
            except OSError:
                pass
            time.sleep(1)
        logs = "\n".join((self.root / f"{n}.log").read_text()[-1500:] for n in ("master", "worker"))
        raise RuntimeError(f"the standalone cluster did not come up in {READY_SECONDS}s:\n{logs}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        c.start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(c.port),
                "--webui-port", str(c.ui_port))
        c.start("worker", "org.apache.spark.deploy.worker.Worker", c.url, "--host", "127.0.0.1", "--cores", "2",
                "--memory", "1g", "--webui-port", str(c.worker_ui_port), "--work-dir", str(c.work))
        c.wait_for_worker()
        yield c
    finally:
        for process in reversed(c.processes):
            stop(process)


def shipped_package(directory: Path) -> Path:
    """docs/spark.md, "On a cluster": kafka_meta's wheel, named .zip so Spark unpacks it on each executor."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(directory),
                    str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel = next(directory.glob("kafka_meta-*.whl"))
    return shutil.copy(wheel, directory / "kafka_meta.zip")


def analyze(output: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "kafka_meta.cli.main", "analyze", str(SAMPLE), "--output",
                             str(output), *args], capture_output=True, text=True, env=env, timeout=600, check=False)
    assert result.returncode == 1, result.stderr[-3000:]  # the sample's damaged payloads: listed, and 1
    return result


def parquet_rows(directory: Path) -> list[str]:
    """Every row of a Parquet dataset, each as canonical JSON, sorted: partitioning may differ, rows may not."""
    import pyarrow.parquet as pq

    table = pq.read_table(directory)
    return sorted(json.dumps(row, sort_keys=True, default=repr) for row in table.to_pylist())


def datasets(output: Path) -> list[Path]:
    return sorted(p.parent.relative_to(output) for p in output.rglob("_SUCCESS"))


def local_run(spark, output: Path, capsys) -> str:
    """The embedded run, on the test session's local Spark (one JVM less to start): its printed report."""
    import argparse

    from kafka_meta.spark.job import execute

    capsys.readouterr()
    args = argparse.Namespace(input=str(SAMPLE), format="auto", output=str(output), master=None,
                              bootstrap_servers=None)
    assert execute(args, spark) == 1  # as the cluster's run: the sample's damaged payloads
    return capsys.readouterr().out


def test_analyze_on_a_standalone_cluster_equals_the_local_run(cluster, spark, tmp_path, capsys):
    conf = tmp_path / "conf"
    conf.mkdir()
    package = shipped_package(tmp_path / "dist")
    (conf / "spark-defaults.conf").write_text(
        f"spark.archives {package}#kafka_meta_pkg\n"
        "spark.executorEnv.PYTHONPATH kafka_meta_pkg\n"
        f"spark.pyspark.python {sys.executable}\n"
        "spark.executor.memory 512m\n"
        "spark.ui.enabled false\n")
    # the driver runs this checkout; the executors only what was shipped (their environment has no PYTHONPATH)
    driver = loopback_env(PYTHONPATH=str(ROOT))
    local_stdout = local_run(spark, tmp_path / "local", capsys)
    remote = analyze(tmp_path / "cluster", "--master", cluster.url, env={**driver, "SPARK_CONF_DIR": str(conf)})

    assert f"Spark master {cluster.url}; reading" in remote.stderr
    apps = cluster.state()["completedapps"] + cluster.state()["activeapps"]
    assert [a["name"] for a in apps] == ["kafka-meta analyze"]
    unpacked = list(cluster.work.glob("app-*/*/kafka_meta_pkg/kafka_meta/__init__.py"))
    assert unpacked, "the executors did not receive the shipped package"

    local_report = json.loads((tmp_path / "local" / "report.json").read_text())
    remote_report = json.loads((tmp_path / "cluster" / "report.json").read_text())
    assert local_report.pop("output") == str(tmp_path / "local")
    assert remote_report.pop("output") == str(tmp_path / "cluster")
    assert remote_report == local_report
    assert local_report["records"]["GroupMetadata"] == 4 and local_report["groups"]
    assert remote.stdout.replace(str(tmp_path / "cluster"), "OUT") == local_stdout.replace(str(tmp_path / "local"),
                                                                                           "OUT")
    assert datasets(tmp_path / "cluster") == datasets(tmp_path / "local")
    assert len(datasets(tmp_path / "local")) >= 3  # offsets, members, payloads/<type>...
    for dataset in datasets(tmp_path / "local"):
        local_rows = parquet_rows(tmp_path / "local" / dataset)
        assert local_rows and parquet_rows(tmp_path / "cluster" / dataset) == local_rows, dataset
