"""--fix and --diff: only the fixed values change, writes are atomic and careful, and the
exit status is about what is left."""

import io
import json
import os
import stat
import subprocess
import sys

import pytest

from policylint import fixes
from policylint.linter import lint

from conftest import write_files

TOPIC = """# payments
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata: {name: payments}   # flow style stays
spec:
  replicas: 3
  config:
    min.insync.replicas: 3   # strict
    message.format.version: '2.8'
"""


def run(cwd, *args):
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "--select", "PL",
                           "--policy", "policy.yaml", *args], cwd=cwd, capture_output=True,
                          text=True)
    return done.returncode, done.stdout, done.stderr


def test_fix_writes_only_the_fixed_values_and_lints_again(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC, "policy.yaml": "kafka_version: '4.0'\n"})
    os.chmod(tmp_path / "t.yaml", 0o640)
    code, out, err = run(tmp_path, "t.yaml", "--fix")
    assert code == 0 and "No problems found" in out and "fixed 2 findings in 1 file" in err
    assert (tmp_path / "t.yaml").read_text() == TOPIC.replace(
        "min.insync.replicas: 3   # strict", "min.insync.replicas: 2   # strict").replace(
        "    message.format.version: '2.8'\n", "")
    assert stat.S_IMODE(os.stat(tmp_path / "t.yaml").st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.yaml", "t.yaml"]


def test_diff_prints_and_writes_nothing(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC, "policy.yaml": "kafka_version: '4.0'\n"})
    code, out, _ = run(tmp_path, "t.yaml", "--diff")
    assert code == 1 and out.startswith("--- a/t.yaml\n+++ b/t.yaml\n")
    assert "\n-    min.insync.replicas: 3   # strict\n" in out
    assert "\n+    min.insync.replicas: 2   # strict\n" in out
    assert (tmp_path / "t.yaml").read_text() == TOPIC
    code, out, _ = run(tmp_path, "t.yaml", "--diff", "--fix")  # --diff wins: no write
    assert code == 1 and (tmp_path / "t.yaml").read_text() == TOPIC


@pytest.mark.parametrize("what", ["--fix", "--add-noqa"])
@pytest.mark.parametrize("name", ["t.yaml", "t\x00.yaml"])
def test_standard_input_is_never_written_to_the_file_it_is_named_after(
        tmp_path, monkeypatch, capsys, what, name):
    """--stdin-filename names standard input; the file of that name, even one that reads the
    same, is not what was linted and is left alone (a NUL in the name is no crash)."""
    from policylint.cli import run as policylint
    write_files(tmp_path, {"t.yaml": TOPIC, "policy.yaml": "kafka_version: '4.0'\n"})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TOPIC.encode())))
    code = policylint(["lint", "--select", "PL", "--policy", "policy.yaml",
                       "--stdin-filename", name, what, "-"])
    captured = capsys.readouterr()
    # --fix prints the fixed input (and lints it again: nothing left), --add-noqa writes none
    assert code == (0 if what == "--fix" else 1) and "internal error" not in captured.err
    assert (tmp_path / "t.yaml").read_text() == TOPIC


def test_suppressed_findings_are_not_fixed(tmp_path):
    text = TOPIC.replace("# strict", "# policylint: disable=PL302 audited")
    write_files(tmp_path, {"t.yaml": text, "policy.yaml": "rules: {PL605: {enabled: false}}\n"})
    code, _, err = run(tmp_path, "t.yaml", "--fix")
    assert code == 0 and (tmp_path / "t.yaml").read_text() == text
    assert "fixed 0 findings" in err


def test_a_file_ruamel_would_reformat_is_left_as_it_is(tmp_path):
    text = TOPIC.replace("metadata: {name: payments}   # flow style stays",
                         "metadata:\n    name: payments\n    labels:\n        team: pay")
    write_files(tmp_path, {"t.yaml": text, "policy.yaml": "{}\n"})
    code, _, err = run(tmp_path, "t.yaml", "--fix")
    assert "t.yaml not fixed: would change other lines" in err
    # PL605 is left: a warning, since no input says the release (3.x accepts the key)
    assert (tmp_path / "t.yaml").read_text() == text and code == 0


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC})
    os.chdir(tmp_path)
    result = lint(["t.yaml"], select=["PL302"])
    (tmp_path / "t.yaml").write_text(TOPIC + "# edited meanwhile\n")
    (outcome,) = fixes.apply(result.findings, write=True)
    assert outcome.problem == "changed on disk since it was read: not overwritten"
    assert (tmp_path / "t.yaml").read_text().endswith("# edited meanwhile\n")


def test_plans_without_their_cluster_get_no_fixes(tmp_path):
    write_files(tmp_path, {"plan.json": '{"version": 1, "partitions": [{"topic": "t", '
                                        '"partition": 0, "replicas": [1, 1]}]}'})
    os.chdir(tmp_path)
    result = lint(["plan.json"], select=["PL"])
    assert result.findings and fixes.apply(result.findings, write=True) == []


def test_fix_is_imported_only_when_asked(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC})
    code = ("import sys; from policylint.linter import lint; lint([sys.argv[1]]); "
            "print('ruamel' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t.yaml")],
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_add_noqa_suppresses_each_finding_above_its_line(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC, "policy.yaml": "kafka_version: '4.0'\n"})
    code, out, err = run(tmp_path, "t.yaml", "--add-noqa", "--reason", "known since 2026")
    assert code == 0 and "suppressed 2 findings with comments" in err
    text = (tmp_path / "t.yaml").read_text()
    assert "    # policylint: disable=PL302 known since 2026\n    min.insync.replicas: 3" in text
    assert "    # policylint: disable=PL605 known since 2026\n    message.format.version" in text
    assert text.replace("    # policylint: disable=PL302 known since 2026\n", "").replace(
        "    # policylint: disable=PL605 known since 2026\n", "") == TOPIC
    code, out, _ = run(tmp_path, "t.yaml", "--format", "json")  # every comment in use
    assert code == 0 and not [f for f in json.loads(out)["findings"]
                              if not f["suppressed"]]


@pytest.mark.parametrize("text", ["{{{", "---", "kind: KafkaTopic\rspec: [\r"])
def test_add_noqa_leaves_a_finding_at_the_end_of_the_text_alone(tmp_path, text):
    """A YAML error at the end of the text is located past its last line: no line to put
    a comment above (an IndexError before)."""
    write_files(tmp_path, {"t.yaml": text, "policy.yaml": "{}\n"})
    code, _, err = run(tmp_path, "t.yaml", "--add-noqa")
    assert code in (0, 1) and "suppressed 0 findings" in err and "internal" not in err, err
    assert (tmp_path / "t.yaml").read_bytes() == text.encode()


def test_add_noqa_keeps_a_block_scalar_as_it_is(tmp_path):
    text = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata:\n  name: t\n"
            "  annotations:\n    note: |\n      kept as written\n      min.insync.replicas: 3\n"
            "spec: {replicas: 3, config: {min.insync.replicas: 3}}\n")
    write_files(tmp_path, {"t.yaml": text, "policy.yaml": "{}\n"})
    code, _, err = run(tmp_path, "t.yaml", "--add-noqa")
    assert "suppressed 1 finding" in err and code == 0
    fixed = (tmp_path / "t.yaml").read_text()
    assert fixed.count("# policylint: disable=PL302") == 1
    assert "      kept as written\n      min.insync.replicas: 3\n" in fixed


CRLF_TOPIC = ("apiVersion: kafka.strimzi.io/v1beta2\r\nkind: KafkaTopic\r\nmetadata: {name: o}\r\n"
              "spec:\r\n  replicas: 3\r\n  config:\r\n    min.insync.replicas: 4  # x\r\n")


def test_fix_keeps_crlf_line_endings_byte_for_byte(tmp_path):
    (tmp_path / "t.yaml").write_bytes(CRLF_TOPIC.encode())
    (tmp_path / "policy.yaml").write_text("{}\n")
    code, _, err = run(tmp_path, "t.yaml", "--fix", "--select", "PL301")
    assert (tmp_path / "t.yaml").read_bytes() == \
        CRLF_TOPIC.replace("replicas: 4", "replicas: 2").encode(), err


def test_fix_keeps_the_comments_above_the_first_document_start(tmp_path):
    text = "# Copyright the team\n# the orders topic\n\n---\n" + TOPIC.split("\n", 1)[1]
    write_files(tmp_path, {"t.yaml": text, "policy.yaml": "kafka_version: '4.0'\n"})
    code, _, err = run(tmp_path, "t.yaml", "--fix")
    assert code == 0, err
    assert (tmp_path / "t.yaml").read_text() == text.replace(
        "min.insync.replicas: 3", "min.insync.replicas: 2").replace(
        "    message.format.version: '2.8'\n", "")


def test_add_noqa_keeps_crlf_line_endings(tmp_path):
    (tmp_path / "t.yaml").write_bytes(CRLF_TOPIC.encode())
    (tmp_path / "policy.yaml").write_text("{}\n")
    run(tmp_path, "t.yaml", "--add-noqa", "--select", "PL301")
    data = (tmp_path / "t.yaml").read_bytes()
    assert b"# policylint: disable=PL301\r\n    min.insync" in data
    assert data.count(b"\n") == data.count(b"\r\n")


def test_suppressed_findings_are_counted_not_shown_unless_asked(tmp_path):
    (tmp_path / "t.yaml").write_bytes(CRLF_TOPIC.encode())
    (tmp_path / "policy.yaml").write_text("{}\n")
    run(tmp_path, "t.yaml", "--add-noqa", "--select", "PL301")
    code, out, _ = run(tmp_path, "t.yaml", "--select", "PL301")
    assert code == 0 and "PL301" not in out and "1 suppressed" in out
    code, out, _ = run(tmp_path, "t.yaml", "--select", "PL301", "--show-suppressed")
    assert "PL301 [suppressed]" in out


def test_fix_of_standard_input_prints_the_fixed_input(tmp_path):
    (tmp_path / "policy.yaml").write_text("{}\n")
    for text, expected in ((CRLF_TOPIC.replace("\r\n", "\n"),
                            CRLF_TOPIC.replace("\r\n", "\n").replace("replicas: 4", "replicas: 2")),
                           ("apiVersion: v1\nkind: ConfigMap\n", "apiVersion: v1\nkind: ConfigMap\n")):
        done = subprocess.run([sys.executable, "-m", "policylint", "lint", "--select", "PL",
                               "--policy", "policy.yaml", "-", "--fix"], cwd=tmp_path,
                              input=text, capture_output=True, text=True)
        assert done.stdout == expected, done.stderr


def test_a_syntax_error_shows_its_line_and_a_caret(tmp_path):
    write_files(tmp_path, {"bad.yaml": "apiVersion: v1\nkind: KafkaTopic\nmetadata: {name: x\n"
                                       "spec: {}\n", "policy.yaml": "{}\n"})
    code, out, _ = run(tmp_path, "bad.yaml")
    assert out.splitlines()[:4] == [
        "bad.yaml:4:5: PL100 [error] invalid YAML: did not find expected ',' or '}'",
        "   |", " 4 | spec: {}", "   |     ^"]
