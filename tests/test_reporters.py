"""Output formats: golden files for each, SARIF against the official schema, GitHub escaping."""

import datetime as dt
import json
import os
from pathlib import Path

import jsonschema
import pytest
from typer.testing import CliRunner

from policylint.cli import app
from policylint.engine import Result
from policylint.linter import lint
from policylint.model import Finding
from policylint.registry import reporter_formats
from policylint.reporters import render
from policylint.words import shown

from conftest import BUILT_IN

ROOT = Path(__file__).parent.parent
GOLDEN = Path(__file__).parent / "golden"
SARIF_SCHEMA = json.loads((Path(__file__).parent / "data/sarif-schema-2.1.0.json").read_text())
SUFFIX = {"text": "txt", "json": "json", "sarif": "sarif", "github": "github", "markdown": "md",
          "concise": "concise.txt", "junit": "junit.xml", "gitlab": "gitlab.json",
          "checkstyle": "checkstyle.xml"}
SCHEMAS = Path(__file__).parent / "data/schemas"


@pytest.fixture
def examples(monkeypatch):
    """The bundled examples, linted from the project root on a fixed day."""
    monkeypatch.chdir(ROOT)
    return lint(["examples/gitops"], cluster="examples/clusters/prod-eu-1.json",
                policy="examples/policylint.yaml", today=dt.date(2026, 11, 21), select=BUILT_IN)


FORMATS = [name for name, ep in reporter_formats().items() if ep.value.startswith("policylint.")]


@pytest.mark.parametrize("fmt", FORMATS)
def test_golden(fmt, examples):
    """Set POLICYLINT_UPDATE_GOLDEN=1 to rewrite the golden files after a deliberate change."""
    output = render(fmt, examples)
    golden = GOLDEN / f"examples.{SUFFIX[fmt]}"
    if os.environ.get("POLICYLINT_UPDATE_GOLDEN"):
        golden.write_text(output)
    assert output == golden.read_text()


def test_sarif_is_valid_and_complete(examples):
    sarif = json.loads(render("sarif", examples))
    jsonschema.validate(sarif, SARIF_SCHEMA)
    run = sarif["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for rule in rules:
        assert {"id", "name", "shortDescription", "help", "defaultConfiguration"} <= set(rule)
        assert rule["help"]["text"].count("## ") >= 4
    assert {r["id"]: r["defaultConfiguration"]["level"] for r in rules}["PL205"] == "warning"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        uri = location["artifactLocation"]["uri"]
        assert uri.startswith("examples/gitops/") and location["region"]["startLine"] >= 1
    suppressed = [r for r in run["results"] if "suppressions" in r]
    assert len(suppressed) == 2
    assert {s["suppressions"][0]["kind"] for s in suppressed} == {"inSource", "external"}
    assert all(s["suppressions"][0]["justification"] for s in suppressed)


def test_sarif_fingerprints_survive_moved_lines(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    topic = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: t}\n"
             "spec:\n  replicas: 2\n  config: {min.insync.replicas: 3}\n")
    plan = ('{"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1, 1]},'
            ' {"topic": "t", "partition": 1, "replicas": [2, 2]}]}')

    def fingerprints():
        sarif = json.loads(render("sarif", lint(["."])))
        results = sarif["runs"][0]["results"]
        return ({r["partialFingerprints"]["policylint/v1"] for r in results},
                [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results])

    (tmp_path / "t.yaml").write_text(topic)
    (tmp_path / "p.json").write_text(plan)
    before, lines_before = fingerprints()
    (tmp_path / "t.yaml").write_text("# owned by team-a\n\n" + topic)
    (tmp_path / "p.json").write_text(plan.replace('[{"topic"', '[\n\n  {"topic"'))
    after, lines_after = fingerprints()
    assert lines_before != lines_after
    assert before == after and len(before) == len(lines_before) >= 3  # each its own


def finding(message, severity="error", **kw):
    f = Finding("PL301", "min-isr-exceeds-rf", severity, message, file="a.yaml", line=3,
                column=5, **kw)
    return f


def test_github_escapes_data_and_properties(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = Result([finding("100% sure\r\nnext: a, b"),
                     Finding("PL303", "min-isr-too-low", "note", "low", file="x:y,z.yaml"),
                     finding("hidden", suppressed=True)], 2, {"PL201": 0})
    lines = render("github", result).splitlines()
    assert lines[0] == ("::error file=a.yaml,line=3,col=5,title=PL301 min-isr-exceeds-rf::"
                        "100%25 sure%0D%0Anext: a, b")
    assert lines[1] == "::notice file=x%3Ay%2Cz.yaml,title=PL303 min-isr-too-low::low"
    assert len(lines) == 3 and lines[2].startswith("Found 2 problems")


def test_markdown_escapes_table_cells(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = render("markdown", Result([finding("a | b\nc")], 1, {"PL201": 0}))
    assert "| `a.yaml:3:5` | :x: PL301 | a \\| b c |" in out


def test_github_format_is_the_default_in_github_actions(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.json").write_text('{"version": 1, "partitions": []}')
    out = CliRunner().invoke(app, ["lint", "p.json"], env={"GITHUB_ACTIONS": "true"}).stdout
    assert out.startswith("::error file=p.json,line=1,col=")
    out = CliRunner().invoke(app, ["lint", "p.json"], env={"GITHUB_ACTIONS": ""}).stdout
    assert out.startswith("p.json:1:")


def test_report_files_are_written_besides_stdout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.json").write_text('{"version": 1, "partitions": []}')
    run = CliRunner().invoke(app, ["lint", "p.json", "--format", "github",
                                   "--report", "sarif:out.sarif", "--report", "json:out.json"])
    assert run.exit_code == 1 and run.stdout.startswith("::error ")
    jsonschema.validate(json.loads((tmp_path / "out.sarif").read_text()), SARIF_SCHEMA)
    assert json.loads((tmp_path / "out.json").read_text())["summary"]["error"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json", "out.sarif", "p.json"]
    for umask, mode in ((0o022, 0o644), (0o027, 0o640)):  # as the user creates files
        before = os.umask(umask)
        try:
            CliRunner().invoke(app, ["lint", "p.json", "--report", f"json:new-{umask}.json"])
        finally:
            os.umask(before)
        assert (tmp_path / f"new-{umask}.json").stat().st_mode & 0o777 == mode
    os.chmod(tmp_path / "out.json", 0o600)  # a report written again keeps its mode
    CliRunner().invoke(app, ["lint", "p.json", "--report", "json:out.json"])
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o600
    bad = CliRunner().invoke(app, ["lint", "p.json", "--report", "xml:out.xml"])
    assert bad.exit_code == 2 and "FORMAT:FILE" in bad.stderr
    missing = CliRunner().invoke(app, ["lint", "p.json", "--report", "json:no/such/dir/x"])
    assert missing.exit_code == 2 and "--report json:no/such/dir/x" in missing.stderr


def test_every_output_names_the_skipped_files(tmp_path, monkeypatch):
    """A CFK or Helm repository used to "pass" with files: 0 and no word of what was not read."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "values.yaml").write_text("replicaCount: 1\n")
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "topic.yaml").write_text(
        "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata:\n"
        "  name: {{ .Values.name }}\n")
    result = lint(["."], select=BUILT_IN)
    skipped = {"values.yaml", "templates/topic.yaml"}
    sarif = json.loads(render("sarif", result))
    jsonschema.validate(sarif, SARIF_SCHEMA)
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert {n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for n in notes} == skipped
    assert {d["file"] for d in json.loads(render("json", result))["summary"]["skipped"]} \
        == skipped
    github = render("github", result)
    assert github.count("::notice file=") == 2 and "title=policylint skipped" in github
    markdown = render("markdown", result)
    assert all(f"`{name}`" in markdown for name in skipped)
    text = render("text", result)
    assert "templates/topic.yaml (a template" in text


HOSTILE = Result([Finding("PL301", "min-isr-exceeds-rf", "error", "a\x00b <&> \"q\" \udfb7 ✓",
                          file="dir/ä <x>.yaml", line=2, column=1),
                  Finding("PL302", "min-isr-equals-rf", "warning", "second", file="dir/ä <x>.yaml",
                          line=9, column=3),
                  Finding("PL120", "expired-exemption", "note", "policy note")], 1,
                 {"PL201": 0})


@pytest.mark.parametrize("result", ["examples", "hostile"])
def test_junit_is_valid_for_jenkins_and_gitlab(result, examples, tmp_path, monkeypatch):
    import xmlschema
    monkeypatch.chdir(tmp_path)
    chosen = examples if result == "examples" else HOSTILE
    out = render("junit", chosen)
    schema = xmlschema.XMLSchema(str(SCHEMAS / "jenkins-junit.xsd"))
    schema.validate(out)
    data = schema.to_dict(out)
    cases = data["testsuite"][0]["testcase"]
    active = [f for f in chosen.findings if not f.suppressed]
    assert sum(len(c.get("failure", [])) for c in cases) == len(active)  # one a finding
    assert len({c["@name"] for c in cases}) == len(cases)  # one a file


@pytest.mark.parametrize("result", ["examples", "hostile"])
def test_gitlab_code_quality_is_valid(result, examples, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    chosen = examples if result == "examples" else HOSTILE
    issues = json.loads(render("gitlab", chosen))
    jsonschema.validate(issues, json.loads((SCHEMAS / "gitlab-codequality.schema.json")
                                           .read_text()))
    assert len(issues) == len([f for f in chosen.findings if not f.suppressed])
    assert len({i["fingerprint"] for i in issues}) == len(issues)  # GitLab needs them unique
    assert {i["severity"] for i in issues} <= {"major", "minor", "info"}


def test_checkstyle_parses_and_counts(tmp_path, monkeypatch):
    from xml.etree import ElementTree as ET
    monkeypatch.chdir(tmp_path)
    root = ET.fromstring(render("checkstyle", HOSTILE).encode())
    errors = root.findall("./file/error")
    assert [e.get("source") for e in errors][:2] == ["policylint.PL301.min-isr-exceeds-rf",
                                                    "policylint.PL302.min-isr-equals-rf"]
    assert root.find("./file").get("name") == "dir/ä <x>.yaml"


def test_concise_lines_are_clickable_and_never_wrapped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    long = Finding("PL301", "min-isr-exceeds-rf", "error", "x " * 200 + "\nend", file="a.yaml",
                   line=3, column=5)
    lines = render("concise", Result([long], 1, {"PL201": 0}), quiet=True).splitlines()
    assert lines == [f"a.yaml:3:5: PL301 [error] {'x ' * 200}end"]


def test_text_shows_the_source_line_and_a_caret(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                     "metadata: {name: t}\nspec:\n  replicas: 2\n"
                                     "  config: {min.insync.replicas: 3}\n")
    out = render("text", lint(["t.yaml"], select=["PL301"]))
    assert out.splitlines()[:4] == [
        "t.yaml:6:33: PL301 [error] topic t: min.insync.replicas=3 > replication factor 2: "
        "on Kafka 3.7 and later the broker caps min.insync.replicas at the replication "
        "factor: every acks=all write needs every replica in sync, and one broker down "
        "blocks writes; before 3.7 every acks=all produce fails (NotEnoughReplicas)",
        "   |", " 6 |   config: {min.insync.replicas: 3}", "   |                                 ^"]


def test_output_details_a_new_user_meets(tmp_path, monkeypatch):
    """JUnit counts that add up, policylint's own reports not listed as skipped inputs, a
    name that is not UTF-8 shown by its byte, and a run that read nothing said so."""
    import xml.etree.ElementTree as ElementTree
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.json").write_text('{"version": 1, "partitions": [{"topic": "t", '
                                     '"partition": 0, "replicas": [1, 1]}, {"topic": "t", '
                                     '"partition": 1, "replicas": []}]}')
    (tmp_path / "notes.yaml").write_text("a: 1\n")
    run = CliRunner().invoke(app, ["lint", ".", "--select", "PL1", "--format", "junit",
                                   "--report", "json:report.json"])
    suite = ElementTree.fromstring(run.stdout.split("\n", 1)[1]).find("testsuite")
    cases = suite.findall("testcase")
    assert int(suite.get("tests")) == len(cases) == 3  # two failures, one skipped file
    assert int(suite.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
    assert int(suite.get("skipped")) == sum(1 for c in cases if c.find("skipped") is not None)
    again = CliRunner().invoke(app, ["lint", ".", "--format", "json"])
    assert [s["file"] for s in json.loads(again.stdout)["summary"]["skipped"]] == ["notes.yaml"]
    assert shown("t\udcff.json") == "t\\xff.json"
    (tmp_path / "empty").mkdir()
    nothing = CliRunner().invoke(app, ["lint", "empty"])
    assert nothing.stdout.startswith("Nothing to check: no Kafka topic declaration")


def test_json_findings_carry_their_end_url_and_fix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                     "metadata: {name: orders}\nspec:\n  replicas: 3\n"
                                     "  config:\n    retention.mss: \"1000\"\n")
    out = json.loads(CliRunner().invoke(app, ["lint", "t.yaml", "--select", "PL601",
                                              "--format", "json"]).stdout)
    (found,) = out["findings"]
    assert (found["line"], found["column"], found["end_line"], found["end_column"]) == \
        (7, 5, 7, 18)
    assert found["url"].endswith("/docs/rules/PL601.md")
    assert found["fix"] == {"action": "rename", "path": ["spec", "config", "retention.mss"],
                            "value": "1000", "key": "retention.ms"}
    assert out["summary"]["fixable"] == 1


def test_sarif_paths_are_relative_to_the_repository_root_from_anywhere(tmp_path, monkeypatch):
    """Run from outside the repository (a CI step in another folder): the URIs are still
    relative to the root of the repository that holds each file."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "kafka").mkdir()
    (repo / "kafka" / "t.yaml").write_text(
        "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: t}\n"
        "spec: {partitions: 1, replicas: 1}\n")
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    sarif = json.loads(render("sarif", lint(["../repo/kafka"])))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in sarif["runs"][0]["results"]}
    assert uris == {"kafka/t.yaml"}
