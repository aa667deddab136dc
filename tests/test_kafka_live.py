"""Apache Kafka itself is the judge: every verdict of the corpus (tests/kafka_oracle.py) that
policylint gives, Kafka must give too, on the oldest and the newest release the config table
covers (bench/kafka_oracle.py asks every release between them)."""

from __future__ import annotations

import re

import pytest

from conftest import LIVE_RELEASES, own_kafka_cluster
from kafka_oracle import judged


@pytest.mark.parametrize("minor", LIVE_RELEASES)
def test_every_verdict_is_kafkas_own(kafka_cluster, minor, tmp_path):
    found = judged(kafka_cluster(minor), minor, tmp_path)
    assert found.cases >= 400 and found.altered >= 300 and found.brokers >= 10
    said = [f"{case.what}: Kafka {'refuses (' + k.why + ')' if k.refused else 'accepts'}, "
            f"policylint {'refuses (' + p.why + ')' if p.refused else 'accepts'}"
            for case, k, p in found.disagree]
    assert said == []
    assert found.keys == []  # every topic config Kafka lists, policylint knows
    assert found.captured == minor  # policylint snapshot names the release it runs
    # refusals of every kind were asked, not only acceptances
    assert {"PL203", "PL601", "PL602", "PL603"} <= set(found.by_rule)


def _policylint(*args, cwd):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-m", "policylint", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def _snapshot(cluster, path):
    done = _policylint("snapshot", "--bootstrap-server", cluster.bootstrap, "--cluster-name",
                       "live", "-o", path, cwd=path.parent)
    assert done.returncode == 0, done.stderr
    import json
    return json.loads(path.read_text())


REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"  # Kafka 4.x's tool


def test_a_plan_written_by_policylint_is_executed_by_kafkas_own_tool(tmp_path):
    """A rack-aware cluster of three brokers holding 300 partitions; broker 4 joins in rack a.
    policylint plans the expansion from a live snapshot; Kafka's kafka-reassign-partitions
    executes it with a throttle and verifies it until complete: the final assignment is the
    plan's, the throttle is set and then removed, and the snapshot taken afterwards lints
    clean."""
    import json
    import time

    from kafka.admin import NewTopic

    cluster = own_kafka_cluster("4.4")
    try:
        admin = cluster.admin()
        admin.create_topics([NewTopic(f"t{i}", 100, 2 + i % 2) for i in range(3)])
        admin.close()
        joined = cluster.add_broker("a")
        _snapshot(cluster, tmp_path / "before.json")
        done = _policylint("plan", "before.json", "--add", f"{joined}:a", "-o", "plan.json",
                           cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        planned = {(p["topic"], p["partition"]): p["replicas"]
                   for p in json.loads((tmp_path / "plan.json").read_text())["partitions"]}
        assert len(planned) >= 50 and any(joined in r for r in planned.values())
        run = cluster.tool(REASSIGN, "--bootstrap-server", cluster.bootstrap,
                           "--reassignment-json-file", str(tmp_path / "plan.json"), "--execute",
                           "--throttle", "50000000")
        assert run.returncode == 0 and "Successfully started" in run.stdout, run.stdout + run.stderr
        during = _snapshot(cluster, tmp_path / "during.json")
        throttled = [t["name"] for t in during["topics"]
                     if "leader.replication.throttled.replicas" in (t.get("config") or {})]
        assert throttled, "kafka-reassign-partitions --execute --throttle set no throttle"
        deadline = time.monotonic() + 300
        while True:
            verify = cluster.tool(REASSIGN, "--bootstrap-server", cluster.bootstrap,
                                  "--reassignment-json-file", str(tmp_path / "plan.json"),
                                  "--verify")
            if "is still in progress" not in verify.stdout or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert verify.returncode == 0 and "Clearing" in verify.stdout, verify.stdout
        after = _snapshot(cluster, tmp_path / "after.json")
        final = {(t["name"], p["partition"]): p["replicas"]
                 for t in after["topics"] for p in t["partitions"]}
        assert {k: final[k] for k in planned} == planned
        assert not any("leader.replication.throttled.replicas" in (t.get("config") or {})
                       for t in after["topics"])
        linted = _policylint("lint", "after.json", "--format", "json", cwd=tmp_path)
        errors = [f for f in json.loads(linted.stdout)["findings"] if f["severity"] == "error"]
        assert errors == [], errors
    finally:
        cluster.stop()


def test_the_seeds_on_a_running_kafka(tmp_path):
    """Seed 000 and KIP-352 on Kafka 4.4: a throttled reassignment held in flight is
    captured with its adding and removing replicas; a plan that would solidify its union is
    PL204 and one that changes an RF PL201, and Kafka's own AlterPartitionReassignments with
    allowReplicationFactorChange=false (KIP-860) refuses exactly the entries PL201 calls RF
    changes; a stopped broker makes a truly under-replicated partition that PL307 reports and
    the reassigning one it does not."""
    import json

    from kafka import KafkaProducer
    from kafka.admin import NewTopic

    cluster = own_kafka_cluster("4.4")
    try:
        admin = cluster.admin()
        admin.create_topics([NewTopic("moving", replica_assignments={0: [1, 2]}),
                             NewTopic("steady", replica_assignments={0: [1, 3]}),
                             NewTopic("kip860", replica_assignments={0: [1, 2], 1: [2, 3]})])
        admin.close()
        producer = KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all")
        for _ in range(3000):  # 3 MB to copy at 1 KB/s: in flight for the test's length
            producer.send("moving", b"x" * 1000, partition=0)
        producer.flush()
        producer.close()
        move = tmp_path / "move.json"
        move.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": "moving", "partition": 0, "replicas": [1, 3]}]}))
        run = cluster.tool(REASSIGN, "--bootstrap-server", cluster.bootstrap,
                           "--reassignment-json-file", str(move), "--execute",
                           "--throttle", "1000")
        assert run.returncode == 0, run.stdout + run.stderr
        captured = _snapshot(cluster, tmp_path / "snap.json")
        moving = next(t for t in captured["topics"] if t["name"] == "moving")["partitions"][0]
        assert (sorted(moving["replicas"]), moving["adding"], moving["removing"]) == \
            ([1, 2, 3], [3], [2])
        # the recorded double of the capture's race tests answers as this Kafka does
        from test_capture_broker import assert_the_double_answers_as
        admin = cluster.admin()
        try:
            assert_the_double_answers_as(admin, "moving")
        finally:
            admin.close()
        # a plan that keeps the in-flight union (seed 000), one that changes kip860-0's RF
        plan = tmp_path / "plan.json"
        plan.write_text(json.dumps({"version": 1, "partitions": [
            {"topic": "moving", "partition": 0, "replicas": [1, 3, 2]},
            {"topic": "kip860", "partition": 0, "replicas": [1, 2, 3]},
            {"topic": "kip860", "partition": 1, "replicas": [3, 1]}]}))
        linted = json.loads(_policylint("lint", "plan.json", "--cluster", "snap.json",
                                        "--format", "json", "--select", "PL201,PL204",
                                        cwd=tmp_path).stdout)["findings"]
        said = {(f["rule"], f["topic"], f["partition"]) for f in linted}
        assert said == {("PL204", "moving", 0), ("PL201", "moving", 0),
                        ("PL201", "kip860", 0)}
        # Kafka's own refusal of RF changes (KIP-860) on the entries that are not in flight
        kip860 = tmp_path / "kip860.json"
        kip860.write_text(json.dumps({"version": 1, "partitions": [
            p for p in json.loads(plan.read_text())["partitions"] if p["topic"] == "kip860"]}))
        run = cluster.tool(REASSIGN, "--bootstrap-server", cluster.bootstrap,
                           "--reassignment-json-file", str(kip860), "--execute",
                           "--additional", "--disallow-replication-factor-change")
        printed = run.stdout + run.stderr
        refused = dict(re.findall(r"kip860-(\d+): The (replication factor is changed from "
                                  r"\d+ to \d+)", printed))
        assert set(map(int, refused)) == {p for _, t, p in said if t == "kip860"}, printed
        # in Kafka's words, as PL201 says them
        pl201 = next(f["message"] for f in linted if f["rule"] == "PL201"
                     and f["topic"] == "kip860")
        assert refused["0"] in pl201
        # KIP-352: broker 3 stopped; steady-0 is truly under-replicated, moving-0 is not
        cluster.stop_broker(3)
        cluster.wait_for({1, 2})
        _snapshot(cluster, tmp_path / "down.json")
        under = json.loads(_policylint("lint", "down.json", "--format", "json", "--select",
                                       "PL307", cwd=tmp_path).stdout)["findings"]
        assert {(f["topic"], f["partition"]) for f in under} >= {("steady", 0)}
        assert ("moving", 0) not in {(f["topic"], f["partition"]) for f in under}
    finally:
        cluster.stop()
