"""Nothing injected, nothing silently passed: names and values from inputs cannot act on a
terminal, a CI log or a job summary, and every class the fresh-seed fuzz campaign found is
a located finding, not an internal error."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from policylint.cli import app
from policylint.words import shown

from conftest import write_files

# a file name that would start a GitHub workflow command on a line of its own, retitle the
# terminal (OSC) and ring its bell, and a topic name that clears the screen
EVIL_FILE = "x\n::error file=evil.yaml::forged\x1b]0;pwned\x07.yaml"
TOPIC = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
         "metadata: {{name: \"{name}\"}}\nspec: {{replicas: 2, config: {{min.insync.replicas: 3}}}}\n")


def lint(tmp_path, monkeypatch, *args):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", *args])
    assert "internal error" not in result.stderr and "Traceback" not in result.output
    return result


@pytest.fixture
def evil(tmp_path):
    (tmp_path / EVIL_FILE).write_text(TOPIC.format(name="a\\e[2J\\u202eb"))
    (tmp_path / "::error file=y::z.yaml").write_text(TOPIC.format(name="<img src=x>"))
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "concise"])
def test_human_formats_escape_control_characters_and_start_no_command(evil, monkeypatch, fmt):
    out = lint(evil, monkeypatch, ".", "--format", fmt).stdout
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert all(not line.startswith("::") for line in out.splitlines())
    assert "x\\n::error file=evil.yaml::forged\\x1b]0;pwned\\x07.yaml:4:51: PL301" in out
    assert "./::error file=y::z.yaml:4:51: PL301" in out
    assert "topic a\\x1b[2J\\u202eb:" in out


def test_markdown_escapes_html(evil, monkeypatch):
    out = lint(evil, monkeypatch, ".", "--format", "markdown").stdout
    assert "<img" not in out and "&lt;img src=x&gt;" in out
    assert "\x1b" not in out and all(not line.startswith("::") for line in out.splitlines())


def test_sarif_uris_are_percent_encoded(evil, monkeypatch):
    out = json.loads(lint(evil, monkeypatch, ".", "--format", "sarif").stdout)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in out["runs"][0]["results"]}
    assert uris == {"%3A%3Aerror%20file=y%3A%3Az.yaml",
                    "x%0A%3A%3Aerror%20file=evil.yaml%3A%3Aforged%1B%5D0;pwned%07.yaml"}


def test_stderr_lines_quote_names_escaped(tmp_path, monkeypatch):
    result = lint(tmp_path, monkeypatch, "--policy", "no\n::error::forged.yaml", ".")
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "no\\n::error::forged.yaml" in result.stderr


def test_shown_leaves_plain_text_as_it_is():
    text = "topic orders: replication factor 3 (ünïcode, 日本)"
    assert shown(text) is text
    assert shown("a\tb\rc\x9bd\ud800") == "a\\tb\\rc\\x9bd\\ud800"


# -- silent false passes ----------------------------------------------------------------

def test_a_file_policylint_cannot_read_is_reported_whatever_the_selection(tmp_path, monkeypatch):
    write_files(tmp_path, {"bad.yaml": "a: [\n"})
    result = lint(tmp_path, monkeypatch, "bad.yaml", "--select", "PL301")
    assert result.exit_code == 1 and "bad.yaml:2:1: PL100" in result.stdout
    result = lint(tmp_path, monkeypatch, "bad.yaml", "--ignore", "PL100", "--format", "json")
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["PL100"]


def test_a_terraform_plan_whose_resource_changes_is_no_list_breaks_its_schema(tmp_path,
                                                                                monkeypatch):
    write_files(tmp_path, {"plan.json": '{"format_version": "1.2", "terraform_version": '
                                        '"1.9.0", "resource_changes": {"a": 1}}'})
    result = lint(tmp_path, monkeypatch, "plan.json", "--format", "json")
    found = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["message"]) for f in found] == [
        ("PL101", "resource_changes: a mapping is not a list")]


# -- the fresh-seed campaign's classes ----------------------------------------------------

def test_a_suppression_annotation_that_is_a_number(tmp_path, monkeypatch):
    write_files(tmp_path, {"t.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                     "metadata:\n  name: t\n  annotations: "
                                     "{policylint.io/disable: 301}\nspec: {replicas: 3}\n"})
    result = lint(tmp_path, monkeypatch, "t.yaml", "--format", "json")
    found = {(f["rule"], f["line"]) for f in json.loads(result.stdout)["findings"]}
    assert ("PL101", 5) in found  # Kubernetes annotations are strings
    assert ("PL122", 5) in found  # and "301" names no rule


def test_deeply_nested_json_in_the_kafka_tools_output(tmp_path, monkeypatch):
    nested = "Current partition replica assignment\n\n" + '{"a":' * 3000 + "1" + "}" * 3000
    write_files(tmp_path, {"current.txt": nested, "out.json": nested,
                           "plan.json": '{"version": 1, "partitions": [{"topic": "t", '
                                        '"partition": 0, "replicas": [1]}]}'})
    result = lint(tmp_path, monkeypatch, "plan.json", "--current", "current.txt")
    assert result.exit_code == 2 and "nests too deep" in result.stderr
    result = lint(tmp_path, monkeypatch, "out.json")
    assert result.exit_code == 1 and "out.json:3:1: PL100" in result.stdout


def test_a_float_version_beside_a_broken_topic(tmp_path, monkeypatch):
    """JSON Schema takes 1.0 for the const 1, the typed model does not: said, not a crash."""
    write_files(tmp_path, {"snap.yaml": "kind: ClusterSnapshot\nversion: 1.0\ncluster: c\n"
                                        "brokers: [{id: 1}]\ntopics: [{name: t, partitions: "
                                        "[{partition: x, replicas: [1]}]}]\n"})
    result = lint(tmp_path, monkeypatch, ".", "--format", "json")
    found = [(f["rule"], f["line"]) for f in json.loads(result.stdout)["findings"]]
    assert found == [("PL101", 2), ("PL101", 5)]


def test_a_lone_surrogate_in_a_file_name_and_a_value(tmp_path):
    """Names that are not UTF-8 and JSON's lone surrogates, in every format, in a real
    process (its standard streams as a shell gives them)."""
    (tmp_path / "t\udcff.json").write_bytes(
        b'{"version": 1, "partitions": [{"topic": "t\\ud800", "partition": 0, '
        b'"replicas": [1, 1]}]}')
    for fmt in ("text", "concise", "json", "sarif", "github", "markdown", "junit", "gitlab",
                "checkstyle"):
        done = subprocess.run([sys.executable, "-m", "policylint", "lint", ".", "--format", fmt],
                              cwd=tmp_path, capture_output=True)
        assert done.returncode == 1, (fmt, done.stderr)
        assert b"internal error" not in done.stderr and b"Traceback" not in done.stderr


def test_unknown_keys_by_the_thousand_get_no_suggestion_past_the_first_hundred(tmp_path,
                                                                             monkeypatch):
    """Suggestions for 20,000 unknown keys took 16 s; past 100 in one config none is
    looked for (bench/fuzz.py measures the time)."""
    keys = "".join(f"    retention.mz{i}: 1\n" for i in range(150))
    write_files(tmp_path, {"t.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                     "metadata: {name: t}\nspec:\n  config:\n" + keys})
    result = lint(tmp_path, monkeypatch, "t.yaml", "--format", "json", "--select", "PL601")
    messages = [f["message"] for f in json.loads(result.stdout)["findings"]]
    assert len(messages) == 150
    assert sum("did you mean" in m for m in messages) == 100
