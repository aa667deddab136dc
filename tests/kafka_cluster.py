"""A real Apache Kafka for the tests, per release: one KRaft controller and N brokers (each
with its ``broker.rack``), as processes on loopback ephemeral ports, from Maven Central's
jars (``tests/kafka/pom.xml``: resolved once, cached in ~/.m2 and the classpath file in
the cache folder).

Processes rather than Kafka's in-JVM test kit: ``kafka.Kafka`` and ``StorageTool`` are
the same two entry points on every release from 3.3 to 4.4, where the test kit's builders
changed between releases; a broker can be stopped alone (a truly under-replicated
partition); and Kafka's own command-line tools run beside it as they run against a real
cluster.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

POM = Path(__file__).parent / "kafka" / "pom.xml"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "policylint-kafka"
#: the newest patch of every minor release from KRaft's first production one (3.3) to the
#: newest the config table knows, as Maven Central serves them
RELEASES = {"3.3": "3.3.2", "3.4": "3.4.1", "3.5": "3.5.2", "3.6": "3.6.2", "3.7": "3.7.2",
            "3.8": "3.8.1", "3.9": "3.9.2", "4.0": "4.0.2", "4.1": "4.1.2", "4.2": "4.2.2",
            "4.3": "4.3.2", "4.4": "4.4.0"}
CLUSTER_ID = "cG9saWN5bGludC10ZXN0cw"  # 22 characters of base64, as Kafka's ids
JVM = ["-Xmx320m", "-Xms64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
       "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Djava.awt.headless=true"]


class KafkaUnavailable(RuntimeError):
    """Kafka could not be fetched or started here: the one-line reason."""


def java() -> str:
    """A Java 17+ (Kafka 4.x needs it): JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not found or not Path(found).exists():
        raise KafkaUnavailable("no java on PATH (Kafka needs Java 17+)")
    return found


def classpath(version: str) -> str:
    """Kafka ``version``'s jars, resolved by Maven from the project's pom (once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    listed = CACHE / f"kafka-{version}.classpath"
    if listed.exists() and all(Path(p).exists() for p in listed.read_text().split(os.pathsep)):
        return listed.read_text().strip()
    mvn = shutil.which("mvn")
    if mvn is None:
        raise KafkaUnavailable("no mvn on PATH: it fetches Kafka's jars from Maven Central")
    done = subprocess.run([mvn, "-q", "-B", "-f", str(POM), f"-Dkafka.version={version}",
                           "dependency:build-classpath", f"-Dmdep.outputFile={listed}"],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not listed.exists():
        last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        raise KafkaUnavailable(f"Maven could not resolve Kafka {version}: {last[0]}")
    return listed.read_text().strip()


def free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class KafkaCluster:
    """One controller (node 100) and ``brokers`` brokers (nodes 1..n, racks ``racks``
    in turn), started with ``start()`` and always torn down by ``stop()``."""

    def __init__(self, version: str, brokers: int = 3, racks: tuple[str, ...] = ("a", "b", "c"),
                 config: dict | None = None, controller_config: dict | None = None,
                 jars: tuple[str, ...] = ()):
        self.version = version
        self.ids = list(range(1, brokers + 1))
        self.racks_of = {b: racks[(b - 1) % len(racks)] for b in self.ids}
        self.config = config or {}  # the brokers' own settings
        self.controller_config = controller_config or {}  # the controller's (its plugins)
        self.folder = Path(tempfile.mkdtemp(prefix=f"policylint-kafka-{version}-"))
        self.cp = os.pathsep.join([classpath(version), *jars])  # and plugins' jars
        ports = free_ports(brokers + 1)
        self.controller_port, self.ports = ports[0], dict(zip(self.ids, ports[1:]))
        self.processes: dict[int, subprocess.Popen] = {}
        self.seconds = 0.0

    @property
    def bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{self.ports[b]}" for b in self.ids)

    def _properties(self, node: int) -> Path:
        common = {"controller.quorum.voters": f"100@127.0.0.1:{self.controller_port}",
                  "controller.listener.names": "CONTROLLER",
                  "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                  "log.dirs": str(self.folder / f"node-{node}"), "node.id": str(node),
                  "num.partitions": "1", "offsets.topic.replication.factor": "1",
                  "transaction.state.log.replication.factor": "1",
                  "transaction.state.log.min.isr": "1",
                  "group.initial.rebalance.delay.ms": "0",
                  "log.segment.bytes": str(1 << 20)}
        if node == 100:
            own = {"process.roles": "controller",
                   "listeners": f"CONTROLLER://127.0.0.1:{self.controller_port}",
                   **self.controller_config}
        else:
            listener = f"PLAINTEXT://127.0.0.1:{self.ports[node]}"
            own = {"process.roles": "broker", "listeners": listener,
                   "advertised.listeners": listener, "inter.broker.listener.name": "PLAINTEXT",
                   "broker.rack": self.racks_of[node], **self.config}
        path = self.folder / f"node-{node}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in {**common, **own}.items()))
        return path

    def _start_node(self, node: int) -> None:
        log = open(self.folder / f"node-{node}.log", "ab")
        self.processes[node] = subprocess.Popen(
            [java(), *JVM, "-cp", self.cp, "kafka.Kafka",
             str(self.folder / f"node-{node}.properties")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start(self, timeout: float = 120) -> "KafkaCluster":
        started = time.monotonic()
        for node in [100, *self.ids]:
            done = subprocess.run([java(), *JVM, "-cp", self.cp, "kafka.tools.StorageTool",
                                   "format", "-t", CLUSTER_ID, "-c",
                                   str(self._properties(node))],
                                  capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                raise KafkaUnavailable(f"Kafka {self.version}: formatting node {node} failed: "
                                       + ((done.stdout + done.stderr).strip().splitlines()
                                          or ["no output"])[-1])
        for node in [100, *self.ids]:
            self._start_node(node)
        try:
            self.wait_for(set(self.ids), timeout)
        except KafkaUnavailable:
            self.stop()
            raise
        self.seconds = time.monotonic() - started
        return self

    def admin(self):
        from kafka import KafkaAdminClient
        return KafkaAdminClient(bootstrap_servers=self.bootstrap, request_timeout_ms=30000,
                                client_id="policylint-tests")

    def live_brokers(self) -> set[int]:
        """The brokers the cluster's metadata lists: registered and unfenced (KRaft's
        metadata leaves fenced ones out; DescribeCluster is read differently by release)."""
        admin = self.admin()
        try:
            return {b.node_id for b in admin._client.cluster.brokers()}
        finally:
            admin.close()

    def wait_for(self, brokers: set[int], timeout: float = 120) -> None:
        """Until exactly ``brokers`` are registered and unfenced."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            for node, process in self.processes.items():
                if process.poll() is not None and (node == 100 or node in brokers):
                    tail = (self.folder / f"node-{node}.log").read_text(errors="replace")
                    lines = [ln for ln in tail.splitlines() if "ERROR" in ln or "Exception" in ln]
                    raise KafkaUnavailable(f"Kafka {self.version}: node {node} exited "
                                           f"({process.returncode}): "
                                           f"{(lines or ['see ' + str(self.folder)])[-1][:300]}")
            try:
                live = self.live_brokers()
                if live == brokers:
                    return
                last = f"brokers {sorted(live)} of {sorted(brokers)}"
            except Exception as exc:  # not up yet: the client's own errors
                last = type(exc).__name__
            time.sleep(0.5)
        raise KafkaUnavailable(f"Kafka {self.version}: not ready in {timeout:.0f} s ({last})")

    def add_broker(self, rack: str, timeout: float = 120) -> int:
        """A broker that joins the running cluster (the next id, in ``rack``): its id."""
        broker = max(self.ids) + 1
        self.ids.append(broker)
        self.ports[broker] = free_ports(1)[0]
        self.racks_of[broker] = rack
        done = subprocess.run([java(), *JVM, "-cp", self.cp, "kafka.tools.StorageTool",
                               "format", "-t", CLUSTER_ID, "-c",
                               str(self._properties(broker))],
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise KafkaUnavailable(f"Kafka {self.version}: formatting broker {broker} failed")
        self._start_node(broker)
        self.wait_for(set(self.ids), timeout)
        return broker

    def stop_broker(self, broker: int) -> None:
        process = self.processes.get(broker)
        if process is not None and process.poll() is None:
            process.terminate()
            process.wait(60)

    def start_broker(self, broker: int) -> None:
        self._start_node(broker)

    def tool(self, main: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
        """One of Kafka's own command-line tools (its main class) against this cluster."""
        return subprocess.run([java(), *JVM, "-cp", self.cp, main, *args],
                              capture_output=True, text=True, timeout=timeout)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
        for process in self.processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> "KafkaCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
