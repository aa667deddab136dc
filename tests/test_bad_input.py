"""Hostile and broken inputs: a located PL100/PL101 finding, never a traceback, and the
other files of the run are still linted."""

import json

import pytest
from typer.testing import CliRunner

from policylint.cli import app

TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata: {name: orders}
spec: {replicas: 2, config: {min.insync.replicas: 3}}
"""


def lint_json(tmp_path, monkeypatch, *args):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["lint", *args, "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("name,content,message", [
    ("deep.yaml", "[" * 10_000 + "]" * 10_000, "nesting is deeper than"),
    ("deep-block.yaml", "- " * 10_000 + "x\n", "nesting is deeper than"),
    ("deep-map.yaml", "{a: " * 10_000 + "1" + "}" * 10_000, "nesting is deeper than"),
    ("deep.json", "[" * 10_000 + "]" * 10_000, "nesting is too deep"),
    ("deeper.yaml", "[" * 200_000 + "]" * 200_000, "nesting is deeper than"),
])
def test_deep_nesting_is_a_located_parse_error(tmp_path, monkeypatch, name, content, message):
    (tmp_path / name).write_text(content)
    (tmp_path / "topic.yaml").write_text(TOPIC)
    code, out = lint_json(tmp_path, monkeypatch, ".")
    assert code == 1
    by_file = {f["file"]: f for f in out["findings"]}
    assert by_file[name]["rule"] == "PL100"
    assert message in by_file[name]["message"]
    assert by_file[name]["line"] == 1 and by_file[name]["column"] >= 1
    # the healthy file next to it is still linted
    assert by_file["topic.yaml"]["rule"] == "PL301"


def _refused(text: str) -> str | None:
    """Why a YAML text is refused, or None when it is read."""
    from policylint.sources.document import ParseError, SourceFile
    from policylint.sources.yamldoc import load_yaml
    try:
        load_yaml(SourceFile("t.yaml", text, "yaml"))
    except ParseError as exc:
        return exc.message
    return None


def _nested(block: int, flow: int, indent: int) -> str:
    """A document ``block`` block mappings deep (each key ``indent`` columns right of its
    parent's), then ``flow`` flow sequences."""
    lines = [" " * (indent * level) + f"k{level}:" for level in range(block)]
    lines[-1] += " " + "[" * flow + "x" + "]" * flow
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("block, flow, indent", [
    (200, 0, 1), (199, 1, 1), (100, 100, 1), (1, 199, 1), (100, 100, 0), (199, 1, 2)])
@pytest.mark.parametrize("over", [0, 1])
def test_nesting_just_within_the_limit_is_read_and_one_more_level_is_refused(
        block, flow, indent, over):
    """Wherever the levels come from, block or flow: 200 are read, 201 refused (the bound
    that skips the exact depth count must never skip a text that is too deep)."""
    from policylint.sources.yamldoc import MAX_DEPTH
    assert block + flow == MAX_DEPTH
    text = _nested(block, flow + over, indent) if indent else \
        "[" * (flow + over) + "{a: " * block + "1" + "}" * block + "]" * (flow + over)
    why = _refused(text)
    assert (why is not None) == bool(over)
    assert why is None or "nesting is deeper than" in why


def test_every_bad_file_of_a_run_is_reported(tmp_path, monkeypatch):
    files = {
        "a.yaml": "key: [unclosed\n",
        "b.json": '{"version": 1, "partitions": [{"topic": "t", "partition": NaN}]}',
        "c.yaml": "",
        "d.json": b"\x89PNG\r\n\x1a\n\x00\x00",
        "e.yaml": "a: 1\na: 2\n",
        "f.yaml": "x: !!python/object:os.system {}\n",
    }
    for name, content in files.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out = lint_json(tmp_path, monkeypatch, ".")
    assert code == 1
    # an empty YAML file is skipped by a walk, with its reason (charts hold empty values.yaml)
    assert sorted((f["file"], f["rule"]) for f in out["findings"]) == [
        (name, "PL100") for name in sorted(files) if name != "c.yaml"]
    assert {"file": "c.yaml", "reason": "file is empty"} in out["summary"]["skipped"]
    assert all(f["line"] >= 1 and f["column"] >= 1 for f in out["findings"])
    code, out = lint_json(tmp_path, monkeypatch, "c.yaml")  # named, it is a finding
    assert [(f["file"], f["rule"]) for f in out["findings"]] == [("c.yaml", "PL100")]


def test_file_over_the_size_limit(tmp_path, monkeypatch):
    (tmp_path / "plan.json").write_text(json.dumps(
        {"version": 1, "partitions": [{"topic": "t", "partition": i, "replicas": [1]}
                                      for i in range(100)]}))
    code, out = lint_json(tmp_path, monkeypatch, "plan.json", "--max-file-size", "1K")
    assert code == 1
    assert out["findings"][0]["rule"] == "PL100"
    assert "larger than the 1024 bytes limit" in out["findings"][0]["message"]
    code, out = lint_json(tmp_path, monkeypatch, "plan.json", "--max-file-size", "1M",
                          "--select", "PL1")
    assert out["findings"] == []


def test_alias_bomb_is_bounded(tmp_path, monkeypatch):
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 12):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n")
    code, out = lint_json(tmp_path, monkeypatch, "bomb.yaml")
    assert [f["rule"] for f in out["findings"]] == ["PL100"]
    assert "alias" in out["findings"][0]["message"]


@pytest.mark.parametrize("documents, refused", [(1, False), (20, True)])
def test_the_alias_budget_is_the_whole_files(documents, refused):
    """Each document expands a moderate alias on its own; together they build far more
    values than the file's size allows, and the file is refused (one document is read)."""
    doc = "a: &a [" + ", ".join(["x"] * 100) + "]\nb: [" + ", ".join(["*a"] * 100) + "]\n"
    why = _refused("---\n".join([doc] * documents))
    assert (why is not None) == refused
    assert why is None or "alias expansion is too large" in why
