"""A single-node KRaft broker (combined broker and controller) from the lab's Kafka jars, on loopback.

`start(directory)` formats a fresh log directory the way Kafka's quick start does (`kafka-storage format
--standalone`), starts `kafka.Kafka` detached from the caller, waits until the broker answers an ApiVersions
request, and leaves `broker.json` (pid, ports, bootstrap address) in the directory for `stop(directory)`.
The broker's own log is `broker.log` beside it. With `owner_pid`, a watchdog stops the broker when that
process ends, however it ends, so a test run never leaves a JVM behind.

With `sasl_users` (name -> password) the broker also listens on a second loopback port, `SASL_PLAINTEXT`,
where clients must log in with SASL PLAIN or SCRAM-SHA-256 as one of those users, so the project's clients
can be tested against authentication as a secured cluster asks for it. The `PLAINTEXT` listener stays as it
is (the lab's Java programs, the probe, the broker's own traffic use it). PLAIN's users are listed in the
listener's JAAS settings; SCRAM's credentials are metadata records in KRaft, written when the storage is
formatted (`kafka-storage format --add-scram`).

With `ssl_keystore` (a PEM file: the broker's private key, PKCS#8 and unencrypted, then its certificate chain)
the broker also listens on an `SSL` port, and on a `SASL_SSL` one when `sasl_users` is given too, so clients
can be tested over TLS. Kafka reads the PEM file itself (`ssl.keystore.type=PEM`): no keytool, no JKS. Clients
are not asked for certificates of their own; the key file's certificate must name 127.0.0.1 (the address the
listeners advertise) for clients that check host names.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from labkit import build

STATE_FILE = "broker.json"
LOG_FILE = "broker.log"
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 60.0
SASL_LISTENER = "SASL_PLAINTEXT"
SSL_LISTENER = "SSL"
SASL_SSL_LISTENER = "SASL_SSL"
SASL_MECHANISMS = ("PLAIN", "SCRAM-SHA-256")

# Settings a single-node lab needs (replication factor 1 for the internal topics), plus shorter bounds on
# session timeouts so scenarios can let a member expire in seconds; everything else is Kafka's default,
# group.initial.rebalance.delay.ms (3 s) included, because that is what operators run.
LAB_SETTINGS = {
    "num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "offsets.topic.num.partitions": "3",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "transaction.state.log.num.partitions": "3",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "share.coordinator.state.topic.num.partitions": "3",
    "group.consumer.min.session.timeout.ms": "6000",
    "group.consumer.session.timeout.ms": "10000",
    "group.consumer.heartbeat.interval.ms": "1000",
    "group.consumer.min.heartbeat.interval.ms": "1000",
    "group.streams.min.session.timeout.ms": "6000",
    "group.streams.session.timeout.ms": "10000",
    "group.streams.heartbeat.interval.ms": "1000",
    "group.streams.min.heartbeat.interval.ms": "1000",
    "group.share.min.session.timeout.ms": "6000",
    "group.share.session.timeout.ms": "10000",
    "group.share.heartbeat.interval.ms": "1000",
    "group.share.min.heartbeat.interval.ms": "1000",
    "auto.create.topics.enable": "false",
}


class BrokerError(RuntimeError):
    """The broker could not be started or stopped; the message names the directory and its log."""


@dataclass
class Broker:
    directory: str
    pid: int
    port: int
    controller_port: int
    cluster_id: str
    watchdog_pid: int | None = None
    sasl_port: int | None = None  # the SASL_PLAINTEXT listener's, when started with sasl_users
    ssl_port: int | None = None  # the SSL listener's, when started with ssl_keystore
    sasl_ssl_port: int | None = None  # the SASL_SSL listener's, when started with both

    @property
    def ports(self) -> dict[str, int]:
        """Every client listener's port by its name (PLAINTEXT first), as `server_properties` opens them."""
        named = {"PLAINTEXT": self.port, SASL_LISTENER: self.sasl_port, SSL_LISTENER: self.ssl_port,
                 SASL_SSL_LISTENER: self.sasl_ssl_port}
        return {name: port for name, port in named.items() if port is not None}

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def sasl_bootstrap(self) -> str:
        return self._bootstrap_of(SASL_LISTENER)

    @property
    def ssl_bootstrap(self) -> str:
        return self._bootstrap_of(SSL_LISTENER)

    @property
    def sasl_ssl_bootstrap(self) -> str:
        return self._bootstrap_of(SASL_SSL_LISTENER)

    def _bootstrap_of(self, listener: str) -> str:
        port = self.ports.get(listener)
        if port is None:
            raise BrokerError(f"the broker of {self.directory} was started without a {listener} listener")
        return f"127.0.0.1:{port}"

    @property
    def log_dir(self) -> Path:
        return Path(self.directory) / "kafka-logs"

    @property
    def log_file(self) -> Path:
        return Path(self.directory) / LOG_FILE


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie child of ours counts as gone
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return True
    return state != "Z"


REMOTE_STORAGE_DIR = "remote-storage"  # under the broker's directory: the lab's remote storage, with tiered storage


def tiered_storage_settings(directory: Path) -> dict[str, str]:
    """Tiered storage (KIP-405) switched on: Kafka's own remote-log manager and metadata manager (which writes
    `__remote_log_metadata`, one partition here), over the lab's remote storage, a directory
    (`kafkameta.lab.tiered.DirectoryRemoteStorage`); segments are offered for copying every second. A topic is
    tiered when created with `remote.storage.enable=true`."""
    return {
        "remote.log.storage.system.enable": "true",
        "remote.log.storage.manager.class.name": "kafkameta.lab.tiered.DirectoryRemoteStorage",
        "remote.log.storage.manager.impl.prefix": "rsm.config.",
        "rsm.config.dir": str(directory / REMOTE_STORAGE_DIR),
        "remote.log.metadata.manager.listener.name": "PLAINTEXT",
        "rlmm.config.remote.log.metadata.topic.replication.factor": "1",
        "rlmm.config.remote.log.metadata.topic.num.partitions": "1",
        "remote.log.manager.task.interval.ms": "1000",
        "log.retention.check.interval.ms": "1000",
    }


def server_properties(directory: Path, port: int, controller_port: int, secured: dict[str, int] | None = None,
                      sasl_users: dict[str, str] | None = None, ssl_keystore: Path | None = None,
                      tiered_storage: bool = False) -> str:
    """The broker's configuration; `secured` maps the secured listeners to open (each named after its
    security protocol) to their ports; `tiered_storage` adds `tiered_storage_settings` (off by default)."""
    secured = secured or {}
    listeners = [f"PLAINTEXT://127.0.0.1:{port}", f"CONTROLLER://127.0.0.1:{controller_port}"]
    protocols = ["PLAINTEXT:PLAINTEXT", "CONTROLLER:PLAINTEXT"]
    for name, secured_port in secured.items():
        listeners.append(f"{name}://127.0.0.1:{secured_port}")
        protocols.append(f"{name}:{name}")
    settings = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.bootstrap.servers": f"127.0.0.1:{controller_port}",
        "listeners": ",".join(listeners),
        "advertised.listeners": ",".join(listeners),
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": ",".join(protocols),
        "log.dirs": str(directory / "kafka-logs"),
        **LAB_SETTINGS,
    }
    sasl_listeners = [name for name in secured if name.startswith("SASL_")]
    if sasl_listeners:
        settings.update(sasl_listener_settings(sasl_users or {}, sasl_listeners))
    if ssl_keystore is not None:
        # PEM keystores take no store password; the key is unencrypted, so no ssl.key.password either
        settings.update({"ssl.keystore.type": "PEM", "ssl.keystore.location": str(ssl_keystore)})
    if tiered_storage:
        settings.update(tiered_storage_settings(directory))
    return "".join(f"{key}={value}\n" for key, value in settings.items())


def sasl_listener_settings(users: dict[str, str], listeners: list[str]) -> dict[str, str]:
    """The SASL listeners' mechanisms and their broker-side JAAS settings (per listener, as Kafka takes them):
    PLAIN checks passwords against the `user_NAME="PASSWORD"` options listed here; SCRAM against the
    credentials in the metadata log."""
    plain_users = " ".join(f'user_{name}="{_jaas_quoted(password)}"' for name, password in users.items())
    settings = {"sasl.enabled.mechanisms": ",".join(SASL_MECHANISMS)}
    for listener in listeners:
        prefix = f"listener.name.{listener.lower()}"
        settings[f"{prefix}.plain.sasl.jaas.config"] = \
            f"org.apache.kafka.common.security.plain.PlainLoginModule required {plain_users};"
        settings[f"{prefix}.scram-sha-256.sasl.jaas.config"] = \
            "org.apache.kafka.common.security.scram.ScramLoginModule required;"
    return settings


def scram_arguments(users: dict[str, str]) -> list[str]:
    """`kafka-storage format` arguments that write each user's SCRAM-SHA-256 credential into the metadata log."""
    arguments: list[str] = []
    for name, password in users.items():
        arguments += ["--add-scram", f'SCRAM-SHA-256=[name={name},password="{_jaas_quoted(password)}"]']
    return arguments


def _jaas_quoted(text: str) -> str:
    """A password as it goes between double quotes, in JAAS settings and --add-scram alike (neither is
    escaped here: the lab's passwords are plain words)."""
    if any(ch in text for ch in '"\\\n'):
        raise BrokerError("the lab's SASL passwords may not hold quotes, backslashes or line breaks")
    return text


def api_versions_answered(port: int, timeout: float = 2.0) -> bool:
    """True when a Kafka broker on the port answers ApiVersions v0 with error code 0."""
    client_id = b"lab-probe"
    body = struct.pack(">hhih", 18, 0, 1, len(client_id)) + client_id
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            header = _read_exactly(sock, 4)
            (size,) = struct.unpack(">i", header)
            answer = _read_exactly(sock, size)
    except OSError:
        return False
    correlation_id, error_code = struct.unpack(">ih", answer[:6])
    return correlation_id == 1 and error_code == 0


def _read_exactly(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise ConnectionError("closed early")
        data += chunk
    return bytes(data)


def read_state(directory: str | Path) -> Broker | None:
    path = Path(directory) / STATE_FILE
    if not path.exists():
        return None
    return Broker(**json.loads(path.read_text()))


def running(directory: str | Path) -> Broker | None:
    state = read_state(directory)
    return state if state is not None and alive(state.pid) else None


def _java_command(main: str, *args: str, heap: str = "512m", log4j: str = "log4j2-broker.properties") -> list[str]:
    return [
        build.java(), f"-Xmx{heap}", "-XX:+UseG1GC", "-Djava.awt.headless=true",
        f"-Dlog4j2.configurationFile={build.log4j_config(log4j)}",
        "-cp", build.classpath("kafka"), main, *args,
    ]


def start(directory: str | Path, port: int | None = None, *, owner_pid: int | None = None,
          sasl_users: dict[str, str] | None = None, ssl_keystore: str | Path | None = None,
          tiered_storage: bool = False) -> Broker:
    """Format and start a broker whose files live in `directory`; return once it answers (and its secured
    listeners accept connections: SASL_PLAINTEXT with `sasl_users`, SSL with `ssl_keystore`, SASL_SSL with
    both). `tiered_storage`: with tiered storage on (`tiered_storage_settings`)."""
    directory = Path(directory).resolve()
    if running(directory) is not None:
        raise BrokerError(f"a broker is already running from {directory} (lab/broker stop {directory})")
    if port is not None and not port_is_free(port):
        raise BrokerError(f"port {port} on 127.0.0.1 is taken")
    build.ensure_built()
    directory.mkdir(parents=True, exist_ok=True)
    if (directory / "kafka-logs").exists():
        raise BrokerError(f"{directory / 'kafka-logs'} exists: the lab starts brokers on fresh directories")
    if ssl_keystore is not None:
        ssl_keystore = Path(ssl_keystore).resolve()
        if not ssl_keystore.is_file():
            raise BrokerError(f"no such keystore: {ssl_keystore}")
    port = port or free_port()
    controller_port = _another_free_port(port)
    secured: dict[str, int] = {}
    wanted = [(SASL_LISTENER, bool(sasl_users)), (SSL_LISTENER, ssl_keystore is not None),
              (SASL_SSL_LISTENER, bool(sasl_users) and ssl_keystore is not None)]
    for name, wanted_here in wanted:
        if wanted_here:
            secured[name] = _another_free_port(port, controller_port, *secured.values())
    config = directory / "server.properties"
    config.write_text(server_properties(directory, port, controller_port, secured, sasl_users, ssl_keystore,
                                        tiered_storage))
    cluster_id = _cluster_id()
    env = {**os.environ, "LAB_BROKER_LOG": str(directory / LOG_FILE)}
    formatted = subprocess.run(
        _java_command("kafka.tools.StorageTool", "format", "--standalone", "-t", cluster_id, "-c", str(config),
                      *scram_arguments(sasl_users or {}), heap="256m"),
        capture_output=True, text=True, env=env,
    )
    if formatted.returncode != 0:
        raise BrokerError(f"formatting {directory} failed: {(formatted.stdout + formatted.stderr).strip()}")
    with open(directory / "broker.out", "ab") as out:
        process = subprocess.Popen(
            _java_command("kafka.Kafka", str(config), heap="1g"),
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )
    broker = Broker(str(directory), process.pid, port, controller_port, cluster_id,
                    sasl_port=secured.get(SASL_LISTENER), ssl_port=secured.get(SSL_LISTENER),
                    sasl_ssl_port=secured.get(SASL_SSL_LISTENER))
    if owner_pid is not None:
        broker.watchdog_pid = _start_watchdog(owner_pid, process.pid, directory)
    (directory / STATE_FILE).write_text(json.dumps(asdict(broker), indent=1) + "\n")
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BrokerError(f"the broker exited with {process.returncode} while starting; see {broker.log_file}")
        if api_versions_answered(port) and all(_listening(p) for p in secured.values()):
            return broker
        time.sleep(0.25)
    stop(directory)
    raise BrokerError(f"the broker did not answer on {broker.bootstrap} within {START_TIMEOUT_S:.0f} s; "
                      f"see {broker.log_file}")


def _another_free_port(*taken: int) -> int:
    while True:
        port = free_port()
        if port not in taken:
            return port


def _listening(port: int) -> bool:
    """Whether something accepts connections on the port (a SASL or TLS listener answers nothing before a
    login or a handshake)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2.0):
            return True
    except OSError:
        return False


def _cluster_id() -> str:
    """A random cluster id as Kafka writes them (a uuid in URL-safe base64), not starting with '-' (the storage
    tool would take it for an option) or '_'."""
    import base64

    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if cluster_id[0].isalnum():
            return cluster_id


def _start_watchdog(owner_pid: int, broker_pid: int, directory: Path) -> int:
    with open(directory / "watchdog.log", "ab") as log:
        watchdog = subprocess.Popen(
            [sys.executable, "-m", "labkit.watchdog", str(owner_pid), str(broker_pid)],
            cwd=str(Path(__file__).resolve().parents[1]), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
        )
    return watchdog.pid


def stop(directory: str | Path, timeout: float = STOP_TIMEOUT_S) -> bool:
    """Stop the broker of `directory` (SIGTERM, then SIGKILL after `timeout`); False when none was running."""
    state = read_state(directory)
    if state is None:
        return False
    stopped = terminate(state.pid, timeout)
    if state.watchdog_pid and alive(state.watchdog_pid):
        terminate(state.watchdog_pid, 5.0)
    return stopped


def terminate(pid: int, timeout: float) -> bool:
    if not alive(pid):
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _reap(pid)
        if not alive(pid):
            return True
        time.sleep(0.1)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return True
    while alive(pid):
        _reap(pid)
        time.sleep(0.05)
    return True


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
