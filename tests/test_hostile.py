"""Hostile input, one regression test per class the fuzz campaign found: a broken input file
is a located finding; a bad policy, context file or command line is exit 2 with one line;
never a traceback, a hang or unbounded memory; nothing written unless asked, and never half
of it."""

import json
import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from policylint.cli import app
from policylint.sources import yamldoc

from conftest import write_files

KAFKA = "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata: {{name: c}}\n" \
        "spec: {{kafka: {{replicas: {replicas}}}}}\n"
TOPIC = "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: t}\n" \
        "spec: {partitions: 1, replicas: 3}\n"


def run(tmp_path, monkeypatch, *args):
    """(exit code, JSON output or None, stderr) of a run in ``tmp_path``; the contract
    holds whatever the input: exit 0, 1 or 2, and 2 says why in one line."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "--select", "PL", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert result.exit_code in (0, 1, 2)
    assert "internal error" not in result.stderr and "Traceback" not in result.output
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1, result.stderr
    out = json.loads(result.stdout) if "--format" in args and result.exit_code != 2 else None
    return result.exit_code, out, result.stderr


def located(out, rule="PL100"):
    return [(f["file"], f["line"], f["column"]) for f in out["findings"] if f["rule"] == rule]


@pytest.mark.parametrize("value", ["!!bool maybe", '!!int ""', '!!float ""', "!!int 0x",
                                   "!!timestamp [1]", "!!null {a: 1}"])
def test_1_tags_whose_constructor_refuses_the_value(tmp_path, monkeypatch, value):
    write_files(tmp_path, {"t.yaml": f"kind: KafkaTopic\nvalue: {value}\n"})
    code, out, _ = run(tmp_path, monkeypatch, "t.yaml", "--format", "json")
    assert code == 1 and located(out) == [("t.yaml", 2, 8)]


@pytest.mark.parametrize("doc", ["kind: []\napiVersion: kafka.strimzi.io/v1beta2\n",
                                 "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                 "metadata: [x]\nspec: {}\n",
                                 "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                 "metadata: {name: t, annotations: [x]}\nspec: {}\n",
                                 "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\n"
                                 "metadata: {name: c, labels: [x]}\nspec: {kafka: []}\n",
                                 "apiVersion: v1\nkind: List\nitems: [1, [2], {kind: []}]\n"])
def test_2_values_of_the_wrong_shape(tmp_path, monkeypatch, doc):
    write_files(tmp_path, {"x.yaml": doc, "topic.yaml": TOPIC})
    code, out, _ = run(tmp_path, monkeypatch, "x.yaml", "topic.yaml", "--format", "json")
    assert code in (0, 1)
    assert {f["file"] for f in out["findings"]} <= {"x.yaml", "topic.yaml"}


@pytest.mark.parametrize("name,text", [
    ("hex.yaml", "kind: KafkaTopic\nspec: {replicas: 0x" + "f" * 3900 + "}\n"),
    ("oct.yaml", "kind: KafkaTopic\nspec: {replicas: 0" + "7" * 4400 + "}\n"),
    ("dec.yaml", "kind: KafkaTopic\nspec: {replicas: " + "9" * 4500 + "}\n"),
    ("big.json", '{"partitions": [{"topic": "t", "partition": ' + "9" * 5000 + "}]}"),
])
def test_3_integers_beyond_pythons_digit_limit(tmp_path, monkeypatch, name, text):
    write_files(tmp_path, {name: text})
    code, out, _ = run(tmp_path, monkeypatch, name, "--format", "json")
    assert code == 1 and [f["rule"] for f in out["findings"]] == ["PL100"]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github", "markdown"])
def test_4_a_lone_surrogate_in_every_output_format(tmp_path, monkeypatch, fmt):
    write_files(tmp_path, {"p.json": '{"partitions": [{"topic": "t\\ud800", "partition": 0, '
                                     '"replicas": [1, 1]}]}'})
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "p.json", "--select", "PL", "--format", fmt,
                                      "--report", f"{fmt}:out"])
    assert result.exit_code == 1, result.output
    assert "\\ud800" in result.stdout and "\\ud800" in (tmp_path / "out").read_text()


def test_5_counts_are_bounded_before_anything_is_built(tmp_path, monkeypatch):
    write_files(tmp_path, {"kafka.yaml": KAFKA.format(replicas=10**12), "topic.yaml": TOPIC})
    code, out, _ = run(tmp_path, monkeypatch, ".", "--format", "json")
    assert code == 1 and located(out, "PL101") == [("kafka.yaml", 4, 26)]
    write_files(tmp_path, {"kafka.yaml": KAFKA.format(replicas=3_000_000)})
    code, out, _ = run(tmp_path, monkeypatch, ".", "--format", "json")
    assert located(out, "PL101") == [("kafka.yaml", 4, 26)]


def test_6_special_files_in_a_walk_and_named(tmp_path, monkeypatch):
    write_files(tmp_path, {"d/topic.yaml": TOPIC})
    os.symlink("nowhere.yaml", tmp_path / "d" / "dangling.yaml")
    os.symlink("loop.yaml", tmp_path / "d" / "loop.yaml")
    os.symlink("/dev/zero", tmp_path / "d" / "zero.yaml")
    os.mkfifo(tmp_path / "d" / "fifo.yaml")
    finished = []

    def lint_all():
        finished.append(run(tmp_path, monkeypatch, "d", "--format", "json"))
    worker = threading.Thread(target=lint_all, daemon=True)
    worker.start()
    worker.join(60)
    assert finished, "the walk hung"
    code, out, _ = finished[0]
    assert out["summary"]["files"] == 1  # the topic; the rest skipped with a note
    for name in ("d/dangling.yaml", "d/loop.yaml", "d/zero.yaml", "d/fifo.yaml"):
        code, out, _ = run(tmp_path, monkeypatch, name, "--format", "json")
        assert code == 1 and located(out) == [(name, 1, 1)], name


@pytest.mark.parametrize("value", ["many", ".inf", "1e400", "99999999999999999999999", "[1]"])
def test_7_diff_mode_profile_numbers_that_are_not_integers(tmp_path, monkeypatch, value):
    from conftest import git_commit
    write_files(tmp_path, {"kafka.yaml": KAFKA.format(replicas=3).replace(
        "}}}", f", config: {{num.partitions: {value}, default.replication.factor: {value}}}}}}}"),
        "topic.yaml": TOPIC.replace("partitions: 1, replicas: 3", "partitions: 2")})
    git_commit(tmp_path, "base")
    write_files(tmp_path, {"topic.yaml": TOPIC.replace("partitions: 1, replicas: 3", "{}")
                           .replace("spec: {}", "spec: {}")})
    run(tmp_path, monkeypatch, ".", "--base", "HEAD", "--format", "json")


def test_8_context_files_and_policies_say_what_is_wrong(tmp_path, monkeypatch):
    write_files(tmp_path, {"topic.yaml": TOPIC, "binary.json": {"bytes": [0xff, 0xfe, 0x00]},
                           "empty.json": "  \n", "dir/x.json": "{}",
                           "pyproject.toml": 'tool = "x"\n',
                           "long.yaml": "extends: " + "x" * 5000 + "\n",
                           "move.json": '{"topics": [{"topic": "t"}], "version": 1}'})
    os.mkfifo(tmp_path / "fifo.json")
    for args in (["--cluster", "binary.json"], ["--cluster", "empty.json"],
                 ["--cluster", "dir"], ["--cluster", "missing.json"], ["--cluster", "fifo.json"],
                 ["--current", "fifo.json"], ["--current", "empty.json"],
                 ["--policy", "long.yaml"], ["--policy", "pyproject.toml"],
                 ["--policy", "fifo.json"], ["--policy", "dir"],
                 ["--cluster", "move.json"], ["--current", "move.json"]):  # found by the campaign
        code, _, stderr = run(tmp_path, monkeypatch, "topic.yaml", *args)
        assert code == 2 and stderr.startswith("policylint: error: "), (args, stderr)


def test_9_reports_all_or_none(tmp_path, monkeypatch):
    write_files(tmp_path, {"topic.yaml": TOPIC})
    code, _, stderr = run(tmp_path, monkeypatch, "topic.yaml", "--report", "json:ok.json",
                          "--report", "sarif:missing/x.sarif")
    assert code == 2 and "--report sarif:missing/x.sarif" in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["topic.yaml"]


def test_10_one_line_reasons_and_a_file_named_like_an_option(tmp_path, monkeypatch):
    write_files(tmp_path, {"bad.yaml": "a: [1,\n  b: {\n", "topic.yaml": TOPIC})
    code, out, _ = run(tmp_path, monkeypatch, "bad.yaml", "--format", "json")
    assert "\n" not in out["findings"][0]["message"]
    code, _, stderr = run(tmp_path, monkeypatch, "topic.yaml", "--policy",
                          "nope\nreally.yaml")
    assert code == 2
    write_files(tmp_path, {"-x.yaml": TOPIC})
    code, out, _ = run(tmp_path, monkeypatch, "--format", "json", "--", "-x.yaml")
    assert code in (0, 1) and out["summary"]["files"] == 1


@pytest.mark.parametrize("text", ["[" + "a," * 1000 + "a]\n", "---\n" * 1001,
                                  "- a\n" * 1001, "{" + "a, " * 600 + "a}\n"])
def test_11_the_nodes_of_a_yaml_file_are_bounded(tmp_path, monkeypatch, text):
    """Each node is kept for locating, at hundreds of bytes: a file of many small ones
    (``[a,a,...]``, ``---`` lines) is refused at the bound (``--max-yaml-values``), before
    memory runs out, whatever the selection; the bound can be raised."""
    write_files(tmp_path, {"many.yaml": text, "topic.yaml": TOPIC})
    code, out, _ = run(tmp_path, monkeypatch, ".", "--format", "json",
                       "--max-yaml-values", "1000", "--select", "PL301")
    assert code == 1 and located(out) == [("many.yaml", 1, 1)]
    assert "more than 1,000 YAML values in one file" in out["findings"][0]["message"]
    assert out["summary"]["files"] == 2  # the other files are still linted
    code, out, _ = run(tmp_path, monkeypatch, ".", "--format", "json",
                       "--max-yaml-values", "5000")
    assert not any("YAML values" in f["message"] for f in out["findings"])


def test_12_the_node_bound_that_skips_counting_holds(tmp_path):
    """A file is composed without counting its nodes when its characters bound them under
    MAX_NODES (``node_bound``): the bound must hold for every text, those written to
    defeat it too."""
    texts = ["a\n...\n--- b\n...\n", "- - - - a\n", "{a, b, c}\n", "[a: b, c: d]\n",
             "? a\n: b\n", "--- !!str\n--- !!str\n---\n", "a: &x {b: c}\nd: *x\n",
             "a:\n  b:\n    c: |\n      text\n", "[[[[]]]]\n", "{? a}\n", "-\n-\n-\n",
             "--- a\n--- b\n... \n", "a: [b, {c: d}, [e, f], g: h]\n", "- ? - a\n  : - b\n"]
    texts += [p.read_text() for p in sorted(Path(__file__).parents[1].glob("examples/**/*.yaml"))]
    for text in texts:
        composed = 0
        loader = yamldoc._Loader(text)
        resolve = loader.resolve

        def counting(kind, value, implicit):
            nonlocal composed
            composed += 1
            return resolve(kind, value, implicit)
        loader.resolve = counting
        while loader.check_node():
            loader.get_node()
        loader.dispose()
        assert 0 < composed <= yamldoc.node_bound(text), (text, composed)


def test_a_kafka_whose_annotations_break_its_schema_is_still_a_cluster(tmp_path):
    """Fuzzing found it: a Kafka kept despite a broken field read its annotations raw."""
    (tmp_path / "kafka.yaml").write_text(
        "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\n"
        "metadata: {name: c, annotations: oops}\nspec: {kafka: {replicas: 3}}\n")
    from policylint.linter import lint
    result = lint([str(tmp_path / "kafka.yaml")], select=["PL"])
    assert [f.rule for f in result.findings] == ["PL101"]


PLAN = '{"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 2]}]}'


def test_13_a_current_file_with_an_integer_past_pythons_digit_limit(tmp_path, monkeypatch):
    huge = "9" * 4399
    write_files(tmp_path, {"plan.json": PLAN, "current.txt":
                           "Current partition replica assignment\n"
                           '{"version":1,"partitions":[{"topic":"t","partition":0,'
                           f'"replicas":[{huge}]}}]}}\n'})
    code, _, err = run(tmp_path, monkeypatch, "plan.json", "--current", "current.txt")
    assert code == 2 and err.startswith("policylint: error: current.txt:2:") and \
        "4399 digits" in err
    code, out, _ = run(tmp_path, monkeypatch, "current.txt", "--format", "json")
    assert code == 1 and located(out) == [("current.txt", 2, 67)]


def test_14_integral_floats_the_typed_model_cannot_hold(tmp_path, monkeypatch):
    snapshot = '{"kind": "ClusterSnapshot", "version": 1.0, "cluster": "c", "brokers": [{"id": 1}]}'
    write_files(tmp_path, {"plan.json": PLAN, "c.json": snapshot})
    code, _, err = run(tmp_path, monkeypatch, "plan.json", "--cluster", "c.json")
    assert code == 2 and err.startswith("policylint: error: c.json:1:40: version: expected int")
    code, out, _ = run(tmp_path, monkeypatch, "c.json", "plan.json", "--format", "json")
    assert code == 1 and located(out, "PL101") == [("c.json", 1, 40)]


@pytest.mark.parametrize("target", ["out", "."])
def test_15_a_report_that_names_a_directory_leaves_no_temporary_file(tmp_path, monkeypatch,
                                                                       target):
    inside = tmp_path / "work"
    write_files(inside, {"plan.json": PLAN})
    (inside / "out").mkdir()
    code, _, err = run(inside, monkeypatch, "plan.json", "--report", f"json:{target}")
    assert code == 2 and err.strip().endswith(f"--report json:{target}: Is a directory")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["out", "plan.json", "work"]


FIXABLE = "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: t}\n" \
          "spec:\n  partitions: 1\n  replicas: 3\n  config:\n    log.retention.ms: 1000\n"


@pytest.mark.parametrize("target", ["r" * 300, "nul\0l", "missing/out.json", "t.yaml/x"])
def test_16_a_report_that_cannot_be_written_stops_the_run_before_any_write(
        tmp_path, monkeypatch, target):
    """--fix, the first of two reports and a baseline are all held back when one target
    cannot be written: exit 2 writes nothing (a name too long failed only at the last
    rename, after the first report and the fix were written)."""
    write_files(tmp_path, {"t.yaml": FIXABLE})
    code, _, err = run(tmp_path, monkeypatch, "t.yaml", "--fix", "--report", "json:first.json",
                       "--report", f"sarif:{target}", "--write-baseline", "base.json")
    assert code == 2 and err.startswith("policylint: error: --report sarif:")
    assert "\0" not in err and sorted(os.listdir(tmp_path)) == ["t.yaml"]
    assert (tmp_path / "t.yaml").read_text() == FIXABLE


@pytest.mark.parametrize("reason", ["\ud800", "two\nlines", "tab\there"])
def test_17_an_add_noqa_reason_that_is_not_one_line_of_text(tmp_path, monkeypatch, reason):
    write_files(tmp_path, {"t.yaml": FIXABLE})
    code, _, err = run(tmp_path, monkeypatch, "t.yaml", "--add-noqa", "--reason", reason)
    assert code == 2 and "--reason must be one line of printable UTF-8 text" in err
    assert (tmp_path / "t.yaml").read_text() == FIXABLE


def test_18_a_topic_named_with_a_lone_surrogate_is_a_pl100_a_baseline_can_hold(
        tmp_path, monkeypatch):
    """RFC 8259 section 8.2: refused where the JSON is decoded, at the escape."""
    text = '{"partitions": [{"topic": "t\\ud800", "partition": 0, "replicas": [1, 1]}]}'
    write_files(tmp_path, {"p.json": text})
    code, out, _ = run(tmp_path, monkeypatch, "p.json", "--format", "json")
    assert code == 1 and located(out) == [("p.json", 1, text.index("\\") + 1)]
    code, _, _ = run(tmp_path, monkeypatch, "p.json", "--write-baseline", "base.json")
    assert code == 0
    code, out, _ = run(tmp_path, monkeypatch, "p.json", "--baseline", "base.json",
                       "--format", "json")
    assert code == 0 and out["findings"] == []


def test_19_statistics_in_json_are_json(tmp_path, monkeypatch):
    write_files(tmp_path, {"t.yaml": FIXABLE, "bad.yaml": "a: [\n"})
    code, out, _ = run(tmp_path, monkeypatch, "t.yaml", "bad.yaml", "--statistics",
                       "--format", "json")
    assert code == 1 and {"rule": "PL100", "name": "parse-error", "severity": "error",
                          "count": 1, "fixable": 0} in out


def test_20_terraform_functions_cannot_grow_a_value_without_bound(tmp_path, monkeypatch):
    """jsonencode(jsonencode(...)) 40 deep doubles its escapes at each step (2^40 bytes):
    a function's result past a bound is an unknown value, counted, never computed."""
    nested = "jsonencode(" * 40 + '{"min.insync.replicas" = "3"}' + ")" * 40
    write_files(tmp_path, {"t.tf": 'resource "aws_msk_topic" "t" {\n  name = "t"\n'
                                   '  partition_count = 3\n  replication_factor = 3\n'
                                   f"  configs = {nested}\n}}\n"})
    code, out, _ = run(tmp_path, monkeypatch, "t.tf", "--format", "json", "--select", "PL")
    assert code in (0, 1) and out["summary"]["files"] == 1
