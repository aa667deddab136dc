"""Policy discovery, packs, extends, validation; suppressions and exemptions."""

import datetime as dt

import pytest

from policylint import policy
from policylint.linter import lint
from policylint.policy import PolicyError

from conftest import BUILT_IN

TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: {name}
{annotations}spec:
  replicas: 3
  config:
    min.insync.replicas: 3{comment}
"""


def topic(name="orders", annotations="", comment=""):
    return TOPIC.format(name=name, annotations=annotations, comment=comment)


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def findings(paths=("t.yaml",), **kwargs):
    kwargs.setdefault("select", BUILT_IN)
    return lint(list(paths), today=dt.date(2026, 11, 21), **kwargs).findings


def test_default_pack_without_a_policy(cwd):
    assert policy.load().source == "default"
    (cwd / "t.yaml").write_text(topic())
    assert [(f.rule, f.severity) for f in findings()] == [("PL302", "warning")]


def test_discovered_upward_and_strict_pack(cwd):
    (cwd / ".policylint.yaml").write_text("extends: strict\n")
    (cwd / "sub").mkdir()
    (cwd / "sub" / "t.yaml").write_text(topic())
    import os
    os.chdir(cwd / "sub")
    assert [(f.rule, f.severity) for f in findings()] == [("PL302", "error")]


def test_pyproject_tool_table(cwd):
    (cwd / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.policylint.rules.PL302]\nenabled = false\n')
    (cwd / "t.yaml").write_text(topic())
    assert findings() == []


@pytest.mark.parametrize("text", [
    '[tool]\npolicylint = {rules = {PL302 = {enabled = false}}}\n',
    '[tool]\npolicylint.rules.PL302.enabled = false\n',
])
def test_pyproject_tool_table_as_toml_reads_it(cwd, text):
    (cwd / "pyproject.toml").write_text(text)
    (cwd / "t.yaml").write_text(topic())
    assert findings() == []


def test_a_pyproject_that_only_mentions_the_table_is_not_a_policy(cwd):
    (cwd / ".policylint.yaml").write_text("extends: strict\n")
    (cwd / "sub").mkdir()
    (cwd / "sub" / "pyproject.toml").write_text("# configure in [tool.policylint]\n[tool.x]\n")
    assert policy.load(start=cwd / "sub").source == ".policylint.yaml"


def test_an_unreadable_pyproject_is_a_policy_error_naming_it_or_ignored(cwd):
    (cwd / "sub").mkdir()
    utf16 = "[tool.policylint]\n".encode("utf-16")
    (cwd / "sub" / "pyproject.toml").write_bytes(utf16)
    with pytest.raises(PolicyError, match="pyproject.toml: not UTF-8 text"):
        policy.load(start=cwd / "sub")
    (cwd / "sub" / "pyproject.toml").write_bytes("[tool.black]\n".encode("utf-16"))
    assert policy.load(start=cwd / "sub").source == "default"
    (cwd / "sub" / "pyproject.toml").write_text("[tool.policylint\nbroken")
    with pytest.raises(PolicyError, match="pyproject.toml: not TOML"):
        policy.load(start=cwd / "sub")


def test_extends_a_file_and_overrides(cwd):
    (cwd / "base.yaml").write_text("rules:\n  PL302: {severity: note}\n")
    (cwd / "team.yaml").write_text("extends: base.yaml\nallow: {rf_change: ['x-*']}\n")
    loaded = policy.load("team.yaml")
    assert loaded.rules["PL302"] == {"severity": "note"}
    assert loaded.allows_rf_change("x-1") and not loaded.allows_rf_change("y")


@pytest.mark.parametrize("text,where", [
    ("rulez: {}\n", "rulez: unknown field"),
    ("rules:\n  PL999: {}\n", "rules.PL999: unknown rule"),
    ("rules:\n  PL303: {min: two}\n", "rules.PL303.min"),
    ("rules:\n  PL303: {severity: fatal}\n", "rules.PL303.severity"),
    ("exemptions:\n  - {rule: PL401}\n", "exemptions[0]: missing required field 'reason'"),
    ("extends: nowhere\n", "neither a built-in pack"),
    ("extends: p.yaml\n", "extends itself"),
    ("rules: [\n", "p.yaml:2:1"),
    ("rules:\n  PL701: {pattern: \"(a\"}\n", "p.yaml:2:20: rules.PL701.pattern: the string "
     "\"(a\" is not a valid regular expression"),
    ("kafka_version: [3]\n", "kafka_version: a list is not a string or a number"),
    ("configs: {allow_prefixes: confluent.}\n", "configs.allow_prefixes"),
    ("rules:\n  retention-bounds: {max_ms: -5}\n", "max_ms"),
])
def test_bad_policy_names_the_key(cwd, text, where):
    (cwd / "p.yaml").write_text(text)
    with pytest.raises(PolicyError, match=None) as info:
        policy.load("p.yaml")
    assert where in str(info.value)


def test_inline_comment_suppresses_on_the_line_or_above(cwd):
    (cwd / "t.yaml").write_text(topic(comment="  # policylint: disable=PL302 rolling restarts are rare"))
    (cwd / "u.yaml").write_text(topic("other").replace(
        "    min.insync", "    # policylint: disable=min-isr-equals-rf\n    min.insync"))
    result = findings(["t.yaml", "u.yaml"])
    assert [(f.file, f.suppressed) for f in result] == [("t.yaml", True), ("u.yaml", True)]
    assert result[0].justification == "rolling restarts are rare"


def test_annotation_suppresses_its_manifest_only(cwd):
    annotated = "  annotations:\n    policylint.io/disable: \"PL401,PL302\"\n"
    (cwd / "t.yaml").write_text(topic(annotations=annotated) + "---\n" + topic("other"))
    result = findings()
    assert [(f.topic, f.suppressed) for f in result if f.rule == "PL302"] == \
        [("orders", True), ("other", False)]
    # PL401 found nothing to suppress there: the annotation says more than it does
    (unused,) = [f for f in result if f.rule == "PL122"]
    assert "PL401 suppresses no finding" in unused.message


def test_exemptions_with_reason_and_expiry(cwd):
    (cwd / "p.yaml").write_text(
        "exemptions:\n"
        "  - {rule: min-isr-equals-rf, topics: ['ord*'], reason: 'exactly-once audit log'}\n"
        "  - {rule: PL302, topics: ['other'], reason: 'old', expires: 2025-12-31}\n")
    (cwd / "t.yaml").write_text(topic() + "---\n" + topic("other"))
    result = findings(policy="p.yaml")
    by_rule = [(f.rule, f.topic, f.suppressed) for f in result]
    assert ("PL302", "orders", True) in by_rule
    assert ("PL302", "other", False) in by_rule  # expired: applies no more
    expired = [f for f in result if f.rule == "PL120"]
    assert len(expired) == 1 and expired[0].file == "p.yaml" and expired[0].line == 3
    assert next(f for f in result if f.topic == "orders").justification == \
        "exactly-once audit log"


def test_the_policy_applies_to_a_run_with_no_topic_plan_or_cluster(cwd):
    (cwd / ".policylint.yaml").write_text("extends: strict\n")
    (cwd / "a.yaml").write_text("x: 1\n")
    assert [(f.rule, f.severity) for f in findings(["a.yaml"])] == [("PL102", "error")]


def test_the_policy_and_git_are_found_from_the_paths_linted(tmp_path, monkeypatch):
    """``cd ~ && policylint lint ~/src/repo/kafka``: that repository's policy, and --base
    in its git repository."""
    import subprocess
    repo = tmp_path / "repo"
    (repo / "kafka").mkdir(parents=True)
    (repo / ".policylint.yaml").write_text("rules:\n  PL302: {enabled: false}\n")
    topic = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: o}\n"
             "spec: {replicas: %d, config: {min.insync.replicas: 3}}\n")
    (repo / "kafka" / "t.yaml").write_text(topic % 3)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"],
                 ["-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    (repo / "kafka" / "t.yaml").write_text(topic % 4)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    from policylint.linter import lint
    (repo / "kafka" / "t.yaml").write_text(topic % 3)
    assert [f.rule for f in lint([str(repo / "kafka")], select=["PL302"]).findings] == []
    (repo / "kafka" / "t.yaml").write_text(topic % 4)
    found = lint([str(repo / "kafka")], select=["PL202"], base="HEAD").findings
    assert [f.rule for f in found] == ["PL202"]
