"""The capture's KIP-860-safe read, against the recorded-response admin double: the races a
single test broker cannot play. (tests/test_capture_broker.py runs it against a broker.)"""

import json
import subprocess
import sys
from datetime import datetime, timezone

import pytest

pytest.importorskip("kafka")

from kafka.errors import TopicAuthorizationFailedError  # noqa: E402

from policylint.capture import CaptureError, capture, to_json  # noqa: E402
from policylint.capture.client import explain, read_properties, settings  # noqa: E402
from policylint.capture.recorded import RecordedAdmin, generated, moving, partition  # noqa: E402
from policylint.linter import lint  # noqa: E402

RACKS = {1: "a", 2: "b", 3: "c", 4: "a", 5: "b", 6: "c"}
NOW = datetime(2026, 11, 23, 10, 0, tzinfo=timezone.utc)


def take(admin, **options):
    return capture(admin, backoff=0, now=lambda: NOW, **options)


def parts(doc, topic="tp"):
    return {p["partition"]: p for t in doc["topics"] if t["name"] == topic
            for p in t["partitions"]}


def settled(**extra):
    return {"tp": [partition(0, [1, 2, 3]), partition(1, [2, 3, 4]), partition(2, [3, 4, 5])],
            **extra}


def test_a_quiet_cluster_is_read_once_with_brokers_configs_and_sources():
    admin = RecordedAdmin(RACKS, [settled(other=[partition(0, [4, 5, 6], isr=[4, 5])])],
                          topic_configs={"tp": {"retention.ms": "86400000"}},
                          broker_config={"min.insync.replicas": "2", "log.dirs": "/x",
                                         "num.partitions": "3"}, controller=2)
    doc = take(admin, name="prod")
    assert doc["cluster"] == "prod" and doc["controller"] == 2
    assert doc["brokers"][0] == {"id": 1, "rack": "a"} and len(doc["brokers"]) == 6
    assert doc["captured_at"] == "2026-11-23T10:00:00Z" and doc["kafka_version"] == "3.9"
    assert doc["config"] == {"min.insync.replicas": "2", "num.partitions": "3"}  # rules' keys
    assert doc["config_sources"]["min.insync.replicas"] == "STATIC_BROKER_CONFIG"
    topic = doc["topics"][1]
    assert topic["config"] == {"retention.ms": "86400000"}
    assert topic["config_sources"] == {"retention.ms": "DYNAMIC_TOPIC_CONFIG"}
    assert parts(doc, "other")[0] == {"partition": 0, "replicas": [4, 5, 6], "isr": [4, 5],
                                      "leader": 4}
    assert doc["capture"] == {"tool": doc["capture"]["tool"], "reads": 1, "uncertain": 0}
    assert admin.calls.count("list_partition_reassignments") == 2  # before and after


def test_an_in_flight_reassignment_is_written_with_the_controllers_adding_and_removing():
    moves = {("tp", 0): moving([1, 2, 3, 4], adding=[4], removing=[1])}
    admin = RecordedAdmin(RACKS, [{"tp": [partition(0, [1, 2, 3, 4]),
                                          partition(1, [2, 3, 4])]}], [moves])
    p = parts(take(admin))[0]
    assert (p["replicas"], p["adding"], p["removing"]) == ([1, 2, 3, 4], [4], [1])
    assert "uncertain" not in p


def test_the_kip860_race_a_stale_describe_after_a_completed_reassignment_is_read_again():
    """describeTopics answers from a broker whose metadata still has the union [1..6] while
    the controller lists no reassignment: the partition is read again, and the second read
    is the truth."""
    stale = settled()
    stale["tp"][0] = partition(0, [1, 2, 3, 4, 5, 6])
    fresh = settled()
    fresh["tp"][0] = partition(0, [4, 5, 6])
    admin = RecordedAdmin(RACKS, [stale, fresh])
    doc = take(admin)
    assert parts(doc)[0]["replicas"] == [4, 5, 6] and "uncertain" not in parts(doc)[0]
    assert doc["capture"]["reads"] == 2
    assert admin.calls.count("list_partition_reassignments") == 4


def test_what_stays_inconsistent_is_marked_uncertain_after_bounded_retries_and_pl204_says_so(
        tmp_path):
    stale = settled()
    stale["tp"][0] = partition(0, [1, 2, 3, 4, 5, 6])
    admin = RecordedAdmin(RACKS, [stale])
    doc = take(admin, retries=2)
    p = parts(doc)[0]
    assert p["replicas"] == [1, 2, 3, 4, 5, 6]
    assert p["uncertain"] == ("described with 6 replicas, more than the topic's 3, while the "
                              "controller lists no reassignment")
    assert doc["capture"] == {**doc["capture"], "reads": 3, "uncertain": 1}
    assert admin.calls.count("list_partition_reassignments") == 6  # 1 read + 2 retries
    # the snapshot is valid, and linting a plan against it reports the partition
    (tmp_path / "snap.json").write_text(to_json(doc))
    (tmp_path / "plan.json").write_text(json.dumps({"version": 1, "partitions": [
        {"topic": "tp", "partition": 0, "replicas": [4, 5, 6, 1, 2, 3]}]}))
    result = lint([str(tmp_path / "plan.json")], cluster=str(tmp_path / "snap.json"),
                  select=["PL1", "PL204"])
    assert [f.rule for f in result.findings] == ["PL204"]
    assert "could not read it consistently" in result.findings[0].message
    snap = lint([str(tmp_path / "snap.json")], select=["PL1", "PL204"])
    assert [f.rule for f in snap.findings] == ["PL204"]


def test_a_reassignment_that_starts_between_the_two_lists_is_read_again():
    moves = {("tp", 1): moving([2, 3, 4, 5], adding=[5], removing=[2])}
    during = settled()
    during["tp"][1] = partition(1, [2, 3, 4, 5])
    # list 1: nothing; describe: not yet moving; list 2: moving; round 2: consistent
    admin = RecordedAdmin(RACKS, [settled(), during], [{}, moves, moves, moves])
    doc = take(admin)
    p = parts(doc)[1]
    assert (p["replicas"], p["adding"], p["removing"]) == ([2, 3, 4, 5], [5], [2])
    assert "uncertain" not in p and doc["capture"]["reads"] == 2


def test_a_describe_that_disagrees_with_the_controllers_reassignment_stays_uncertain():
    moves = {("tp", 1): moving([2, 3, 4, 5], adding=[5], removing=[2])}
    admin = RecordedAdmin(RACKS, [settled()], [moves])
    p = parts(take(admin, retries=1))[1]
    assert p["uncertain"] == ("described replicas [2, 3, 4] differ from the controller's "
                              "[2, 3, 4, 5]")
    assert "adding" not in p  # not written as if the controller's view were the described one


def test_no_retry_when_the_reads_agree_and_retries_zero_marks_at_once():
    stale = settled()
    stale["tp"][0] = partition(0, [1, 2, 3, 4, 5, 6])
    admin = RecordedAdmin(RACKS, [stale])
    assert parts(take(admin, retries=0))[0]["uncertain"]
    assert admin.calls.count("describe_topics") == 1


def test_topics_are_described_in_chunks_filtered_by_globs_and_a_deleted_topic_is_left_out():
    admin = generated(topics=25, partitions=2)
    done = []
    doc = take(admin, chunk=10, topics=["topic-0001*", "topic-00020"],
               progress=lambda d, n: done.append((d, n)))
    assert [t["name"] for t in doc["topics"]] == [f"topic-{i:05d}" for i in
                                                   list(range(10, 20)) + [20]]
    assert admin.calls.count("describe_topics") == 2 and done == [(10, 11), (11, 11)]

    class Deleting(RecordedAdmin):
        def describe_topics(self, topics):
            return [t for t in super().describe_topics(topics)] + [
                {"error_code": 3, "name": "gone", "partitions": []}]
    assert [t["name"] for t in take(Deleting(RACKS, [settled()]))["topics"]] == ["tp"]


def test_generated_cluster_of_reassigning_partitions_reads_consistently():
    doc = take(generated(topics=40, partitions=10))
    moving_ = [p for t in doc["topics"] for p in t["partitions"] if p.get("adding")]
    assert len(moving_) == 8 and doc["capture"]["uncertain"] == 0


def test_an_error_of_the_cluster_is_one_line_naming_what_is_missing():
    admin = RecordedAdmin(RACKS, [settled()],
                          fail={"describe_topics": TopicAuthorizationFailedError()})
    with pytest.raises(TopicAuthorizationFailedError) as err:
        take(admin)
    message = explain(err.value, "k:9092", 30000)
    assert message.startswith("access denied by the cluster at k:9092")
    assert "Describe" in message and "\n" not in message

    class Broken(RecordedAdmin):
        def describe_topics(self, topics):
            return [{"error_code": 29, "name": "tp", "partitions": []}]
    with pytest.raises(CaptureError, match="TopicAuthorizationFailedError"):
        take(Broken(RACKS, [settled()]))


# --- Kafka client properties ---------------------------------------------------------------

def props(tmp_path, text):
    path = tmp_path / "client.properties"
    path.write_text(text)
    return settings(read_properties(str(path)))


@pytest.mark.parametrize("module,mechanism", [
    ("org.apache.kafka.common.security.plain.PlainLoginModule", "PLAIN"),
    ("org.apache.kafka.common.security.scram.ScramLoginModule", "SCRAM-SHA-512")])
def test_sasl_plain_and_scram_properties_as_kafka_tools_read_them(tmp_path, module, mechanism):
    got = props(tmp_path, "# a comment\n! another\nsecurity.protocol=SASL_SSL\n"
                          f"sasl.mechanism : {mechanism}\n"
                          f"sasl.jaas.config={module} required \\\n"
                          '    username="alice" password="p=w;\\"d";\n'
                          "ssl.truststore.type=PEM\nssl.truststore.location=/ca.pem\n"
                          "ssl.endpoint.identification.algorithm=\nclient.id=ops\n")
    assert got == {"security_protocol": "SASL_SSL", "sasl_mechanism": mechanism,
                   "sasl_plain_username": "alice", "sasl_plain_password": 'p=w;\\"d',
                   "ssl_cafile": "/ca.pem", "ssl_check_hostname": False, "client_id": "ops"}


@pytest.mark.parametrize("text,reason", [
    ("ssl.truststore.location=/t.jks\nssl.truststore.type=JKS\n", "Python reads PEM"),
    ("sasl.jaas.config=com.sun.security.auth.module.Krb5LoginModule required;\n",
     "Krb5LoginModule is not supported"),
    ("sasl.jaas.config=garbage password=hunter2\n", "not a JAAS login module line"),
    ("security.protocol=SSLL\n", "security.protocol must be one of"),
    ("sasl.mechanism=OAUTHBEAR\n", "sasl.mechanism must be one of"),
    ("request.timeout.ms=soon\n", "must be a number"),
    ("bootstrap.servers=x\nfoo.bar=hunter2\n", "not supported: bootstrap.servers, foo.bar"),
])
def test_unsupported_properties_are_named_and_secrets_never_shown(tmp_path, text, reason):
    with pytest.raises(CaptureError) as err:
        props(tmp_path, text)
    assert reason in str(err.value) and "hunter2" not in str(err.value)


def test_a_missing_properties_file_is_one_line(tmp_path):
    with pytest.raises(CaptureError, match="--command-config .*No such file"):
        read_properties(str(tmp_path / "none.properties"))


def test_a_retry_takes_the_new_read_of_the_suspects_only():
    """Partition 1 was read consistently; while partition 0 is read again, partition 1
    starts moving: the snapshot keeps partition 1's first, consistent read."""
    stale = settled()
    stale["tp"][0] = partition(0, [1, 2, 3, 4, 5, 6])
    later = settled()
    later["tp"][0] = partition(0, [4, 5, 6])
    later["tp"][1] = partition(1, [2, 3, 4, 6])
    moves = {("tp", 1): moving([2, 3, 4, 6], adding=[6], removing=[2])}
    doc = take(RecordedAdmin(RACKS, [stale, later], [{}, {}, moves, moves]))
    assert parts(doc)[0]["replicas"] == [4, 5, 6]
    assert parts(doc)[1] == {"partition": 1, "replicas": [2, 3, 4], "isr": [2, 3, 4],
                             "leader": 2}


@pytest.mark.parametrize("args,reason", [
    (["lint", ".", "--cluster", "c.json", "--bootstrap-server", "k:9092"],
     "give --cluster or --bootstrap-server, not both"),
    (["lint", ".", "--command-config", "client.properties"],
     "--command-config goes with --bootstrap-server"),
    (["snapshot", "--bootstrap-server", "k:9092", "--timeout", "0"],
     "--timeout must be positive"),
])
def test_capture_options_that_do_not_fit_are_one_line(args, reason):
    from policylint.cli import run
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert run(args) == 2
    assert reason in err.getvalue() and err.getvalue().count("\n") == 1


@pytest.mark.parametrize("server", ["localhost:9092x", "localhost", ":9092", "k:0", "k:70000",
                                    "k:9092,bad"])
def test_a_bootstrap_server_that_is_no_host_and_port_is_a_usage_error(server):
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "policylint", "snapshot",
                           "--bootstrap-server", server], capture_output=True, text=True)
    assert done.returncode == 2 and "is not HOST:PORT" in done.stderr
    assert "| kafka" not in done.stderr  # refused before the client is imported


def test_a_refused_or_unknown_address_fails_before_the_client_waits():
    """The probe answers for a refused port and an unresolvable name before the admin
    client, which would wait the whole --timeout, is built."""
    import socket
    from policylint.capture.client import reachable
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for server, reason in ((f"127.0.0.1:{port}", "refused"), ("no-such-host.invalid:9092", "")):
        with pytest.raises(CaptureError, match=f"cannot reach the cluster at {server}.*{reason}"):
            reachable(server, 5)
    with socket.socket() as listening:  # one address of the list answers: on to the client
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        reachable(f"127.0.0.1:{port},127.0.0.1:{listening.getsockname()[1]}", 5)



def test_brokers_cordoned_log_directories_are_captured():
    """Kafka 4.3's cordoned.log.dirs (KIP-1066), with the broker's log.dirs: what PL124
    judges a plan's new replicas by; a broker that cordons none says nothing of it."""
    admin = RecordedAdmin(RACKS, [settled()], broker_config={
        "log.dirs": "/d1,/d2", "cordoned.log.dirs": "/d1", "min.insync.replicas": "2"})
    doc = take(admin, name="prod")
    assert doc["brokers"][0] == {"id": 1, "rack": "a", "log_dirs": ["/d1", "/d2"],
                                 "cordoned_log_dirs": ["/d1"]}
    quiet = take(RecordedAdmin(RACKS, [settled()], broker_config={"log.dirs": "/d1"}),
                 name="prod")
    assert quiet["brokers"][0] == {"id": 1, "rack": "a"}


@pytest.mark.parametrize("features, written, on", [
    ({"metadata.version": 27, "eligible.leader.replicas.version": 1},
     {"eligible.leader.replicas.version": 1, "metadata.version": 27}, True),
    ({"metadata.version": 27, "eligible.leader.replicas.version": None},  # not finalized
     {"eligible.leader.replicas.version": 0, "metadata.version": 27}, False),
    (None, None, None)])  # a broker that answers no DescribeFeatures: nothing said
def test_the_finalized_features_are_captured_and_say_whether_elr_is_on(features, written, on):
    from policylint.kafka import elr
    from policylint.sources import load, parse
    from policylint.sources.document import SourceFile
    admin = RecordedAdmin(RACKS, [settled()], features=features, version=(4, 1))
    doc = take(admin, name="prod")
    assert doc.get("features") == written
    snapshot = load([("s.json", True, parse(SourceFile("s.json", json.dumps(doc), "json")))])
    assert elr(snapshot.snapshots[0].profile)[0] is on
