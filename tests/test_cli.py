"""The command line: output contract, exit codes, options."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from policylint import __version__
from policylint.cli import app

from conftest import BUILT_IN, write_files

SNAPSHOT = """kind: ClusterSnapshot
version: 1
cluster: prod
brokers: [{id: 1, rack: a}, {id: 2, rack: b}, {id: 3, rack: c}]
config: {min.insync.replicas: "2"}
topics:
  - name: orders
    partitions:
      - {partition: 0, replicas: [1, 2, 3], isr: [1, 2, 3]}
"""
PLAN = '{"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2, 3, 4]}]}'
TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata: {name: orders}
spec:
  replicas: 3
  config: {min.insync.replicas: 3}  # equals RF: PL302 warning
"""


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / "clusters").mkdir()
    (tmp_path / "clusters" / "prod.yaml").write_text(SNAPSHOT)
    (tmp_path / "plans").mkdir()
    (tmp_path / "plans" / "grow.json").write_text(PLAN)
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics" / "orders.yaml").write_text(TOPIC)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args):
    if args[0] == "lint" and "--select" not in args:
        args += ("--select", ",".join(BUILT_IN))
    return CliRunner().invoke(app, list(args))


def test_json_contract(repo):
    result = invoke("lint", "plans", "topics", "--cluster", "clusters/prod.yaml",
                    "--format", "json")
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert set(out) == {"version", "tool", "findings", "unchecked", "summary"}
    assert out["version"] == 1
    assert out["tool"] == {"name": "policylint", "version": __version__}
    assert set(out["summary"]) == {"files", "error", "warning", "note", "suppressed",
                                   "unchecked", "skipped", "fixable"}
    assert out["summary"]["files"] == 2
    assert out["summary"]["unchecked"] == {"PL201": 0, "PL308": 1}  # ELR: no features
    first = out["findings"][0]
    assert list(first) == ["rule", "name", "severity", "message", "file", "line", "column",
                           "topic", "partition", "suppressed", "related", "subjects", "url",
                           "fix", "end_line", "end_column"]
    rules = [(f["rule"], f["file"], f["partition"]) for f in out["findings"]]
    assert ("PL201", "plans/grow.json", 0) in rules
    assert ("PL115", "plans/grow.json", 0) in rules
    assert ("PL302", "topics/orders.yaml", None) in rules
    keys = [(f["file"], f["line"], f["column"], f["rule"]) for f in out["findings"]]
    assert keys == sorted(keys)
    assert out["summary"]["error"] == sum(f["severity"] == "error" for f in out["findings"])


def test_text_output_clickable_with_summary(repo):
    result = invoke("lint", ".")  # the snapshot is linted and is the cluster context
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    # the plan names broker 4, which the cluster lacks (joining, or a typo): no repair is
    # offered, as it would take the plan's replicas off broker 4
    assert any(line.startswith("plans/grow.json:1:79: PL201 [error] ") and
               "changed from 3 to 4" in line for line in lines)
    assert any(line.startswith("topics/orders.yaml:6:33: PL302 [*] [warning] ")
               for line in lines)
    found = next(i for i, line in enumerate(lines) if line.startswith("Found "))
    assert "in 3 files" in lines[found]
    assert lines[found + 1] == "[*] 1 finding fixable with --fix (--diff shows how)."
    assert lines[found + 2].startswith("PL308 could not be checked for 1 topic: whether "
                                       "eligible leader replicas are on")
    assert "\x1b[" not in result.stdout  # not a terminal: no colour


def test_exit_codes_and_fail_on(repo):
    assert invoke("lint", "topics").exit_code == 0  # only a warning
    assert invoke("lint", "topics", "--fail-on", "warning").exit_code == 1
    assert invoke("lint", "topics", "--fail-on", "bogus").exit_code == 2
    assert invoke("lint", "missing.yaml").exit_code == 2
    assert invoke("lint", ".", "--format", "xml").exit_code == 2


def test_exit_zero_and_fail_on_never(repo):
    """Adopting policylint on an old repository: findings shown, the run not failed; a run
    that itself fails is still exit 2."""
    assert invoke("lint", ".").exit_code == 1
    for flags in (["--exit-zero"], ["--fail-on", "never"], ["--fail-on", "warning",
                                                            "--exit-zero"]):
        result = invoke("lint", ".", *flags)
        assert result.exit_code == 0 and "error" in result.stdout, flags
    assert invoke("lint", "missing.yaml", "--exit-zero").exit_code == 2


def test_select_and_ignore(repo):
    def rules(*args):
        out = json.loads(invoke("lint", ".", "--format", "json", *args).stdout)
        return {f["rule"] for f in out["findings"]}
    assert rules("--select", "PL2") == {"PL201", "PL203"}
    assert rules("--select", "rf-change,PL115") == {"PL201", "PL115"}
    assert "PL115" not in rules("--ignore", "unknown-broker")
    assert invoke("lint", ".", "--select", "PL999").exit_code == 2


def test_allow_rf_change(repo):
    out = json.loads(invoke("lint", ".", "--format", "json", "--allow-rf-change").stdout)
    assert "PL201" not in {f["rule"] for f in out["findings"]}


def test_two_cluster_candidates_need_cluster(repo):
    (repo / "clusters" / "other.yaml").write_text(SNAPSHOT.replace("prod", "other"))
    result = invoke("lint", ".", "--format", "json")
    assert result.exit_code == 1  # the other findings are still reported
    out = json.loads(result.stdout)
    unplaced = [f for f in out["findings"] if f["rule"] == "PL123"]
    assert len(unplaced) == 1 and "--cluster" in unplaced[0]["message"]
    assert out["summary"]["unchecked"]["PL123"] >= 1
    placed = json.loads(invoke("lint", ".", "--cluster", "clusters/prod.yaml", "--format",
                               "json").stdout)
    assert not [f for f in placed["findings"] if f["rule"] == "PL123"]


def test_bad_policy_is_exit_2_naming_the_key(repo):
    (repo / ".policylint.yaml").write_text("rules:\n  PL401: {mode: odd}\n")
    result = invoke("lint", ".")
    assert result.exit_code == 2
    assert "rules.PL401.mode" in result.output and ".policylint.yaml:2:" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_rules_and_explain():
    result = invoke("rules")
    assert result.exit_code == 0
    assert "PL201  rf-change" in result.stdout
    for key in ("PL201", "rf-change"):
        result = invoke("explain", key)
        assert result.exit_code == 0
        assert "## What it does" in result.stdout and "KIP-860" in result.stdout
    assert invoke("explain", "PL999").exit_code == 2


def test_python_m_and_version(repo):
    out = subprocess.run([sys.executable, "-m", "policylint", "--version"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"policylint {__version__}"
    out = subprocess.run([sys.executable, "-m", "policylint", "lint", "topics", "--select", "PL"],
                         capture_output=True, text=True)
    assert out.returncode == 0 and "PL302" in out.stdout


def test_lean_imports_on_the_lint_path(repo):
    """A pre-commit run must not pay for heavy modules it does not use."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "policylint", "lint", "."],
                         capture_output=True, text=True)
    modules = {line.rsplit("|", 1)[-1].strip()
               for line in out.stderr.splitlines() if line.startswith("import time:")}
    imported = {name.split(".")[0] for name in modules}
    assert "policylint" in imported and "yaml" in imported  # the report is read right
    assert not imported & {"jsonschema", "pyspark", "rich", "ruamel", "hcl2", "lark"}
    assert "policylint.sources.hcl_eval" not in modules  # Terraform's, for .tf files only


def test_config_is_the_policy_option_and_h_is_help(repo):
    (repo / "p.yaml").write_text("rules: {PL302: {enabled: false}}\n")
    result = invoke("lint", "topics", "--config", "p.yaml", "--format", "json")
    assert result.exit_code == 0 and json.loads(result.stdout)["findings"] == []
    assert invoke("lint", "-h").stdout == invoke("lint", "--help").stdout
    assert "--exclude" in invoke("lint", "-h").stdout


def test_a_command_run_alone_is_the_command_of_the_whole_group(capsys, monkeypatch):
    """``run`` makes only the command it runs; its help, options and errors are those of
    the group that holds every command."""
    from policylint import cli
    whole = cli._command()
    for name in whole.commands:
        assert list(cli._command(name).commands) == [name]
        assert whole([name, "--help"], standalone_mode=False) == 0
        expected = capsys.readouterr().out
        assert cli.run([name, "--help"]) == 0
        assert capsys.readouterr().out == expected and f" {name} [OPTIONS]" in expected
    assert cli.run(["lint", "--no-such-option"]) == 2
    assert "No such option: --no-such-option" in capsys.readouterr().err
    assert cli._invoked(["--version", "lint"]) is None and cli._invoked(["lnt"]) is None
    assert cli.run(["lnt"]) == 2 and "Did you mean 'lint'?" in capsys.readouterr().err
    monkeypatch.setenv("_POLICYLINT_COMPLETE", "complete_bash")  # asks about them all
    assert cli._invoked(["lint"]) is None


def test_statistics_and_quiet(repo):
    result = invoke("lint", "plans", "topics", "--cluster", "clusters/prod.yaml", "--statistics")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["1  PL115       error    unknown-broker",
                                          "1  PL201       error    rf-change",
                                          "1  PL203       error    rf-exceeds-brokers",
                                          "1  PL302  [*]  warning  min-isr-equals-rf"]
    quiet = invoke("lint", "topics", "--format", "concise", "-q").stdout
    assert quiet == ("topics/orders.yaml:6:33: PL302 [*] [warning] topic orders: "
                     "min.insync.replicas=3 equals the replication factor 3: one broker down "
                     "blocks acks=all producers\n")


SCRIPT = str(Path(sys.executable).parent / "policylint")  # completion is by the program's name


@pytest.mark.parametrize("shell, first", [("bash", "_policylint_completion() {"),
                                          ("zsh", "#compdef policylint")])
def test_shell_completion_scripts(shell, first):
    for style in (f"{shell}_source", f"source_{shell}"):  # Click's order and typer's
        done = subprocess.run([SCRIPT], capture_output=True,
                              text=True, env={**os.environ, "_POLICYLINT_COMPLETE": style})
        assert first in done.stdout.splitlines()[:3], (style, done.stdout[:200], done.stderr)
    done = subprocess.run([SCRIPT], capture_output=True, text=True,
                          env={**os.environ, "_POLICYLINT_COMPLETE": "complete_bash",
                               "COMP_WORDS": "policylint lint --exc", "COMP_CWORD": "2"})
    assert done.stdout.split() == ["--exclude"]


def test_mistakes_get_a_did_you_mean_from_real_candidates(repo):
    result = invoke("lint", "topics", "--select", "rack-sprad")
    assert result.exit_code == 2 and "did you mean 'rack-spread'?" in result.output
    (repo / "p.yaml").write_text("# a policy\nrule:\n  PL301: {}\n")
    result = invoke("lint", "topics", "--config", "p.yaml")
    assert "policy p.yaml:2:1: rule: unknown field 'rule'; did you mean 'rules'?" in \
        result.output  # at the key, not at its value on the line below
    (repo / "p.yaml").write_text("rules:\n  PL3O1: {severity: error}\n")
    assert "did you mean 'PL301'?" in invoke("lint", "topics", "--config", "p.yaml").output
    result = subprocess.run([sys.executable, "-m", "policylint", "lint", "--verbose", "topics"],
                            capture_output=True, text=True)
    assert "No such option" not in result.stderr and "policylint: policy default; read 1 " \
        "file" in result.stderr


def test_a_cluster_file_that_is_no_cluster_is_exit_2_naming_what_it_is(repo):
    for paths in (["topics"], ["plans"]):  # among the linted files, and not
        result = invoke("lint", *paths, "--cluster", "topics/orders.yaml")
        assert result.exit_code == 2
        assert "--cluster topics/orders.yaml: holds topic declarations, not a cluster" in \
            result.output
    result = invoke("lint", "topics", "--cluster", "plans/grow.json")
    assert result.exit_code == 2 and "holds a reassignment plan, not a cluster" in result.output


def test_audit_refuses_what_is_not_a_fleet(tmp_path):
    """A folder of topic declarations or a plan is no fleet: one line, exit 2, nothing
    written (it printed '0 clusters' and exited 0)."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "t.yaml").write_text("apiVersion: kafka.strimzi.io/v1beta2\n"
                                            "kind: KafkaTopic\nmetadata: {name: t}\n")
    (tmp_path / "in" / "plan.json").write_text('{"version": 1, "partitions": []}')
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "in"), "--output",
                                      str(tmp_path / "out"), "--format", "json"])
    assert result.exit_code == 2 and "holds no ClusterSnapshot" in result.stderr
    assert "policylint lint" in result.stderr and not (tmp_path / "out").exists()


def test_one_cli_as_ruff_users_type_it(repo, tmp_path):
    out = invoke("lint", "topics", "--output-format", "json")
    assert json.loads(out.stdout)["findings"]
    target = tmp_path / "out.json"
    written = invoke("lint", "topics", "--output-format", "json", "-o", str(target))
    assert written.stdout == "" and json.loads(target.read_text())["findings"]
    assert invoke("lint", "topics", "--statistics", "--format", "sarif").exit_code == 2
    wrong = invoke("explain", "PL31")
    assert wrong.exit_code == 2 and "did you mean PL301?" in wrong.stderr
    assert invoke("rules", "--format", "json").exit_code == 0


def test_verbose_says_what_each_topic_was_judged_against(tmp_path):
    write_files(tmp_path, {"c/kafka.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\n"
                                           "metadata: {name: prod}\nspec: {kafka: {version: 3.9.0,"
                                           " replicas: 3}}\n",
                           "c/t.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                       "metadata: {name: orders, labels: {strimzi.io/cluster: "
                                       "prod}}\nspec: {replicas: 3}\n",
                           "lone.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                        "metadata: {name: lone}\nspec: {replicas: 3}\n"})
    done = CliRunner().invoke(app, ["lint", str(tmp_path / "c"), "-v"])
    assert "topic orders" in done.stderr and "cluster prod (" in done.stderr
    assert "Kafka 3.9 (the cluster's 3.9.0)" in done.stderr
    done = CliRunner().invoke(app, ["lint", str(tmp_path / "lone.yaml"), "-v"])
    assert "no cluster among the inputs" in done.stderr and "Kafka 3.0 to 4.4 (no input" \
        in done.stderr
