"""Directory walks: what git ignores and what --exclude / exclude: name are left out; a file
named explicitly is read unless --force-exclude."""

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from policylint.cli import app

from policylint.linter import lint
from policylint.sources import walk

from conftest import write_files

TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata: {name: NAME}
spec: {replicas: 3, config: {min.insync.replicas: 3}}
"""


def linted(*args):
    result = CliRunner().invoke(app, ["lint", *args, "--select", "PL302", "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    return sorted({f["file"] for f in json.loads(result.stdout)["findings"]})


@pytest.fixture
def repo(tmp_path, monkeypatch):
    files = {name: TOPIC.replace("NAME", name.replace("/", "-").replace(".yaml", ""))
             for name in ("topics/orders.yaml", "build/gen.yaml", "node_modules/x/y.yaml",
                          "topics/local.yaml", "topics/deep/keep.yaml", "topics/deep/drop.yaml",
                          "generated/a.yaml")}
    write_files(tmp_path, {**files, ".gitignore": "build/\nnode_modules\n*local.yaml\n",
                           "topics/deep/.gitignore": "*.yaml\n!keep.yaml\n"})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("generated/\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_walk_leaves_out_what_git_ignores(repo):
    assert linted(".") == ["topics/deep/keep.yaml", "topics/orders.yaml"]


def test_outside_a_work_tree_nothing_is_ignored(repo):
    (repo / ".git" / "info" / "exclude").unlink()
    subprocess.run(["rm", "-rf", str(repo / ".git")], check=True)
    assert len(linted(".")) == 7


def test_no_respect_gitignore_walks_what_git_ignores_but_not_excludes(repo):
    result = CliRunner().invoke(app, ["lint", "build"])
    assert result.exit_code == 0 and "git ignores build: --no-respect-gitignore walks it" \
        in result.stderr
    assert len(linted(".", "--no-respect-gitignore")) == 7
    assert linted(".", "--no-respect-gitignore", "--exclude", "build/", "--exclude",
                  "node_modules/", "--exclude", "topics/") == ["generated/a.yaml"]


def test_exclude_patterns_from_the_command_line_and_the_policy(repo):
    assert linted(".", "--exclude", "topics/deep/") == ["topics/orders.yaml"]
    (repo / ".policylint.yaml").write_text("exclude: ['orders.yaml']\n")
    assert linted(".") == ["topics/deep/keep.yaml"]


def test_a_named_file_is_read_unless_force_exclude(repo):
    assert linted("build/gen.yaml", "topics/orders.yaml") == ["build/gen.yaml",
                                                               "topics/orders.yaml"]
    assert linted("build/gen.yaml", "topics/orders.yaml", "--force-exclude",
                  "--exclude", "orders.yaml") == []


def test_a_walk_reads_what_git_lists_as_not_ignored(tmp_path, monkeypatch):
    """Ignore files at several depths, negations, directory patterns and the work tree's
    exclude file: the files a walk reads are those git itself lists as untracked and not
    ignored (``git ls-files --others --exclude-standard``)."""
    names = [f"{top}/{sub}/{leaf}" for top in ("a", "b", "c") for sub in ("x", "y", "keep")
             for leaf in ("t.yaml", "u.json", "local.yaml", "keep.yaml")] + ["root.yaml"]
    write_files(tmp_path, {**{name: "{}\n" for name in names},
                           ".gitignore": "*local.yaml\n/c/y/\nu.json\n!b/**/u.json\n",
                           "a/.gitignore": "x/\n!keep.yaml\n",
                           "a/y/.gitignore": "*.yaml\n!keep.yaml\n!local.yaml\n",
                           "b/keep/.gitignore": "t.yaml\n",
                           "c/x/.gitignore": "!*.json\n"})
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("b/x/keep.yaml\n")
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"],
                            cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    monkeypatch.chdir(tmp_path)
    walked = sorted(name for _, name, _ in walk(["."]))
    assert walked == sorted(n for n in listed.split() if not n.rsplit("/", 1)[-1].startswith("."))
    assert 10 < len(walked) < len(names)


def test_a_walk_that_imports_no_matcher_without_patterns(tmp_path):
    write_files(tmp_path, {"t.yaml": TOPIC.replace("NAME", "t")})
    code = ("import sys, os; os.chdir(sys.argv[1]); from policylint.linter import lint; "
            "lint(['.']); print('pathspec' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "False"


def test_kustomize_patches_are_skipped_with_how_to_lint_the_overlay(tmp_path, monkeypatch):
    """A file a kustomization names as a patch is no second declaration of its topic."""
    topic = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata: {name: orders}\n"
             "spec: {partitions: %d, replicas: 3}\n")
    write_files(tmp_path, {
        "base/topic.yaml": topic % 3, "base/kustomization.yaml": "resources: [topic.yaml]\n",
        "prod/kustomization.yaml": "resources: [../base]\npatches:\n  - path: p.yaml\n"
                                   "    target: {kind: KafkaTopic}\npatchesStrategicMerge: [q.yaml]\n",
        "prod/p.yaml": topic % 12, "prod/q.yaml": topic % 12})
    monkeypatch.chdir(tmp_path)
    result = lint(["."], select=["PL117"])
    assert result.findings == [] and result.files == 1
    skipped = dict(result.skipped)
    assert skipped["prod/p.yaml"].startswith("a Kustomize patch (prod/kustomization.yaml patches)")
    assert "kustomize build prod | policylint lint -" in skipped["prod/q.yaml"]
