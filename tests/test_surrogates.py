"""Unpaired surrogate escapes (RFC 8259 section 8.2), refused where JSON text is decoded: at
every value and key position of every JSON kind policylint reads (plans, snapshots, Kafka's
tool output, Terraform plans), as input or as context (--cluster, --current, baseline,
--log-dirs), the answer is a PL100 at the escape or one line and exit 2, never a crash."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from policylint.cli import app

ROOT = Path(__file__).parents[1]
LONE = "\\udc88"
DOCUMENTS = {
    "snapshot": json.loads((ROOT / "examples/clusters/prod-eu-1.json").read_text()),
    "plan": json.loads((ROOT / "examples/gitops/plans/grow-orders.json").read_text()),
    "terraform-plan": json.loads((ROOT / "tests/data/terraform-plan.json").read_text()),
}
MARK = "@@lone@@"


def positions(value, path=()):
    """Every path to a value or a key (("key", path) for the key of an object's member)."""
    yield ("value", path)
    if isinstance(value, dict):
        for key, item in value.items():
            yield ("key", path + (key,))
            yield from positions(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from positions(item, path + (i,))


def marked(value, where, path):
    """``value`` with the mark put at ``path`` (in place of the value, or of the key)."""
    if not path:
        return MARK
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if where == "key" and not rest:
            return {(MARK if k == head else k): v for k, v in value.items()}
        return {k: (marked(v, where, rest) if k == head else v) for k, v in value.items()}
    return [marked(v, where, rest) if i == head else v for i, v in enumerate(value)]


def text_with_lone_surrogate(document, where, path):
    text = json.dumps(marked(document, where, path), indent=1)
    return text.replace(f'"{MARK}"', f'"{LONE}"', 1)


def lint(tmp_path, monkeypatch, *args):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "--select", "PL", "--format", "json", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert "internal error" not in result.stderr
    return result


def expected_location(text):
    offset = text.index(LONE)
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


CASES = [(kind, where, path) for kind, document in DOCUMENTS.items()
         for where, path in positions(document)]


@pytest.mark.parametrize("kind, where, path", CASES,
                         ids=[f"{k}-{w}-{'.'.join(map(str, p))}" for k, w, p in CASES])
def test_a_lone_surrogate_anywhere_is_a_located_pl100(tmp_path, monkeypatch, kind, where, path):
    text = text_with_lone_surrogate(DOCUMENTS[kind], where, path)
    (tmp_path / "input.json").write_text(text)
    result = lint(tmp_path, monkeypatch, "input.json")
    assert result.exit_code == 1, result.output
    findings = json.loads(result.stdout)["findings"]
    assert [(f["rule"], f["line"], f["column"]) for f in findings] == \
        [("PL100", *expected_location(text))]


@pytest.mark.parametrize("fmt", ["text", "sarif", "github", "junit", "gitlab", "checkstyle",
                                 "markdown", "concise"])
def test_every_output_format_reports_it(tmp_path, monkeypatch, fmt):
    (tmp_path / "s.json").write_text('{"kind":"ClusterSnapshot","version":1,"cluster":"c",'
                                     '"brokers":[{"id":1}],"topics":"\\udc88"}')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", "s.json", "--format", fmt])
    assert result.exit_code == 1 and result.exception is None or \
        isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 1, result.output
    assert "PL100" in result.stdout and "unpaired surrogate" in result.stdout


def test_as_context_files(tmp_path, monkeypatch):
    snapshot = text_with_lone_surrogate(DOCUMENTS["snapshot"], "value", ("cluster",))
    (tmp_path / "bad.json").write_text(snapshot)
    (tmp_path / "plan.json").write_text(json.dumps(DOCUMENTS["plan"]))
    for option in ("--cluster", "--current"):
        result = lint(tmp_path, monkeypatch, "plan.json", option, "bad.json")
        assert result.exit_code in (1, 2), result.output
        if result.exit_code == 2:
            assert len(result.stderr.splitlines()) == 1 and "bad.json" in result.stderr
        else:
            (finding,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "PL100"]
            assert (finding["file"], finding["line"]) == ("bad.json", 1 + snapshot[
                :snapshot.index(LONE)].count("\n"))
    (tmp_path / "baseline.json").write_text(
        '{"format": "policylint-baseline", "version": 1, "findings": [{"fingerprint": "\\ud800"}]}')
    result = lint(tmp_path, monkeypatch, "plan.json", "--baseline", "baseline.json")
    assert result.exit_code == 2 and "unpaired surrogate" in result.stderr
    assert len(result.stderr.splitlines()) == 1
