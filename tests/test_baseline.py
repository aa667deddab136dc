"""Baselines: an existing repository's findings recorded once; later runs report only new
ones, say how many known ones are fixed, and hold across edits that move lines."""

import json
import subprocess
import sys

import pytest

from conftest import write_files

TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata: {{name: {name}}}
spec:
  replicas: {rf}
  config: {{min.insync.replicas: {min_isr}}}
"""


def run(cwd, *args):
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "--select", "PL", *args],
                          cwd=cwd,
                          capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def repo(tmp_path):
    write_files(tmp_path, {
        "topics/a.yaml": TOPIC.format(name="a", rf=2, min_isr=3),   # PL301
        "topics/b.yaml": TOPIC.format(name="b", rf=1, min_isr=1),   # PL209
        "topics/c.yaml": TOPIC.format(name="c", rf=3, min_isr=2)})  # clean
    return tmp_path


def test_a_baseline_reports_only_new_findings(repo):
    code, _, err = run(repo, "topics", "--write-baseline", "baseline.json")
    assert code == 0 and "wrote 2 findings" in err
    recorded = json.loads((repo / "baseline.json").read_text())
    assert {f["rule"] for f in recorded["findings"]} == {"PL301", "PL209"}
    code, out, _ = run(repo, "topics", "--baseline", "baseline.json", "--format", "json")
    assert code == 0 and json.loads(out)["findings"] == []
    assert json.loads(out)["summary"]["baseline"] == {"baselined": 2, "fixed": 0}
    # lines moved by an edit elsewhere: still known; a new problem: reported; one fixed
    (repo / "topics/a.yaml").write_text("# owned by team orders\n\n" +
                                        TOPIC.format(name="a", rf=2, min_isr=3))
    (repo / "topics/b.yaml").write_text(TOPIC.format(name="b", rf=3, min_isr=2))
    (repo / "topics/c.yaml").write_text(TOPIC.format(name="c", rf=3, min_isr=4))
    code, out, _ = run(repo, "topics", "--baseline", "baseline.json", "--format", "json")
    result = json.loads(out)
    assert code == 1 and [(f["rule"], f["topic"]) for f in result["findings"]] == \
        [("PL301", "c")]
    assert result["summary"]["baseline"] == {"baselined": 1, "fixed": 1}
    code, out, _ = run(repo, "topics", "--baseline", "baseline.json")
    assert "1 of its findings are fixed" in out


def test_the_count_said_is_the_count_written(repo):
    """A suppressed finding is not recorded, and not counted as written."""
    write_files(repo, {"topics/d.yaml": TOPIC.format(name="d", rf=1, min_isr=1).replace(
        "  replicas: 1", "  # policylint: disable=PL209 known\n  replicas: 1")})
    code, _, err = run(repo, "topics", "--write-baseline", "baseline.json")
    recorded = json.loads((repo / "baseline.json").read_text())["findings"]
    assert code == 0 and len(recorded) == 2 and "wrote 2 findings" in err, err


def test_the_policys_baseline_is_relative_to_the_policy(repo):
    write_files(repo, {"kafka/policy.yaml": "baseline: baseline.json\n"})
    run(repo, "topics", "--write-baseline", "kafka/baseline.json")
    code, out, _ = run(repo, "topics", "--policy", "kafka/policy.yaml", "--format", "json")
    assert code == 0 and json.loads(out)["summary"]["baseline"]["baselined"] == 2


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": "other"}',
                                  '{"format": "policylint-baseline", "findings": [1]}',
                                  "\udcff"])
def test_a_broken_or_foreign_baseline_is_exit_2_in_one_line(repo, text):
    (repo / "baseline.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    code, out, err = run(repo, "topics", "--baseline", "baseline.json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "baseline baseline.json" in err


def test_a_missing_baseline_is_exit_2(repo):
    code, _, err = run(repo, "topics", "--baseline", "nowhere.json")
    assert code == 2 and "nowhere.json" in err


def test_a_baseline_is_read_again_only_once_it_changed(tmp_path):
    """The editor's server judges each edit against the same baseline: it is read once,
    and again when the file changes (a baseline written again)."""
    from policylint.baseline import load

    def written(*fingerprints):
        path.write_text(json.dumps({"format": "policylint-baseline", "version": 1,
                                    "findings": [{"fingerprint": f} for f in fingerprints]}))
    path = tmp_path / "baseline.json"
    written("a:1")
    first = load(str(path))
    assert first == {"a:1"} and load(str(path)) is first
    written("a:1", "b:1")
    assert load(str(path)) == {"a:1", "b:1"}
