"""Validation ahead of need in a helper process: the same findings and the same errors as
validating in-process, also when the helper fails. The size threshold is lowered so that
small files take the helper's path."""

import json
import os
import threading

import pytest

from policylint import sources
from policylint.linter import lint
from policylint.sources import InputError, ahead, loader

PLAN = {"version": 1, "partitions": [
    {"topic": "orders", "partition": p, "replicas": [1, 2, 3]} for p in range(6)] + [
    {"topic": "orders", "partition": "6", "replicas": [1, 2]},  # PL101
    {"topic": "orders", "partition": 7, "replicas": [1, 2, 3, 4]}]}  # PL201

SNAPSHOT = {"kind": "ClusterSnapshot", "version": 1, "cluster": "c",
            "brokers": [{"id": b, "rack": f"r{b % 3}"} for b in range(1, 5)],
            "topics": [{"name": "orders", "config": {"min.insync.replicas": "2"},
                        "partitions": [{"partition": p, "replicas": [1, 2, 3], "isr": [1, 2]}
                                       for p in range(8)]}]}


def findings(result):
    return sorted((f.rule, f.file, f.line, f.column, f.message) for f in result.findings)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plan.json").write_text(json.dumps(PLAN, indent=1))
    (tmp_path / "other.json").write_text(json.dumps(dict(PLAN, partitions=[
        {"topic": "orders", "partition": 1, "replicas": [1, "2", 3]}]), indent=1))
    snapshot = dict(SNAPSHOT, topics=SNAPSHOT["topics"] + [
        {"name": "bad", "partitions": [{"partition": -1, "replicas": [1, 2, 3]}]}])
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot, indent=1))
    return tmp_path


@pytest.fixture
def helper_used(monkeypatch):
    """Lowers the threshold and counts the documents whose errors came from the helper."""
    # policylint forks no process with threads running (Spark's tests start some)
    assert threading.active_count() == 1, "run these tests before any that start threads"
    monkeypatch.setattr(ahead, "LARGE", 64)
    answered = []
    errors = ahead.Ahead.errors

    def counted(self, doc):
        found = errors(self, doc)
        answered.append((doc.source.name, found is not None))
        return found
    monkeypatch.setattr(ahead.Ahead, "errors", counted)
    return answered


def test_the_helper_validates_all_but_the_first_large_file(files, helper_used):
    args = (["plan.json", "other.json", "snapshot.json"],)
    with_helper = lint(*args)
    assert helper_used == [("plan.json", False), ("other.json", True), ("snapshot.json", True)]
    ahead.LARGE = 2**62  # no helper: everything validated here
    assert findings(lint(*args)) == findings(with_helper)
    assert {f[0] for f in findings(with_helper)} >= {"PL101", "PL201"}


def test_a_cluster_file_validated_by_the_helper(files, helper_used):
    (files / "snapshot.json").write_text(json.dumps(SNAPSHOT, indent=1))
    result = lint(["plan.json"], cluster="snapshot.json")
    assert ("snapshot.json", True) in helper_used
    assert {"PL101", "PL201"} <= {f.rule for f in result.findings}  # of plan.json
    (files / "snapshot.json").write_text(json.dumps(dict(SNAPSHOT, version=2), indent=1))
    with pytest.raises(InputError, match=r"snapshot.json:3:\d+: version: "):
        lint(["plan.json"], cluster="snapshot.json")


def test_a_failing_helper_leaves_validation_to_this_process(files, helper_used, monkeypatch):
    expected = findings(lint(["plan.json", "other.json", "snapshot.json"]))
    helper_used.clear()

    def broken(data):
        if os.getpid() != parent:
            raise RuntimeError("the helper breaks")
        return sources.schema_errors(data)
    parent = os.getpid()
    monkeypatch.setattr(loader, "schema_errors", broken)
    assert findings(lint(["plan.json", "other.json", "snapshot.json"])) == expected
    assert helper_used and not any(found for _, found in helper_used)
