"""Diff mode (``--base REF``) on real git repositories: the CLI end to end and its errors."""

import json
import subprocess

import pytest
from typer.testing import CliRunner

from policylint.cli import app

from conftest import git, git_commit, write_files


def topic(name, replicas=3, partitions=6, resource=None):
    resource = resource or name
    spec = f"topicName: {name}, " if resource != name else ""
    return (f"apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
            f"metadata: {{name: {resource}}}\n"
            f"spec: {{{spec}partitions: {partitions}, replicas: {replicas}}}\n")


def run(*args):
    result = CliRunner().invoke(app, ["lint", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """main: four topics in three files; branch pr: every kind of change at once."""
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path, {
        "topics/orders.yaml": topic("orders"),
        "topics/users.yaml": topic("users"),
        "topics/shared.yaml": topic("clicks") + "---\n" + topic("views", resource="views-res"),
        "README.md": "not linted\n",
    })
    git_commit(tmp_path, "topics")
    git(tmp_path, "checkout", "-q", "-b", "pr")
    (tmp_path / "topics/users.yaml").unlink()               # users deleted
    (tmp_path / "topics/orders.yaml").unlink()               # orders moved, RF raised
    write_files(tmp_path, {
        "topics/team-a/orders.yaml": topic("orders", replicas=4),
        "topics/shared.yaml": topic("clicks", partitions=3)  # fewer partitions
        + "---\n" + topic("views-v2", resource="views-res"),  # renamed
    })
    return tmp_path


def test_every_diff_rule_on_a_branch(repo):
    code, out, _ = run("--base", "main", "--select", "PL2", "--format", "json", "topics")
    assert code == 1
    found = {(f["rule"], f["topic"], f["file"], f["line"]) for f in json.loads(out)["findings"]}
    assert found == {
        ("PL202", "orders", "topics/team-a/orders.yaml", 4),
        ("PL206", "clicks", "topics/shared.yaml", 4),
        ("PL207", "views", "topics/shared.yaml", 9),
        ("PL208", "users", "topics/users.yaml", None),
    }


def test_uncommitted_changes_are_compared_and_base_is_not_checked_out(repo):
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"topics/orders.yaml": topic("orders", replicas=2)})
    code, out, _ = run("--base", "HEAD", "--select", "PL202", "topics")
    assert code == 1 and "replication factor is changed from 3 at HEAD to 2" in out
    assert "replicas: 2" in (repo / "topics/orders.yaml").read_text()  # untouched


def test_without_changes_diff_mode_is_clean(repo):
    git_commit(repo, "changes")
    code, out, _ = run("--base", "pr", "topics", "--select", "PL2")
    assert code == 0, out


def test_run_from_a_subdirectory(repo, monkeypatch):
    monkeypatch.chdir(repo / "topics")
    code, out, _ = run("--base", "main", "--select", "PL2", "--format", "json", ".")
    files = {f["file"] for f in json.loads(out)["findings"]}
    assert files == {"team-a/orders.yaml", "shared.yaml", "users.yaml"}


def test_unknown_ref_is_exit_2_with_the_fix(repo):
    code, _, err = run("--base", "origin/main", "topics")
    assert code == 2
    assert err.strip() == ("policylint: error: base ref origin/main not found; fetch it with "
                           "git fetch origin main, or check out with fetch-depth: 0 in GitHub "
                           "Actions")


def test_shallow_clone_without_the_ref(repo, tmp_path_factory, monkeypatch):
    git(repo, "checkout", "-q", "main")
    write_files(repo, {"topics/orders.yaml": topic("orders", replicas=5)})
    git_commit(repo, "second")
    clone = tmp_path_factory.mktemp("clone") / "c"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)],
                   check=True)
    monkeypatch.chdir(clone)
    code, _, err = run("--base", "HEAD~1", "topics")
    assert code == 2
    assert "base ref HEAD~1 not found in this shallow clone" in err
    assert "fetch-depth: 0" in err and len(err.strip().splitlines()) == 1


def test_path_outside_the_repository(repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "t.yaml").write_text(topic("x"))
    code, _, err = run("--base", "main", "topics", str(outside / "t.yaml"))
    assert code == 2 and "is outside the git repository" in err
    code, _, err = run("--base", "main", str(outside / "t.yaml"))  # its own: none
    assert code == 2 and f"{outside} is not inside one" in err


def test_not_a_repository(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.yaml").write_text(topic("x"))
    code, _, err = run("--base", "main", "t.yaml")
    assert code == 2 and "needs a git repository" in err


def test_option_like_ref_is_not_an_option_to_git(repo):
    code, _, err = run("--base=--output=/tmp/x", "topics")
    assert code == 2 and "base ref --output=/tmp/x not found" in err


def test_unchecked_defaults_are_in_the_summary(repo):
    write_files(repo, {"topics/shared.yaml": topic("clicks").replace("replicas: 3", "replicas: -1")
                       + "---\n" + topic("views", resource="views-res")})
    code, out, _ = run("--base", "main", "--select", "PL202", "--format", "json", "topics")
    assert json.loads(out)["summary"]["unchecked"] == {"PL201": 0, "PL202": 1}
    code, out, _ = run("--base", "main", "--select", "PL202", "topics")
    assert "PL202 could not be checked for 1 topic:" in out
