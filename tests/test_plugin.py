"""A third-party rule pack end to end: the example pack (examples/plugin, installed for the
whole suite by conftest) goes through the same doors as the built-in pack: rules, explain,
lint with a policy option and a suppression, SARIF rule metadata, a reporter, and the audit,
natively for a rule with a Spark form and through the generic path for one without."""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from policylint.cli import app

from conftest import write_files

TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: {name}
spec: {{partitions: 3, replicas: 3, config: {{min.insync.replicas: 2}}}}
"""
SNAPSHOT = {"kind": "ClusterSnapshot", "version": 1, "cluster": "prod",
            "captured_at": "2026-11-21T00:00:00Z",
            "brokers": [{"id": 1}, {"id": 2}, {"id": 3}],
            "topics": [{"name": "payments.orders", "config": {"min.insync.replicas": "2"},
                        "partitions": [{"partition": p, "replicas": [1, 2, 3],
                                        "isr": [1, 2, 3]} for p in range(3)]}]}


def policylint(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "policylint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path):
    write_files(tmp_path, {
        "topics/orders.yaml": TOPIC.format(name="orders"),
        "topics/legacy.yaml": TOPIC.format(
            name="legacy  # policylint: disable=ACME001 owned by the platform team"),
        "topics/billing.yaml": TOPIC.format(name="billing.invoices"),
        ".policylint.yaml": "rules:\n  topic-prefix: {prefixes: [billing., payments.]}\n",
    })
    return tmp_path


def test_rules_and_explain_list_the_pack():
    listed = policylint("rules").stdout
    for line in ("ACME001  topic-prefix", "ACME101  reserved-broker", "ACME102  too-many-"):
        assert line in listed
    explained = policylint("explain", "reserved-broker")
    assert explained.returncode == 0
    assert "ACME101 reserved-broker (default severity: warning)" in explained.stdout
    assert "## Options" in explained.stdout and "`reserved`" in explained.stdout


def test_lint_with_a_policy_option_and_a_suppression(repo):
    done = policylint("lint", "topics", "--format", "json", cwd=repo)
    assert done.returncode == 1, done.stderr
    acme = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "ACME001"]
    assert [(f["file"], f["line"], f["column"], f["suppressed"]) for f in acme] == [
        ("topics/legacy.yaml", 4, 9, True), ("topics/orders.yaml", 4, 9, False)]
    assert acme[1]["message"] == ("topic orders starts with none of the team prefixes "
                                  "(billing., payments.)")


def test_sarif_describes_the_pack_and_its_reporter_works(repo):
    sarif = json.loads(policylint("lint", "topics", "--format", "sarif", cwd=repo).stdout)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["ACME001"]["name"] == "topic-prefix"
    assert rules["ACME001"]["defaultConfiguration"] == {"level": "error"}
    assert "ACME grants access by prefix" in rules["ACME001"]["help"]["text"]
    csv = policylint("lint", "topics", "--select", "ACME", "--format", "csv", cwd=repo).stdout
    assert csv.splitlines()[0].startswith("rule,severity,file,line,column")
    assert "ACME001,error,topics/orders.yaml,4,9,orders,," in csv


def test_audit_runs_the_pack_natively_and_through_the_generic_path(spark, tmp_path):
    write_files(tmp_path, {"fleet/prod.json": json.dumps(SNAPSHOT),
                           "policy.yaml": "rules:\n  ACME101: {reserved: [3]}\n"
                                          "  ACME102: {max: 2}\n"})
    for engine in ("spark", "spark-generic", "local"):
        out = tmp_path / engine
        run = CliRunner().invoke(app, ["audit", str(tmp_path / "fleet"), "--output", str(out),
                                       "--format", "json", "--select", "ACME",
                                       "--policy", str(tmp_path / "policy.yaml"),
                                       "--engine", engine, "--verbose"])
        assert run.exit_code == 0, run.output
        stages = [line for line in run.stderr.splitlines() if line.startswith("policylint: rules")]
        if engine == "spark":
            assert stages == ["policylint: rules ACME101: Spark SQL",
                              "policylint: rules ACME102: the generic Python path, one "
                              "snapshot at a time"]
        rows = [json.loads(line) for part in sorted((out / "findings").rglob("*.json"))
                for line in part.read_text().splitlines()]
        assert sorted((r["rule"], r.get("partition")) for r in rows) == [
            ("ACME101", 0), ("ACME101", 1), ("ACME101", 2), ("ACME102", None)]
        assert f"policylint: engine: {engine}: as asked (--engine)" in run.stderr


BROKEN = {
    "broken_pack.py": "raise RuntimeError('the pack is broken')\n",
    "broken_pack-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: broken-pack\n"
                                          "Version: 0.1\n",
    "broken_pack-0.1.dist-info/entry_points.txt": "[policylint.rules]\nbroken = broken_pack\n",
}


@pytest.mark.parametrize("args", [["lint", "."], ["rules"], ["explain", "PL201"],
                                  ["audit", ".", "--output", "out"]])
def test_a_broken_pack_is_exit_2_with_one_line(tmp_path, args):
    write_files(tmp_path / "site", BROKEN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    done = policylint(*args, cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "policylint: error: rule plugin broken (broken_pack) failed to load: RuntimeError: "
        "the pack is broken"]


LEGACY = {
    "legacy_pack/__init__.py": "",
    "legacy_pack/naming/__init__.py": "",
    # a family sub-package, written as packs were before Reads: class attributes
    "legacy_pack/naming/team901_short_names.py": '''
        from policylint.rule import Rule


        class ShortNames(Rule):
            """Topic names of at most 8 characters."""
            code, name, severity = "TEAM901", "short-names", "error"
            targets = ("manifest", "snapshot")
            reads_partitions = False
            needs = frozenset({"name"})

            def check(self, target, ctx, options):
                names = [t.name for t in target.topics.values()] if hasattr(target, "topics") \\
                    else [target.name]
                for name in names:
                    if len(name) > 8:
                        yield self.finding(f"topic {name}: name longer than 8", topic=name)
        ''',
    "legacy_pack-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: legacy-pack\n"
                                          "Version: 0.1\n",
    "legacy_pack-0.1.dist-info/entry_points.txt": "[policylint.rules]\nlegacy = legacy_pack\n",
}


def test_a_pack_in_families_with_class_attributes_is_read_as_it_declares(tmp_path):
    """Sub-packages of a pack are walked, and what a rule reads written as class attributes
    (before ``Reads``) is its ``reads``: judged only where it says, as it says."""
    write_files(tmp_path / "site", LEGACY)
    write_files(tmp_path, {"topics/a.yaml": TOPIC.format(name="payments.orders"),
                           "topics/b.yaml": TOPIC.format(name="short")})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    done = policylint("lint", "topics", "--select", "TEAM901", "--format", "json",
                      cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    found = [(f["rule"], f["topic"]) for f in json.loads(done.stdout)["findings"]]
    assert found == [("TEAM901", "payments.orders")]
    probe = ("from policylint.registry import all_rules; r = all_rules()['TEAM901'].reads; "
             "print(r.targets, r.partitions, sorted(r.needs))")
    shown = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, cwd=tmp_path)
    assert shown.stdout.split("\n")[0] == "('manifest', 'snapshot') False ['name']", shown.stderr


def test_a_rule_that_reads_what_no_engine_passes_is_exit_2_with_one_line(tmp_path):
    """A rule's ``reads`` is checked when its pack loads: a target or a Spark frame no
    engine knows is the pack's error, said once, not a rule that silently never runs."""
    write_files(tmp_path / "site", {
        "odd_pack.py": """
            from policylint.rule import Reads, Rule


            class Odd(Rule):
                code, name = "ODD001", "odd"
                reads = Reads(targets=("manifests",), spark_frame="rows")
            """,
        "odd_pack-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: odd-pack\n"
                                           "Version: 0.1\n",
        "odd_pack-0.1.dist-info/entry_points.txt": "[policylint.rules]\nodd = odd_pack\n"})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    done = policylint("rules", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "policylint: error: rule plugin odd (odd_pack): odd_pack.Odd: reads.targets must be "
        "a tuple among manifest, plan, snapshot, profile, run; reads.spark_frame must be one "
        "of replica_sets, partitions, topics, clusters, configs, names"]
