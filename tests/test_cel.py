"""A team's own rules in CEL (policy ``cel_rules``): what they see, where they report, how a
broken one is refused, and that they find what the built-ins they restate find."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

pytest.importorskip("cel_expr_python")

from policylint.linter import lint  # noqa: E402
from policylint.policy import PolicyError, load  # noqa: E402

from conftest import write_files  # noqa: E402

ROOT = Path(__file__).parent.parent
CONFORMANCE = Path(__file__).parent / "data/cel/conformance.yaml"
SARIF_SCHEMA = json.loads((Path(__file__).parent / "data/sarif-schema-2.1.0.json").read_text())

TEAM = """\
cel_rules:
  - code: PAY101
    name: payments-durability
    description: Payments topics need RF 3 and min.insync.replicas 2.
    applies_to: topics
    matchConditions:
      - name: payments
        expression: topic.name.startsWith("payments.")
    validations:
      - expression: topic.rf >= 3
        message: payments topics need RF 3
        field: rf
      - expression: topic.config["min.insync.replicas"] >= 2
        messageExpression: '"min.insync.replicas is " + string(topic.config["min.insync.replicas"])'
        field: config.min.insync.replicas
"""

TOPIC = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: {name}
  labels: {{strimzi.io/cluster: prod}}
spec:
  partitions: 6
  replicas: {rf}
  config:
    min.insync.replicas: {min_isr}
"""


def found(result, prefix="PAY"):
    return sorted((f.rule, f.file, f.line, f.column, f.severity) for f in result.findings
                  if f.rule.startswith(prefix))


def test_team_rule_reports_at_the_fields_it_names(tmp_path, monkeypatch):
    write_files(tmp_path, {".policylint.yaml": TEAM,
                           "pay.yaml": TOPIC.format(name="payments.in", rf=2, min_isr=1),
                           "ok.yaml": TOPIC.format(name="payments.ok", rf=3, min_isr=2),
                           "other.yaml": TOPIC.format(name="clicks", rf=1, min_isr=1)})
    monkeypatch.chdir(tmp_path)
    result = lint(["."], select=["PAY"])
    assert found(result) == [("PAY101", "pay.yaml", 8, 13, "error"),
                             ("PAY101", "pay.yaml", 10, 26, "error")]
    messages = sorted(f.message for f in result.findings)
    assert messages == ["topic payments.in: min.insync.replicas is 1",
                        "topic payments.in: payments topics need RF 3"]


def test_unknown_values_are_unchecked_never_findings(tmp_path, monkeypatch):
    write_files(tmp_path, {".policylint.yaml": TEAM,
                           "pay.yaml": TOPIC.format(name="payments.in", rf="${RF}",
                                                    min_isr=2)})
    monkeypatch.chdir(tmp_path)
    result = lint(["."], select=["PAY"])
    assert found(result) == []
    assert result.unchecked.get("PAY101") == 1  # the template placeholder: not judged


def test_evaluation_error_is_a_note_of_the_rule(tmp_path, monkeypatch):
    policy = TEAM.replace('topic.rf >= 3', 'int(topic.name) > 0')
    write_files(tmp_path, {".policylint.yaml": policy,
                           "pay.yaml": TOPIC.format(name="payments.in", rf=3, min_isr=2)})
    monkeypatch.chdir(tmp_path)
    result = lint(["."], select=["PAY"])
    [note] = result.findings
    assert note.severity == "note" and "could not be evaluated" in note.message


@pytest.mark.parametrize("policy, severity, message, unchecked", [
    ("failurePolicy: Fail", "error", "topic payments.in: PAY101 could not be evaluated: ", 0),
    ("failurePolicy: Fail\n    failureMessage: the topic name must be a number",
     "error", "topic payments.in: the topic name must be a number: ", 0),
    ("failureMessage: the topic name must be a number", "note",
     "topic payments.in: the topic name must be a number: ", 0),
    ("failurePolicy: Ignore", None, None, 1)])
def test_a_rule_that_fails_to_apply_says_what_its_policy_says(
        policy, severity, message, unchecked, tmp_path, monkeypatch):
    """ValidatingAdmissionPolicy's failurePolicy: Fail reports a subject the rule cannot
    evaluate at the rule's severity, Ignore counts it unchecked; failureMessage is said."""
    rules = TEAM.replace('topic.rf >= 3', 'int(topic.name) > 0').replace(
        "    applies_to: topics\n", f"    applies_to: topics\n    {policy}\n")
    write_files(tmp_path, {".policylint.yaml": rules,
                           "pay.yaml": TOPIC.format(name="payments.in", rf=3, min_isr=2)})
    monkeypatch.chdir(tmp_path)
    result = lint(["."], select=["PAY"])
    assert [(f.severity, f.message[:len(message)]) for f in result.findings] == \
        ([] if severity is None else [(severity, message)])
    assert result.unchecked.get("PAY101", 0) == unchecked


@pytest.mark.parametrize("expression, where, words", [
    ("topic.rf >=", ":10:32", "Syntax error"),
    ("topic.nmae == 'x'", ":10:27", "topic has no field 'nmae'"),
    ("entry.replicas.size() > 0", ":10:26", "undeclared reference to 'entry"),
    ("topic.rf + 1", ":10:21", "gives int, not a bool"),
    ("'[1].all(a, [1].all(b, [1].all(c, a == b)))'", ":10:22", "nested 3 deep"),
])
def test_a_broken_rule_is_a_policy_error_at_its_line(tmp_path, expression, where, words):
    policy = TEAM.replace("topic.rf >= 3", expression)
    path = tmp_path / ".policylint.yaml"
    path.write_text(policy)
    with pytest.raises(PolicyError) as raised:
        load(str(path))
    assert where in str(raised.value) and words in str(raised.value), str(raised.value)
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "--policy", str(path),
                           str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr


def test_codes_of_the_team_only(tmp_path):
    path = tmp_path / ".policylint.yaml"
    path.write_text(TEAM.replace("PAY101", "PL999"))
    with pytest.raises(PolicyError, match="does not match"):
        load(str(path))
    path.write_text(TEAM.replace("payments-durability", "min-isr-exceeds-rf"))
    with pytest.raises(PolicyError, match="is taken by the rule PL301"):
        load(str(path))


def test_everything_a_built_in_has(tmp_path, monkeypatch):
    """Severity override, --select/--ignore, inline suppression, baseline, explain, SARIF."""
    policy = TEAM + "rules:\n  PAY101: {severity: warning}\n"
    pay = TOPIC.format(name="payments.in", rf=2, min_isr=2).replace(
        "  replicas: 2", "  # policylint: disable=PAY101 agreed with the payments team\n"
                         "  replicas: 2")
    write_files(tmp_path, {".policylint.yaml": policy, "pay.yaml": pay,
                           "pay2.yaml": TOPIC.format(name="payments.b", rf=2, min_isr=2)})
    monkeypatch.chdir(tmp_path)
    result = lint(["."], select=["PAY"])
    active = [f for f in result.findings if not f.suppressed]
    assert [(f.file, f.severity) for f in active] == [("pay2.yaml", "warning")]
    assert [f.justification for f in result.findings if f.suppressed] == \
        ["agreed with the payments team"]
    assert not [f for f in lint(["."], ignore=["PAY1"]).findings if f.rule == "PAY101"]
    cli = [sys.executable, "-m", "policylint"]
    assert subprocess.run(cli + ["lint", ".", "--select", "PAY", "--write-baseline",
                                 "base.json"], capture_output=True).returncode == 0
    again = subprocess.run(cli + ["lint", ".", "--select", "PAY", "--baseline", "base.json"],
                           capture_output=True, text=True)
    assert again.returncode == 0 and "PAY101" not in again.stdout
    explained = subprocess.run(cli + ["explain", "PAY101"], capture_output=True, text=True)
    assert "Payments topics need RF 3" in explained.stdout
    assert 'topic.config["min.insync.replicas"] >= 2' in explained.stdout
    sarif = json.loads(subprocess.run(cli + ["lint", ".", "--select", "PAY", "--format",
                                             "sarif"], capture_output=True, text=True).stdout)
    jsonschema.validate(sarif, SARIF_SCHEMA)
    [rule] = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "PAY101"]
    assert rule["id"] == "PAY101" and "Payments" in rule["shortDescription"]["text"]


def test_plan_entries_partitions_and_clusters(tmp_path, monkeypatch):
    policy = """\
cel_rules:
  - code: OPS1
    name: no-broker-one
    applies_to: plan_entries
    validations:
      - expression: '!(1 in entry.replicas) || (has(entry.before) && 1 in entry.before)'
        message: no new replica on broker 1
  - code: OPS2
    name: isr-complete
    applies_to: partitions
    validations:
      - expression: '!has(partition.isr) || partition.isr.size() == partition.replicas.size()'
        message: ISR incomplete
  - code: OPS3
    name: racks-three
    applies_to: clusters
    validations:
      - expression: cluster.racks.size() >= 3
        message: three racks wanted
"""
    snap = """\
kind: ClusterSnapshot
version: 1
cluster: c1
brokers: [{id: 1, rack: a}, {id: 2, rack: b}, {id: 3, rack: a}]
topics:
  - name: t
    partitions:
      - {partition: 0, replicas: [2, 3], isr: [2]}
      - {partition: 1, replicas: [1, 2], isr: [1, 2]}
"""
    plan = ('{"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 3]},'
            ' {"topic": "t", "partition": 1, "replicas": [2, 1]}]}\n')
    write_files(tmp_path, {".policylint.yaml": policy, "snap.yaml": snap, "plan.json": plan})
    monkeypatch.chdir(tmp_path)
    result = lint(["plan.json", "snap.yaml"], cluster="snap.yaml", select=["OPS"])
    assert sorted((f.rule, f.file, f.topic, f.partition) for f in result.findings) == [
        ("OPS1", "plan.json", "t", 0), ("OPS2", "snap.yaml", "t", 0),
        ("OPS3", "snap.yaml", None, None)]


def test_diff_mode_sees_the_change(tmp_path, monkeypatch):
    policy = """\
cel_rules:
  - code: OPS9
    name: no-partition-growth-over-double
    applies_to: changes
    validations:
      - expression: change.after.partitions <= 2 * change.before.partitions
        message: partitions more than doubled
"""
    write_files(tmp_path, {".policylint.yaml": policy,
                           "t.yaml": TOPIC.format(name="orders", rf=3, min_isr=2)})
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(git + ["add", "."], cwd=tmp_path, check=True)
    subprocess.run(git + ["commit", "-qm", "base"], cwd=tmp_path, check=True)
    (tmp_path / "t.yaml").write_text(TOPIC.format(name="orders", rf=3, min_isr=2)
                                     .replace("partitions: 6", "partitions: 24"))
    monkeypatch.chdir(tmp_path)
    result = lint(["t.yaml"], base="HEAD", select=["OPS"])
    assert [(f.rule, f.file, f.line) for f in result.findings] == [("OPS9", "t.yaml", 4)]


def test_no_cel_import_without_cel_rules(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC.format(name="orders", rf=3, min_isr=2)})
    code = ("import sys; from policylint.cli import run; run(['lint', '.']); "
            "print('cel_expr_python' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.stdout.strip().endswith("False"), done.stdout + done.stderr


# -- conformance: built-ins restated in CEL find what they find ---------------------------

def _subjects(result, code: str) -> set:
    out = set()
    for f in result.findings:
        if f.rule != code:  # suppressed or not: the CEL rule's code is another
            continue
        doc = f.at[0] if f.at else None
        data = doc.data if doc is not None else None
        on_plan = isinstance(data, dict) and "partitions" in data and "topics" not in data
        if code[-3:] in ("112", "113") and not on_plan or \
                code[-3:] not in ("112", "113") and on_plan:
            continue  # the CEL rule restates the built-in on these subjects only
        for s in f.subjects or [{"topic": f.topic, "file": f.file}]:
            out.add((s["topic"], f.partition, s["file"]))
    return out


CODES = ["301", "302", "303", "209", "203", "701", "702", "703", "706", "707", "112", "113",
         "307"]
TREES = [ROOT / "examples", ROOT / "tests/realworld", ROOT.parent / "shared/realworld"]


@pytest.mark.parametrize("tree", [t for t in TREES if t.is_dir()], ids=lambda t: t.name)
def test_conformance(tree, monkeypatch):
    monkeypatch.chdir(tree)
    built_in = lint(["."], policy=str(CONFORMANCE), select=[f"PL{c}" for c in CODES])
    cel = lint(["."], policy=str(CONFORMANCE), select=[f"CEL{c}" for c in CODES])
    compared = 0
    for code in CODES:
        expected, got = _subjects(built_in, f"PL{code}"), _subjects(cel, f"CEL{code}")
        assert got == expected, f"CEL{code}: {sorted(got ^ expected)[:5]}"
        compared += len(expected)
    assert compared > 5  # the tree has something these rules find


def test_a_rule_past_the_evaluators_budget_is_a_note(tmp_path, monkeypatch):
    big = "[" + ", ".join(map(str, range(3000))) + "]"
    policy = TEAM.replace("topic.rf >= 3", f"'{big}.all(x, {big}.exists(y, y >= x))'")
    write_files(tmp_path, {".policylint.yaml": policy,
                           "pay.yaml": TOPIC.format(name="payments.in", rf=3, min_isr=2)})
    monkeypatch.chdir(tmp_path)
    [note] = lint(["."], select=["PAY"]).findings
    assert note.severity == "note" and "budget" in note.message


def test_the_example_team_rules(monkeypatch):
    monkeypatch.chdir(ROOT / "examples/team-rules")
    result = lint(["."], select=["TEAM"])
    assert sorted((f.rule, f.line, f.topic) for f in result.findings) == [
        ("TEAM101", 10, "payments.settlements"), ("TEAM101", 12, "payments.settlements"),
        ("TEAM102", 21, "clickstream.raw"), ("TEAM103", 24, "clickstream.raw")]


def test_kubernetes_spellings(tmp_path, monkeypatch):
    policy = TEAM.replace("applies_to: topics", "appliesTo: topic").replace(
        "matchConditions:", "match_conditions:").replace("messageExpression:",
                                                         "message_expression:")
    write_files(tmp_path, {".policylint.yaml": policy,
                           "pay.yaml": TOPIC.format(name="payments.in", rf=2, min_isr=1)})
    monkeypatch.chdir(tmp_path)
    assert [f.line for f in lint(["."], select=["PAY"]).findings] == [8, 10]


# -- as a ValidatingAdmissionPolicy user expects (each of these failed before) -------------

def _policy(tmp_path, text):
    path = tmp_path / ".policylint.yaml"
    path.write_text(text)
    return path


def test_each_validation_is_judged_on_its_own(tmp_path, monkeypatch):
    """The first reads an RF no input gives (unknown), the second is plainly false."""
    _policy(tmp_path, """cel_rules:
  - code: TEAM001
    name: two-checks
    applies_to: topics
    validations:
      - expression: topic.rf >= 3
      - expression: '!("unclean.leader.election.enable" in topic.config) ||
          topic.config["unclean.leader.election.enable"] != true'
        message: unclean leader election is on
""")
    write_files(tmp_path, {"t.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                     "metadata: {name: t}\nspec:\n  partitions: 1\n  config: "
                                     "{unclean.leader.election.enable: true}\n"})
    monkeypatch.chdir(tmp_path)
    result = lint(["t.yaml"], select=["TEAM"])
    assert [f.message for f in result.findings] == ["topic t: unclean leader election is on"]
    assert result.unchecked["TEAM001"] == 1  # the first, for this subject


@pytest.mark.parametrize("text, words, where", [
    ("""cel_rules:
  - {code: TEAM001, name: same, applies_to: topics, validations: [{expression: "true"}]}
  - {code: TEAM002, name: same, applies_to: topics, validations: [{expression: "true"}]}
""", "same is the name of an earlier CEL rule", ":3:"),
    ("""cel_rules:
  - code: TEAM001
    name: backreference
    applies_to: topics
    validations:
      - expression: |
          topic.name.size() > 0 &&
            topic.name.matches("(a)\\\\1")
""", "invalid regular expression", ":8:32"),
    ("""cel_rules:
  - code: TEAM001
    name: continuation
    applies_to: topics
    validations:
      - expression: |
          topic.name.size() > 0 &&
            topic.nmae == 'x'
""", "topic has no field 'nmae'", ":8:19"),
    ("""cel_rules:
  - {code: TEAM001, name: field, applies_to: topics, validations: [{expression: topic.rf}]}
""", "gives int, not a bool", ":2:"),
    ("""cel_rules:
  - code: TEAM001
    name: message
    applies_to: partitions
    validations: [{expression: "true", messageExpression: partition.replicas}]
""", "gives list<dyn>, not a string", ":5:"),
    ("""cel_rules:
  - code: TEAM001
    name: variable
    applies_to: clusters
    variables: [{name: n, expression: cluster.broker_count}]
    validations: [{expression: variables.n}]
""", "gives int, not a bool", ":6:"),
])
def test_policy_errors_are_refused_at_load_where_they_are(tmp_path, text, words, where):
    path = _policy(tmp_path, text)
    with pytest.raises(PolicyError) as raised:
        load(str(path))
    assert words in str(raised.value) and where in str(raised.value), str(raised.value)


THREE_RACKS = """cel_rules:
  - code: TEAM001
    name: three-racks
    applies_to: clusters
    validations:
      - expression: size(cluster.racks) >= 3
        message: the cluster spans fewer than 3 racks
"""


def test_values_no_input_states_are_absent(tmp_path, monkeypatch):
    """A Strimzi cluster whose racks come from a topologyKey: no rack is known, so
    cluster.racks is absent (unchecked), not an empty list (3 brokers in 0 racks)."""
    _policy(tmp_path, THREE_RACKS)
    write_files(tmp_path, {"kafka.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\n"
                           "metadata: {name: prod}\nspec:\n  kafka:\n    replicas: 3\n"
                           "    rack: {topologyKey: topology.kubernetes.io/zone}\n"})
    monkeypatch.chdir(tmp_path)
    result = lint(["kafka.yaml"], select=["TEAM"])
    assert result.findings == [] and result.unchecked["TEAM001"] == 1


@pytest.mark.parametrize("pools", [False, True])
def test_a_strimzi_cluster_without_rack_configuration_has_no_racks(tmp_path, monkeypatch,
                                                                   pools):
    """Without spec.kafka.rack Strimzi sets no broker.rack: the racks are known, and none
    (judged: 0 racks), with or without node pools."""
    _policy(tmp_path, THREE_RACKS)
    kafka = ("apiVersion: kafka.strimzi.io/v1\nkind: Kafka\nmetadata: {name: prod}\n"
             "spec:\n  kafka: {}\n---\napiVersion: kafka.strimzi.io/v1\nkind: KafkaNodePool\n"
             "metadata: {name: b, labels: {strimzi.io/cluster: prod}}\n"
             "spec: {replicas: 3, roles: [broker]}\n") if pools else \
        "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata: {name: prod}\n" \
        "spec:\n  kafka:\n    replicas: 3\n"
    write_files(tmp_path, {"kafka.yaml": kafka})
    monkeypatch.chdir(tmp_path)
    result = lint(["kafka.yaml"], select=["TEAM"])
    assert [f.rule for f in result.findings] == ["TEAM001"]
    assert not result.unchecked.get("TEAM001")


def test_topicctl_labels_reach_the_subject(tmp_path, monkeypatch):
    _policy(tmp_path, """cel_rules:
  - code: TEAM001
    name: owner
    applies_to: topics
    validations:
      - expression: '"owner" in topic.labels'
        message: no owner label
""")
    write_files(tmp_path, {"t.yaml": "meta:\n  name: orders\n  cluster: c\n  labels: "
                           "{owner: payments}\nspec:\n  partitions: 3\n  replicationFactor: 3\n",
                           "u.yaml": "meta:\n  name: other\n  cluster: c\nspec:\n  partitions: 3\n"
                           "  replicationFactor: 3\n"})
    monkeypatch.chdir(tmp_path)
    assert [f.file for f in lint(["."], select=["TEAM"]).findings] == ["u.yaml"]


def test_variables_params_per_cluster_and_object_names(tmp_path, monkeypatch):
    """ValidatingAdmissionPolicy's variables, parameters (a cluster's over the rule's) and
    object/oldObject in diff mode."""
    from conftest import git_commit
    _policy(tmp_path, """cel_rules:
  - code: TEAM001
    name: partition-limit
    applies_to: topics
    params: {max: 10}
    cluster_params: {small: {max: 2}}
    variables:
      - name: count
        expression: topic.partitions
      - name: over
        expression: variables.count > params.max
    validations:
      - expression: '!variables.over'
        messageExpression: '"at most " + string(params.max) + " partitions, not " +
          string(variables.count)'
  - code: TEAM002
    name: no-shrink
    applies_to: changes
    validations:
      - expression: oldObject == null || object.partitions >= oldObject.partitions
        message: partitions shrink
""")
    topic = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata:\n  name: {name}\n"
             "  labels: {{strimzi.io/cluster: {cluster}}}\nspec: {{partitions: {n}, replicas: 1}}\n")
    kafka = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata: {{name: {name}}}\n"
             "spec:\n  kafka:\n    replicas: 1\n")
    write_files(tmp_path, {"small/kafka.yaml": kafka.format(name="small"),
                           "small/t.yaml": topic.format(name="a", cluster="small", n=5),
                           "big/kafka.yaml": kafka.format(name="big"),
                           "big/t.yaml": topic.format(name="b", cluster="big", n=5)})
    git_commit(tmp_path, "base")
    write_files(tmp_path, {"big/t.yaml": topic.format(name="b", cluster="big", n=4)})
    monkeypatch.chdir(tmp_path)
    found = sorted((f.rule, f.file, f.message) for f in
                   lint(["."], select=["TEAM"], base="HEAD").findings)
    assert found == [("TEAM001", "small/t.yaml", "topic a: at most 2 partitions, not 5"),
                     ("TEAM002", "big/t.yaml", "topic b: partitions shrink")]


def test_the_summary_says_what_a_cel_rule_could_not_read(tmp_path, monkeypatch):
    """Not "a template placeholder" whatever the cause: the value the rule's subjects
    lack, as its evaluation says."""
    from typer.testing import CliRunner
    from policylint.cli import app
    write_files(tmp_path, {".policylint.yaml": (
        "cel_rules:\n  - code: TEAM001\n    name: retention\n    applies_to: topics\n"
        "    validations:\n      - expression: topic.config['retention.ms'] > 1000\n"),
        "t.yaml": TOPIC.format(name="t", rf=3, min_isr=2)})
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["lint", ".", "--select", "TEAM"]).stdout
    assert 'TEAM001 could not be checked for 1 subject: a value it reads that no input ' \
           'states (Key not found in map : "retention.ms").' in out


# -- verdicts shared by batches (one program per applies_to) and kept per shape ------------

@pytest.mark.parametrize("texts, reads", [
    (["topic.rf >= 3 && has(topic.partitions)"], {"topic": ("partitions", "rf")}),
    (['topic.?rf.orValue(1) > 0', '"topic.name" != ""'], {"topic": ("rf",)}),
    (['topic["rf"] >= 3'], None),  # the map read whole
    (["size(cluster) > 0 || topic.rf > 1"], None),
    (["topic.config.exists(k, k == 'a') && cluster.broker_count > 2"],
     {"topic": ("config",), "cluster": ("broker_count",)}),
    (["[1, 2].all(x, x > 0)"], {}),
])
def test_what_a_rule_reads(texts, reads):
    from policylint.cel import fields_read
    assert fields_read(texts, ("topic", "cluster")) == reads


def test_a_verdict_kept_by_shape_is_that_shape_s_alone(tmp_path, monkeypatch):
    """Topics alike but for the partitions a rule reads, and partitions alike but for their
    topic's config: each is judged by its own values."""
    _policy(tmp_path, """cel_rules:
  - {code: TEAM1, name: few, applies_to: topics,
     validations: [{expression: 'topic.partitions <= 1', message: too many}]}
  - {code: TEAM2, name: no-compact, applies_to: topics,
     validations: [{expression: '!("compact" in topic.config["cleanup.policy"])',
                    message: compacted}]}
  - {code: TEAM3, name: room, applies_to: partitions,
     validations: [{expression:
       'partition.replicas.size() > topic.config[?"min.insync.replicas"].orValue(1)',
       message: no room}]}
""")
    topics = [{"name": name, "config": {"cleanup.policy": policy, "min.insync.replicas": isr},
               "partitions": [{"partition": i, "replicas": [1, 2]} for i in range(n)]}
              for name, n, policy, isr in (("a", 1, "delete", 1), ("b", 2, "delete", 1),
                                           ("c", 1, "compact", 1), ("d", 1, "delete", 2),
                                           ("e", 1, "delete", 1))]
    write_files(tmp_path, {"snap.json": json.dumps({
        "kind": "ClusterSnapshot", "version": 1, "cluster": "c",
        "brokers": [{"id": 1}, {"id": 2}], "topics": topics})})
    monkeypatch.chdir(tmp_path)
    got = sorted((f.rule, f.topic) for f in lint(["."], select=["TEAM"]).findings)
    assert got == [("TEAM1", "b"), ("TEAM2", "c"), ("TEAM3", "d")]


@pytest.mark.parametrize("tree", [t for t in TREES if t.is_dir()], ids=lambda t: t.name)
def test_batched_verdicts_are_each_rule_s_own(tree, monkeypatch):
    """The conformance rules and the example team rules, judged together (batches, verdicts
    per shape) and each on its own, find and leave unchecked the same."""
    import policylint.cel.compile as cel
    monkeypatch.chdir(tree)

    def judged():
        return [sorted((f.rule, f.file, f.line, f.column, f.message) for f in result.findings)
                + sorted(map(str, result.unchecked_subjects)) + [result.unchecked]
                for result in (lint(["."], policy=str(policy)) for policy in
                               (CONFORMANCE, ROOT / "examples/team-rules/.policylint.yaml"))]

    together = judged()
    monkeypatch.setattr(cel, "batched", lambda rules, sources: None)
    assert judged() == together
    assert any(len(found) > 2 for found in together)  # the tree gives the rules work


def _re2_matches(text: str, pattern: str) -> bool:
    """CEL's own answer (RE2): ``matches`` on values, the pattern compiled at evaluation."""
    from policylint.cel.kinds import environment as _env
    program = _env(("topic", "cluster")).compile("topic.t.matches(topic.p)")
    return program.eval(data={"topic": {"t": text, "p": pattern}}).value()


def _random_pattern(rng) -> str:
    atoms = ["a", "b", "z", ".", "-", "_", "[a-c]", "[^a]", "[a-z0-9._-]", "\\."]
    out = []
    for _ in range(rng.randint(1, 6)):
        piece = rng.choice(atoms)
        if rng.random() < 0.2:
            piece = f"({piece}{rng.choice(atoms)})" if rng.random() < 0.5 else \
                f"(?:{piece}|{rng.choice(atoms)})"
        elif rng.random() < 0.5:
            piece += rng.choice(["*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?"])
        out.append(piece)
    return rng.choice(["", "^"]) + "".join(out) + rng.choice(["", "$"])


def test_python_answers_a_pattern_as_re2_does():
    """A pattern in the subset ``patterns.translated`` takes matches, in Python, the texts
    CEL's RE2 matches: anchors (RE2's ``$`` is the end, not before a last newline), classes,
    ranges, groups, alternatives, quantifiers; texts with newlines and beyond ASCII."""
    import random

    from policylint.cel.patterns import translated
    texts = ["", "a", "ab", "Ab", "ab\n", "a\nb", "a.b", "a-b", "a_b9", "aab", "ba", "bbb",
             "a.b.c", "é", "aé", "-", ".", "payments.orders", "Payments.orders",
             "orders-v2", "x/y", "9lives"]
    patterns = ["^[a-z][a-z0-9._-]*$", "^[a-zA-Z0-9._-]{1,249}$", "^payments\\.", "a|b$",
                "^(a|b)c", "[^a]", "^$", "", "a.b", "^[-a]+$", "b{2,}", "(?:ab)", "^a?b*$",
                "\\.", "[a\\-z]"]
    rng = random.Random(11)
    patterns += [_random_pattern(rng) for _ in range(150)]
    compared = 0
    for pattern in patterns:
        found = translated(pattern)
        if found is None:
            continue
        for text in texts + ["".join(rng.choice("ab.-_\nAé") for _ in range(rng.randint(0, 8)))
                             for _ in range(8)]:
            if len(text) > found.longest:
                continue  # RE2's to answer
            assert (found.regex.search(text) is not None) == _re2_matches(text, pattern), \
                (pattern, text)
            compared += 1
    assert compared > 2000


@pytest.mark.parametrize("pattern", ["(a+)+$", "(ab)*", "\\d+", "\\w", "(?i)a", "a{,3}",
                                     "a*+", "(?=a)", "[[:alpha:]]", "\\pL", "a{2", "a**",
                                     "[a-b-c]", "[]a]", "x}", "^*"])
def test_a_pattern_beyond_the_subset_is_re2_s(pattern):
    """Repeated groups (Python's backtracking could take exponential time), classes and
    flags whose meaning differs between the engines, and what RE2 reads otherwise: left to
    RE2."""
    from policylint.cel.patterns import translated
    assert translated(pattern) is None


def test_a_batch_answers_patterns_as_each_rule_does(tmp_path, monkeypatch):
    """Rules on topic names, batched (their patterns answered in Python) and each on its
    own (RE2), find the same: a name with a last newline, an upper-case or a digit first, a
    name too long to answer in Python, a name no pattern can hold."""
    _policy(tmp_path, """cel_rules:
  - code: TEAM1
    name: convention
    applies_to: topics
    validations:
      - expression: topic.name.matches("^[a-z][a-z0-9._-]*$")
        message: breaks the convention
  - code: TEAM2
    name: payments-rf
    applies_to: topics
    matchConditions:
      - expression: topic.name.matches(r"^payments\\.")
    validations:
      - expression: topic.rf >= 3 && !topic.name.matches('(a|b)$')
        message: payments need RF 3
""")
    names = ["orders", "Orders", "9lives", "orders\\n", "payments.x", "payments.b",
             "payments.ok", "a" * 400, "a" * 399 + "B"]
    write_files(tmp_path, {f"t{i}.yaml": f"""\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: "{name}"
spec:
  partitions: 3
  replicas: {2 if name.startswith("payments.x") else 3}
""" for i, name in enumerate(names)})
    monkeypatch.chdir(tmp_path)
    import policylint.cel.batch as cel

    def found():
        return sorted((f.rule, f.file) for f in lint(["."], select=["TEAM"]).findings)

    together = found()
    assert together == [("TEAM1", "t1.yaml"), ("TEAM1", "t2.yaml"), ("TEAM1", "t3.yaml"),
                        ("TEAM1", "t8.yaml"), ("TEAM2", "t4.yaml"), ("TEAM2", "t5.yaml")]
    monkeypatch.setattr(cel, "batched", lambda rules, sources: None)
    assert found() == together


def test_subjects_judged_together_are_judged_as_one_by_one(tmp_path, monkeypatch):
    """Rules that read the topic's name judge runs of topics sharing a cluster in one
    evaluation: a topic breaking a rule among many that keep it, a stretch where most break
    it, a value no input states (${RF}), two clusters' snapshots, and topics whose
    assignments are long enough that a run's evaluation exceeds CEL's iteration budget:
    the same findings and unchecked counts as each rule on its own."""
    _policy(tmp_path, """cel_rules:
  - {code: TEAM1, name: convention, applies_to: topics,
     validations: [{expression: 'topic.name.matches("^[a-z][a-z0-9.-]*$")', message: name}]}
  - {code: TEAM2, name: durable, applies_to: topics,
     validations: [{expression: 'topic.rf >= 2 || topic.name.startsWith("tmp.")',
                    message: rf}]}
  - {code: TEAM3, name: rf-everywhere, applies_to: topics,
     validations: [{expression: '!has(topic.assignment) ||
                                 topic.assignment.all(r, r.size() == topic.rf)',
                    message: assignment}]}
""")
    names = [f"orders.{i}" for i in range(300)]
    for i in (0, 63, 64, 130, 299):
        names[i] = f"Orders.{i}"
    for i in range(200, 240):  # most of a stretch breaks TEAM1
        names[i] = f"_orders.{i}" if i % 5 else names[i]
    files = {f"t{i:03}.yaml": TOPIC.format(name=name, rf="${RF}" if i in (5, 77) else
                                           1 if i in (10, 150) else 3, min_isr=1)
             for i, name in enumerate(names)}

    def snapshot(cluster, racks):
        topics = [{"name": f"{cluster}.{i}" if i != 40 else f"{cluster}.X",
                   "partitions": [{"partition": p, "replicas": [1, 2] if (i, p) != (72, 3)
                                   else [1]} for p in range(600 if i % 3 == 0 else 2)]}
                  for i in range(90)]
        return json.dumps({"kind": "ClusterSnapshot", "version": 1, "cluster": cluster,
                           "brokers": [{"id": b, "rack": r} for b, r in ((1, racks[0]),
                                                                         (2, racks[1]))],
                           "topics": topics})
    files["a.json"], files["b.json"] = snapshot("east", "ab"), snapshot("west", "aa")
    write_files(tmp_path, files)
    monkeypatch.chdir(tmp_path)
    import policylint.cel.batch as cel

    def judged():
        result = lint(["."], select=["TEAM"])
        return sorted((f.rule, f.file, f.topic) for f in result.findings), result.unchecked

    together = judged()
    assert len(together[0]) == 5 + 32 + 2 + 2 + 2 and together[1]["TEAM2"] == 2
    monkeypatch.setattr(cel, "batched", lambda rules, sources: None)
    assert judged() == together


def test_a_rule_not_selected_is_not_evaluated(tmp_path, monkeypatch):
    """--select TEAM2: the batch of the rules that read a topic's name (TEAM1) is not
    evaluated at all, and TEAM2 finds what it finds alone."""
    _policy(tmp_path, """cel_rules:
  - {code: TEAM1, name: convention, applies_to: topics,
     validations: [{expression: 'topic.name.startsWith("x")', message: name}]}
  - {code: TEAM3, name: short, applies_to: topics,
     validations: [{expression: 'size(topic.name) < 3', message: long}]}
  - {code: TEAM2, name: durable, applies_to: topics,
     validations: [{expression: 'topic.rf >= 3', message: rf}]}
""")
    write_files(tmp_path, {f"t{i}.yaml": TOPIC.format(name=f"t{i}", rf=i, min_isr=1)
                           for i in range(1, 5)})
    monkeypatch.chdir(tmp_path)
    import policylint.cel.batch as cel
    judged = []
    verdicts = cel._Batch.verdicts

    def recorded(batch, *args):
        judged.append(sorted(rule.code for rule in batch.rules))
        return verdicts(batch, *args)
    monkeypatch.setattr(cel._Batch, "verdicts", recorded)
    found = sorted((f.rule, f.topic) for f in lint(["."], select=["TEAM2"]).findings)
    assert found == [("TEAM2", "t1"), ("TEAM2", "t2")]
    assert judged and all(codes == ["TEAM2"] for codes in judged)
