"""The merge gate: with --base, the base's policy judges a pull request, and what the pull
request changes of the policy, the baseline and the suppressions is itself a finding (PL125).
Real git repositories; the CLI as users run it."""

import json
import subprocess
import sys

import pytest

from conftest import git, git_commit, write_files

KAFKA = """apiVersion: kafka.strimzi.io/v1beta2
kind: Kafka
metadata: {name: prod}
spec:
  kafka:
    replicas: 3
    config: {min.insync.replicas: 2, default.replication.factor: 3}
"""
PAYMENTS = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: payments
  labels: {strimzi.io/cluster: prod}
spec:
  partitions: 3
  replicas: 3
"""


def lint(repo, *args):
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "kafka", "--base", "main",
                           "--format", "json", *args], cwd=repo, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)["findings"], done.stderr


def reported(findings, rule=None):
    return [(f["rule"], f["file"], f["line"], f["severity"], f["message"]) for f in findings
            if not f["suppressed"] and (rule is None or f["rule"] == rule)]


@pytest.fixture
def pull_request(tmp_path):
    """main: a strict policy and payments at RF 3; the pull request drops it to RF 1."""
    write_files(tmp_path, {".policylint.yaml": "extends: strict\n", "kafka/kafka.yaml": KAFKA,
                           "kafka/topics/payments.yaml": PAYMENTS})
    git_commit(tmp_path, "main")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    write_files(tmp_path, {"kafka/topics/payments.yaml": PAYMENTS.replace("replicas: 3",
                                                                            "replicas: 1")})
    return tmp_path


def errors_of(findings):
    return sorted({f["rule"] for f in findings if f["severity"] == "error" and
                   not f["suppressed"]})


def test_the_base_policy_judges(pull_request):
    code, findings, _ = lint(pull_request)
    assert code == 1 and {"PL202", "PL209", "PL301"} <= set(errors_of(findings))
    assert not reported(findings, "PL125")


@pytest.mark.parametrize("policy, weakening, line", [
    ('extends: strict\nexclude: ["kafka/topics/payments.yaml"]\n',
     "exclude: 'kafka/topics/payments.yaml' added", 2),
    ('extends: strict\nexemptions: [{rule: PL202, topics: ["*"], reason: "ok"}]\n',
     "exemption of PL202 for * added or widened, with no expiry (reason given: ok)", 2),
    ("extends: strict\nrules:\n  PL202: {severity: note}\n",
     "rule PL202 (rf-change-manifest): severity lowered from error to note", 3),
    ("extends: strict\nrules:\n  PL209: {enabled: false}\n",
     "rule PL209 (rf-below-minimum) disabled", 3),
    ("extends: strict\nrules:\n  PL209: {min: 1}\n",
     "rule PL209 (rf-below-minimum): min loosened from 2 to 1", 3),
    ('extends: strict\nallow:\n  rf_change: ["pay*"]\n', "allow.rf_change: 'pay*' added", 3),
])
def test_a_weakened_policy_does_not_judge_and_is_an_error(pull_request, policy, weakening,
                                                          line):
    write_files(pull_request, {".policylint.yaml": policy})
    code, findings, _ = lint(pull_request)
    assert code == 1 and {"PL202", "PL209"} <= set(errors_of(findings))  # the base's verdict
    assert not any("deletes the topic" in f["message"] for f in findings)  # no false PL208
    ((rule, file, at, severity, message),) = reported(findings, "PL125")
    assert (file, at, severity) == (".policylint.yaml", line, "error")
    assert message == f"this change weakens the gate: {weakening}"


def test_policy_from_head_restores_the_working_trees_policy_and_says_so(pull_request):
    write_files(pull_request, {".policylint.yaml": 'extends: strict\nexemptions: [{rule: PL202,'
                                                   ' topics: ["*"], reason: "ok"}]\n'})
    code, findings, stderr = lint(pull_request, "--policy-from", "head")
    assert "PL202" not in errors_of(findings) and not reported(findings, "PL125")
    assert "--policy-from head: the working tree's policy judges this change" in stderr


def test_a_strengthening_is_a_note(pull_request):
    write_files(pull_request, {".policylint.yaml": "extends: strict\nrules:\n"
                                                   "  PL208: {severity: error}\n"})
    _, findings, _ = lint(pull_request)
    ((_, _, line, severity, message),) = reported(findings, "PL125")
    assert severity == "note" and line == 3 and "severity raised from warning to error" in message


def on_main(repo, files):
    """``files`` committed on main, under the pull request's change."""
    git(repo, "stash", "-q")
    git(repo, "checkout", "-q", "main")
    write_files(repo, files)
    git_commit(repo, "main")
    git(repo, "checkout", "-q", "pr")
    git(repo, "rebase", "-q", "main")
    git(repo, "stash", "pop", "-q")


def test_baseline_entries_added_are_not_honoured_and_are_errors(pull_request):
    on_main(pull_request, {".policylint.yaml": "extends: strict\nbaseline: baseline.json\n",
                           "baseline.json": json.dumps({"format": "policylint-baseline",
                                                        "version": 1, "findings": []})})
    # the pull request records its own findings in the baseline
    subprocess.run([sys.executable, "-m", "policylint", "lint", "kafka", "--policy-from", "head",
                    "--write-baseline", "baseline.json"], cwd=pull_request, capture_output=True)
    code, findings, _ = lint(pull_request)
    assert code == 1 and {"PL202", "PL209"} <= set(errors_of(findings))
    added = reported(findings, "PL125")
    assert added and all(f == "baseline.json" and s == "error" and "baseline entry" in m
                         for _, f, _, s, m in added)


def test_inline_suppressions_added_are_errors(pull_request):
    write_files(pull_request, {"kafka/topics/payments.yaml": PAYMENTS.replace(
        "  replicas: 3", "  # policylint: disable=PL209 just this once\n  replicas: 1")})
    _, findings, _ = lint(pull_request)
    ((_, file, line, severity, message),) = reported(findings, "PL125")
    assert (file, line, severity) == ("kafka/topics/payments.yaml", 8, "error")
    assert message == "this change weakens the gate: inline suppression of PL209 added"


def test_a_cel_rule_removed_is_an_error(tmp_path):
    rule = ("cel_rules:\n  - code: TEAM001\n    name: team-prefix\n    applies_to: topics\n"
            "    validations:\n      - expression: topic.name.startsWith('team.')\n"
            "        message: topics start with team.\n")
    write_files(tmp_path, {".policylint.yaml": rule, "kafka/kafka.yaml": KAFKA,
                           "kafka/topics/payments.yaml": PAYMENTS})
    git_commit(tmp_path, "main")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    write_files(tmp_path, {".policylint.yaml": "{}\n"})
    code, findings, _ = lint(tmp_path)
    assert "TEAM001" in errors_of(findings)  # the base's rule still judges
    assert [m for *_, m in reported(findings, "PL125")] == \
        ["this change weakens the gate: CEL rule TEAM001 removed"]


def test_an_exemption_past_its_date_is_not_honoured_in_lint_or_diff_mode(pull_request):
    """One function decides (Exemption.active): lint and diff mode alike."""
    policy = ('extends: strict\nexemptions: [{rule: PL209, topics: ["payments"], reason: x,'
              ' expires: 2001-01-01}]\n')
    on_main(pull_request, {".policylint.yaml": policy})
    _, findings, _ = lint(pull_request)
    assert "PL209" in errors_of(findings)
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "kafka", "--format",
                           "json"], cwd=pull_request, capture_output=True, text=True)
    assert "PL209" in errors_of(json.loads(done.stdout)["findings"])


def test_an_expired_exemption_is_honoured_by_no_path(tmp_path, monkeypatch):
    """One function decides (policy.Exemption.active): lint, diff mode, the editor's
    workspace and the audit report the finding an expired exemption once covered."""
    from typer.testing import CliRunner

    from policylint.cli import app
    from policylint.linter import lint
    from policylint.server.workspace import Workspace
    snapshot = json.dumps({"kind": "ClusterSnapshot", "version": 1, "cluster": "c",
                           "brokers": [{"id": 1}, {"id": 2}],
                           "topics": [{"name": "t", "partitions": [
                               {"partition": 0, "replicas": [1, 1], "isr": [1]}]}]})
    policy = ('exemptions:\n  - {rule: PL112, topics: ["t"], reason: "until the fix",'
              ' expires: 2001-01-01}\n')
    write_files(tmp_path, {".policylint.yaml": policy, "fleet/snap.json": snapshot})
    git_commit(tmp_path, "main")
    monkeypatch.chdir(tmp_path)

    def reported(findings):
        return [f for f in findings if f.rule == "PL112" and not f.suppressed]
    assert reported(lint(["fleet"]).findings)
    assert reported(lint(["fleet"], base="HEAD").findings)
    space = Workspace([str(tmp_path)])
    space.scan()
    path = str(tmp_path / "fleet/snap.json")
    assert reported(space.lint(path, {path: snapshot})[0].result.findings)
    done = CliRunner().invoke(app, ["audit", "fleet", "--output", "out", "--format", "json",
                                    "--engine", "local"])
    assert done.exit_code == 0, done.output
    rows = [json.loads(line) for p in (tmp_path / "out" / "findings").rglob("*.json")
            for line in p.read_text().splitlines()]
    assert any(r["rule"] == "PL112" and not r["suppressed"] for r in rows)
    # and a live exemption is honoured by each of them
    (tmp_path / ".policylint.yaml").write_text(policy.replace("2001-01-01", "2999-01-01"))
    assert not reported(lint(["fleet"]).findings)


def test_a_disable_annotation_the_change_adds_is_an_error(pull_request):
    """The side door: the pull request that drops payments' RF to 1 also annotates it to
    disable the rules that catch it. The gate reports the annotation; the run fails."""
    write_files(pull_request, {"kafka/topics/payments.yaml": PAYMENTS.replace(
        "  labels:", '  annotations: {policylint.io/disable: "PL202,PL209,PL301"}\n  labels:')
        .replace("replicas: 3", "replicas: 1")})
    status, findings, _ = lint(pull_request)
    assert status == 1
    ((_, file, line, severity, message),) = reported(findings, "PL125")
    assert (file, line, severity) == ("kafka/topics/payments.yaml", 5, "error")
    assert "policylint.io/disable annotation of PL202, PL209, PL301 added" in message


def test_a_policy_outside_the_repository_judges_as_it_is(tmp_path):
    """A central policy checked out beside the repository is out of the pull request's
    reach: read from disk, said in -v, and it judges the change."""
    repo, platform = tmp_path / "repo", tmp_path / "platform"
    write_files(platform, {"base.yaml": "extends: strict\n",
                           "policy.yaml": "extends: ./base.yaml\nrules: {PL209: {min: 3}}\n"})
    write_files(repo, {"kafka/kafka.yaml": KAFKA, "kafka/topics/payments.yaml": PAYMENTS})
    git_commit(repo, "main")
    git(repo, "checkout", "-q", "-b", "pr")
    write_files(repo, {"kafka/topics/payments.yaml": PAYMENTS.replace("replicas: 3",
                                                                       "replicas: 2")})
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "kafka", "--base", "main",
                           "--policy", "../platform/policy.yaml", "--format", "json", "-v"],
                          cwd=repo, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    rules = {f["rule"] for f in json.loads(done.stdout)["findings"]}
    assert {"PL202", "PL209"} <= rules and "PL125" not in rules
    assert "read from disk, outside the git work tree: ../platform/policy.yaml, " \
        "../platform/base.yaml" in done.stderr


def test_a_policy_the_change_adds_is_named_as_added(pull_request):
    write_files(pull_request, {"kafka/lenient.yaml": "extends: default\n"})
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "kafka", "--base", "main",
                           "--policy", "kafka/lenient.yaml"], cwd=pull_request,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "policy kafka/lenient.yaml: added by this change, not in the base main" in done.stderr
