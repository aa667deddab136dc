"""The pre-commit hook and the GitHub Action, run for real.

The hook runs through the real ``pre-commit try-repo`` against temporary git repositories.
The action's run steps are executed by bash as a runner would run them: ``${{ }}``
expressions evaluated into the steps' ``env``, ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY``
files, ``GITHUB_ACTIONS=true``. The ``uses:`` steps (setup-python, upload-sarif) are GitHub's
own; the test checks they are pinned and called with the right inputs.
Both install policylint from this checkout into a fresh environment, from the package index.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import git, git_commit, write_files

# the hook and the action install policylint into environments of their own: the rule pack
# the suite puts on PYTHONPATH is not part of them
FRESH = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

ROOT = Path(__file__).parent.parent
BIN = Path(sys.executable).parent
SARIF_SCHEMA = json.loads((Path(__file__).parent / "data/sarif-schema-2.1.0.json").read_text())

SNAPSHOT = """{"kind": "ClusterSnapshot", "version": 1, "cluster": "prod",
 "brokers": [{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}, {"id": 3, "rack": "c"},
             {"id": 4, "rack": "a"}],
 "config": {"min.insync.replicas": "2"},
 "topics": [{"name": "orders", "partitions": [
   {"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2, 3]}]}]}
"""
TOPIC = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata: {name: orders}
spec:
  partitions: 3
  replicas: 3
  config: {min.insync.replicas: 2}
"""
GOOD_PLAN = '{"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [4, 2, 3]}]}\n'
BAD_PLAN = '{"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2, 3, 4]}]}\n'


def tool(name):
    return str(BIN / name)


# -- pre-commit ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    """This working tree as one commit (pre-commit installs hooks from commits), and a
    pre-commit home that keeps the hook's environment between tests."""
    copy = tmp_path_factory.mktemp("policylint-repo")
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_symlink():  # policylint/policies: a link, as git keeps it
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(ROOT / name), copy / name)
        elif (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    git_commit(copy, "policylint")
    return copy, tmp_path_factory.mktemp("pre-commit-home")


def try_repo(repo, hook_repo):
    source, home = hook_repo
    env = {**FRESH, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run([tool("pre-commit"), "try-repo", str(source), "policylint"],
                          cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def test_pre_commit_hook_blocks_a_violating_commit_and_passes_a_clean_one(
        tmp_path, hook_repo):
    write_files(tmp_path, {"cluster/prod.json": SNAPSHOT, "topics/orders.yaml": TOPIC,
                           "plans/move.json": BAD_PLAN,
                           ".github/dependabot.yml": "version: 2\nupdates: []\n"})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    bad = try_repo(tmp_path, hook_repo)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "policylint" in bad.stdout and "Failed" in bad.stdout
    assert "PL201" in bad.stdout and "replication factor is changed from 3 to 4" in bad.stdout
    assert "PL102" not in bad.stdout  # unrelated YAML is not policylint's business

    write_files(tmp_path, {"plans/move.json": GOOD_PLAN})
    git(tmp_path, "add", "-A")
    good = try_repo(tmp_path, hook_repo)
    assert good.returncode == 0, good.stdout + good.stderr
    assert re.search(r"policylint\.+Passed", good.stdout)


def test_the_readmes_hook_configuration_runs_through_pre_commit_with_its_args(
        tmp_path, hook_repo):
    """The README's .pre-commit-config.yaml, as written but for where the hook comes from:
    its args (--cluster FILE) reach policylint as options, not as file names."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", readme, re.S).group(1)
    config = yaml.safe_load(block)
    source, home = hook_repo
    config["repos"][0].update(repo=str(source), rev=git(source, "rev-parse", "HEAD").strip())
    (cluster,) = [arg for arg in config["repos"][0]["hooks"][0]["args"] if arg.endswith(".json")]
    write_files(tmp_path, {".pre-commit-config.yaml": yaml.safe_dump(config),
                           cluster: SNAPSHOT, "kafka/plans/move.json": BAD_PLAN})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    env = {**FRESH, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    done = subprocess.run([tool("pre-commit"), "run", "--all-files"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert "no such file" not in done.stdout + done.stderr
    assert done.returncode == 1 and "PL201" in done.stdout, done.stdout + done.stderr


CEL_POLICY = """cel_rules:
  - code: TEAM001
    name: team-prefix
    applies_to: topics
    validations:
      - expression: topic.name.startsWith("team.")
        messageExpression: '"topic " + topic.name + " does not start with team."'
"""


def test_pre_commit_hook_runs_a_policys_cel_rules(tmp_path, hook_repo):
    """The README's hook configuration, unchanged: CEL comes with the hook, pinned."""
    write_files(tmp_path, {".policylint.yaml": CEL_POLICY, "topics/orders.yaml": TOPIC})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    bad = try_repo(tmp_path, hook_repo)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "TEAM001" in bad.stdout and "does not start with team." in bad.stdout
    assert "pip install" not in bad.stdout
    write_files(tmp_path, {"topics/orders.yaml": TOPIC.replace("{name: orders}",
                                                               "{name: team.orders}")})
    git(tmp_path, "add", "-A")
    good = try_repo(tmp_path, hook_repo)
    assert good.returncode == 0, good.stdout + good.stderr


@pytest.fixture
def two_clusters(tmp_path):
    """A GitOps repository with one directory per cluster (tests/realworld/gitops), clean."""
    shutil.copytree(Path(__file__).parent / "realworld" / "gitops", tmp_path / "repo")
    repo = tmp_path / "repo"
    for name in ("prod/topics/typo.yaml", "prod/topics/payments.yaml", "dev/topics/orders.yaml"):
        (repo / "clusters" / name).unlink()
    return repo


def test_pre_commit_hook_accepts_a_two_cluster_repository(two_clusters, hook_repo):
    git(two_clusters, "init", "-q", "-b", "main")
    git(two_clusters, "add", "-A")
    done = try_repo(two_clusters, hook_repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"policylint\.+Passed", done.stdout)


def test_every_input_the_readmes_workflows_use_exists_in_the_action():
    readme = (ROOT / "README.md").read_text()
    used = set()
    for block in re.findall(r"```yaml\n(.*?)```", readme, re.S):
        for step in re.finditer(r"uses: policylint/policylint@\S+.*?\n(\s+)with:\n((?:\1  .*\n)+)",
                                block):
            used |= set(re.findall(r"^\s+([a-z-]+):", step.group(2), re.M))
    assert used and used <= set(ACTION["inputs"]), used - set(ACTION["inputs"])
    assert "never" in ACTION["inputs"]["fail-on"]["description"]


def test_the_actions_constraints_pin_every_dependency_pyproject_names():
    """The action installs with constraints.txt: each of pyproject's dependencies pinned
    there, at a version its specifier admits."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
    import tomllib
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[canonicalize_name(name)] = version
    for spec in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(pins[name]), (name, pins[name])
    assert '-c "$ACTION_PATH/constraints.txt"' in (ROOT / "action.yml").read_text()
    # the cel extra the action installs, and the hook's own pin of it: the same version
    cel = [Requirement(s) for s in tomllib.loads((ROOT / "pyproject.toml").read_text())
           ["project"]["optional-dependencies"]["cel"]]
    for requirement in cel:
        name = canonicalize_name(requirement.name)
        assert name in pins and requirement.specifier.contains(pins[name]), name
    assert '"$ACTION_PATH[cel]"' in (ROOT / "action.yml").read_text()
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["additional_dependencies"] == [f"cel-expr-python=={pins['cel-expr-python']}"]


def test_the_action_fetches_the_base_commit_a_shallow_checkout_lacks(tmp_path):
    """actions/checkout's default depth of 1: the step the action runs before lint brings
    the pull request's base commit, so diff mode runs (it exited 2 on every pull request)."""
    (step,) = [s for s in STEPS if s.get("name") == "Fetch the base commit"]
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    write_files(origin, {"kafka/t.yaml": TOPIC})
    git(origin, "init", "-q", "-b", "main")
    git_commit(origin, "base")
    base = git(origin, "rev-parse", "HEAD").strip()
    write_files(origin, {"kafka/t.yaml": TOPIC.replace("replicas: 3", "replicas: 2")})
    git_commit(origin, "change")
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(clone))
    env = {**FRESH, "INPUT_BASE": base}
    subprocess.run(["bash", "-c", step["run"]], cwd=clone, env=env, check=True)
    done = subprocess.run([tool("policylint"), "lint", "kafka", "--base", base, "--select",
                           "PL202"], cwd=clone, capture_output=True, text=True)
    assert done.returncode == 1 and "PL202" in done.stdout, done.stderr


def test_hook_definition():
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "policylint" and hook["types_or"] == ["yaml", "json", "terraform"]
    assert hook["require_serial"] is True and hook["language"] == "python"


# -- GitHub Action: static checks ---------------------------------------------------------

ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]


def test_action_matches_githubs_schema_and_passes_zizmor():
    for args in ([tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions",
                  "action.yml"],
                 [tool("zizmor"), "--offline", "--persona=auditor", "action.yml"]):
        done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def test_readme_workflow_is_the_example_and_is_a_valid_workflow():
    workflow = (ROOT / "examples/github/policylint.yml").read_text()
    assert workflow in (ROOT / "README.md").read_text()
    # a depth-1 checkout is enough (the action fetches the base); a SHA to put in
    assert "fetch-depth" not in workflow and "security-events: write" in workflow
    done = subprocess.run([tool("check-jsonschema"), "--builtin-schema",
                           "vendor.github-workflows", "examples/github/policylint.yml"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    done = subprocess.run([tool("zizmor"), "--offline", "--persona=auditor",
                           "examples/github/policylint.yml"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_release_workflow_tests_the_wheel_before_trusted_publishing():
    path = ".github/workflows/release.yml"
    for args in ([tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", path],
                 [tool("zizmor"), "--offline", "--persona=auditor", path]):
        done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    jobs = yaml.safe_load((ROOT / path).read_text())["jobs"]
    assert any("make test" in step.get("run", "") for step in jobs["test"]["steps"])
    publish = jobs["publish"]
    assert publish["needs"] == "test" and publish["permissions"] == {"id-token": "write"}
    assert publish["steps"][-1]["uses"].startswith("pypa/gh-action-pypi-publish@")
    assert "password" not in str(publish)  # trusted publishing: no token
    for job in jobs.values():
        for step in job["steps"]:
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", step["uses"]), step


def test_inputs_reach_shell_code_only_through_env():
    for step in STEPS:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]


def test_actions_used_are_pinned_to_full_commits():
    used = [step["uses"] for step in STEPS if "uses" in step]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in used)
    for uses in used:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", uses), uses


# -- GitHub Action: the run steps, executed ------------------------------------------------

def evaluate(text, ctx):
    """The ``${{ }}`` expressions the action uses: context paths, ``x == 'y'``, ``x != ''``."""
    def value(expr):
        expr = expr.strip()
        if "!=" in expr:
            left, right = (part.strip() for part in expr.split("!="))
            return str(value(left) != right.strip("'")).lower()
        if "==" in expr:
            left, right = (part.strip() for part in expr.split("=="))
            return str(value(left) == right.strip("'")).lower()
        node = ctx
        for key in expr.split("."):
            node = node.get(key, "") if isinstance(node, dict) else ""
        return node
    return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(value(m.group(1))), str(text))


def read_outputs(path):
    outputs = {}
    for line in path.read_text().splitlines() if path.exists() else ():
        key, _, val = line.partition("=")
        outputs[key] = val
    return outputs


def run_action(workspace, runner_temp, inputs, event):
    """Runs the action's steps in order; returns (log, step outputs, summary, calls of
    ``uses:`` steps, exit status of the first failing step or 0)."""
    ctx = {"github": {"action_path": str(ROOT), "event": event}, "steps": {}}
    ctx["inputs"] = {name: evaluate(spec.get("default", ""), ctx)
                     for name, spec in ACTION["inputs"].items()} | inputs
    summary = runner_temp / f"summary-{workspace.name}.md"
    log, calls = [], []
    for step in STEPS:
        if "if" in step and evaluate(step["if"], ctx) != "true":
            continue
        if "uses" in step:
            calls.append((step["uses"], {k: evaluate(v, ctx) for k, v in step["with"].items()}))
            continue
        output = runner_temp / f"output-{step.get('id', len(log))}"
        env = {**FRESH, **{k: evaluate(v, ctx) for k, v in step.get("env", {}).items()},
               "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output),
               "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(runner_temp),
               "GITHUB_WORKSPACE": str(workspace),
               "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               step["run"]], cwd=workspace, env=env, capture_output=True,
                              text=True, timeout=600)
        log.append(done.stdout + done.stderr)
        if "id" in step:
            ctx["steps"][step["id"]] = {"outputs": read_outputs(output)}
        if done.returncode != 0:
            return log, ctx["steps"], summary, calls, done.returncode
    return log, ctx["steps"], summary, calls, 0


@pytest.fixture(scope="module")
def runner_temp(tmp_path_factory):
    return tmp_path_factory.mktemp("runner-temp")


@pytest.fixture
def pull_request(tmp_path):
    """A repository whose main has a topic; the pull request adds a plan and edits it."""
    write_files(tmp_path, {"cluster/prod.json": SNAPSHOT, "topics/orders.yaml": TOPIC})
    git_commit(tmp_path, "main")
    base = git(tmp_path, "rev-parse", "HEAD").strip()
    git(tmp_path, "checkout", "-q", "-b", "pr")
    return tmp_path, {"pull_request": {"base": {"sha": base}}}


def test_action_on_a_violating_pull_request(pull_request, runner_temp):
    workspace, event = pull_request
    write_files(workspace, {"plans/move.json": BAD_PLAN,
                            "topics/orders.yaml": TOPIC.replace("partitions: 3", "partitions: 2")
                            .replace("replicas: 3", "replicas: 4")})
    git_commit(workspace, "pr")
    log, steps, summary, calls, status = run_action(
        workspace, runner_temp,
        {"paths": "topics\nplans", "cluster": "cluster/prod.json", "sarif": "true"}, event)
    assert status == 1, log
    outputs = steps["lint"]["outputs"]
    lint_log = "".join(log)
    # annotations on the changed lines, diff mode on by default in a pull request
    assert "::error file=plans/move.json,line=1,col=79,title=PL201 rf-change::" in lint_log
    assert "::error file=topics/orders.yaml,line=6,col=13,title=PL202 rf-change-manifest::" \
        in lint_log
    assert "title=PL206 partition-decrease::" in lint_log
    report = json.loads((runner_temp / "policylint.json").read_text())["summary"]
    assert outputs["errors"] == str(report["error"]) and int(outputs["errors"]) >= 3
    assert outputs["warnings"] == str(report["warning"])
    sarif = json.loads(Path(outputs["sarif-file"]).read_text())
    jsonschema.validate(sarif, SARIF_SCHEMA)
    assert calls[-1][0].startswith("github/codeql-action/upload-sarif@")
    assert calls[-1][1] == {"sarif_file": outputs["sarif-file"], "category": "policylint"}
    text = summary.read_text()
    assert text.startswith("## policylint") and "| PL202 rf-change-manifest |" in text


def test_action_runs_a_policys_cel_rules(tmp_path, runner_temp):
    workspace = tmp_path
    write_files(workspace, {".policylint.yaml": CEL_POLICY, "cluster/prod.json": SNAPSHOT,
                            "topics/orders.yaml": TOPIC})
    git_commit(workspace, "main")
    event = {"pull_request": {"base": {"sha": git(workspace, "rev-parse", "HEAD").strip()}}}
    git(workspace, "checkout", "-q", "-b", "pr")
    write_files(workspace, {"topics/more.yaml": TOPIC.replace("{name: orders}", "{name: more}")})
    git_commit(workspace, "pr")
    log, steps, summary, calls, status = run_action(
        workspace, runner_temp, {"paths": "topics", "cluster": "cluster/prod.json"}, event)
    assert status == 1, log
    assert "title=TEAM001 team-prefix::topic more does not start with team." in "".join(log)
    assert "pip install" not in "".join(log)


def test_action_on_a_shallow_clone_judges_by_the_base_policy(tmp_path, runner_temp):
    """A pull request that lowers a topic's RF and exempts itself in the policy: the base's
    policy judges it, and the exemption it adds is a PL125 error on its line."""
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    write_files(origin, {".policylint.yaml": "extends: strict\n", "cluster/prod.json": SNAPSHOT,
                         "topics/orders.yaml": TOPIC})
    git_commit(origin, "main")
    base = git(origin, "rev-parse", "HEAD").strip()
    git(origin, "checkout", "-q", "-b", "pr")
    write_files(origin, {".policylint.yaml": 'extends: strict\nexemptions: [{rule: PL202, '
                                             'topics: ["*"], reason: ok}]\n',
                         "topics/orders.yaml": TOPIC.replace("replicas: 3", "replicas: 2")})
    git_commit(origin, "pr")
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "pr", f"file://{origin}", str(clone))
    event = {"pull_request": {"base": {"sha": base}}}
    log, steps, _, _, status = run_action(
        clone, runner_temp, {"paths": "topics", "cluster": "cluster/prod.json"}, event)
    text = "".join(log)
    assert status == 1, text
    assert "title=PL202 rf-change-manifest::" in text
    assert "::error file=.policylint.yaml,line=2,col=14,title=PL125 policy-weakened::this " \
           "change weakens the gate: exemption of PL202 for * added or widened" in text
    # the pull request's own policy judges only when asked, and says so
    log, _, _, _, status = run_action(
        clone, runner_temp, {"paths": "topics", "cluster": "cluster/prod.json",
                             "policy-ref": "head"}, event)
    text = "".join(log)
    assert "--policy-from head" in text and "PL125" not in text
    assert "title=PL202" not in text  # the pull request's exemption, honoured as asked


def test_action_on_a_clean_pull_request(pull_request, runner_temp):
    workspace, event = pull_request
    write_files(workspace, {"plans/move.json": GOOD_PLAN})
    git_commit(workspace, "pr")
    log, steps, summary, calls, status = run_action(
        workspace, runner_temp, {"paths": ".", "cluster": "cluster/prod.json"}, event)
    assert status == 0, log
    assert steps["lint"]["outputs"]["errors"] == "0"
    assert calls == [(STEPS[0]["uses"], {"python-version": "3.11",  # no upload asked
                                         "update-environment": "false"})]
    assert "No problems found" in summary.read_text()


def test_action_on_a_two_cluster_repository_with_every_input(two_clusters, runner_temp):
    """Paths with spaces (one per line), clusters, select, ignore, extra args; the upload
    of a fork's pull request is skipped, and the category is the caller's."""
    git_commit(two_clusters, "main")
    (two_clusters / "clusters").rename(two_clusters / "our clusters")
    fork = {"pull_request": {"head": {"repo": {"full_name": "someone/fork"}}}}
    log, steps, _, calls, status = run_action(
        two_clusters, runner_temp,
        {"paths": "our clusters/dev\nour clusters/prod\n", "select": "PL2,PL3",
         "ignore": "PL303", "args": "--max-file-size 10M", "sarif": "true",
         "category": "kafka-prod", "base": ""}, fork)
    assert status == 0, log
    outputs = steps["lint"]["outputs"]
    assert (outputs["errors"], outputs["exit-code"], outputs["upload"]) == ("0", "0", "false")
    assert not [uses for uses, _ in calls if "upload-sarif" in uses]
    log, steps, _, calls, status = run_action(
        two_clusters, runner_temp, {"paths": ".", "sarif": "true", "category": "kafka-prod",
                                    "base": ""}, {})
    assert status == 0, log
    assert calls[-1][1]["category"] == "kafka-prod"
    assert set(steps["lint"]["outputs"]) >= {"errors", "warnings", "notes", "exit-code"}


def test_action_on_a_recorded_terraform_plan(tmp_path, runner_temp):
    """The README's Terraform workflow: `terraform show -json` saved as plan.json, then the
    action lints it (a plan recorded in Terraform's documented format, tests/data)."""
    shutil.copy(Path(__file__).parent / "data" / "terraform-plan.json", tmp_path / "plan.json")
    git_commit(tmp_path, "main")
    log, steps, summary, _, status = run_action(
        tmp_path, runner_temp, {"paths": "plan.json", "base": ""}, {})
    assert status == 1, log
    lint_log = "".join(log)
    assert "title=PL211 topic-replaced::" in lint_log
    assert 'kafka_topic.orders["eu"]' in lint_log
    assert "| PL211 topic-replaced |" in summary.read_text()


def test_action_with_a_baseline_fails_only_on_new_findings(tmp_path, runner_temp):
    shutil.copy(Path(__file__).parent / "data" / "terraform-plan.json", tmp_path / "plan.json")
    subprocess.run([str(BIN / "policylint"), "lint", "plan.json", "--select", "PL",
                    "--write-baseline", "baseline.json"], cwd=tmp_path, check=True,
                   capture_output=True)
    git_commit(tmp_path, "main")
    log, steps, summary, _, status = run_action(
        tmp_path, runner_temp, {"paths": "plan.json", "base": "", "select": "PL",
                                "baseline": "baseline.json"}, {})
    assert status == 0, log
    assert steps["lint"]["outputs"]["errors"] == "0"
    assert "Baseline:" in summary.read_text()


def test_action_inputs_are_data_not_code(pull_request, runner_temp):
    workspace, event = pull_request
    log, steps, _, _, status = run_action(
        workspace, runner_temp, {"paths": "topics $(touch pwned) `touch pwned2`",
                                 "policy": "'; touch pwned3; '"}, event)
    assert status == 2
    assert not list(workspace.glob("pwned*"))
    assert "policylint: error:" in log[-1]


def test_action_without_the_base_history_says_how_to_fix_it(pull_request, runner_temp):
    workspace, _ = pull_request
    event = {"pull_request": {"base": {"sha": "0123456789abcdef0123456789abcdef01234567"}}}
    log, _, _, _, status = run_action(workspace, runner_temp, {"paths": "topics"}, event)
    assert status == 2 and "fetch-depth: 0" in log[-1]


def test_action_fails_a_pull_request_that_disables_rules_by_annotation(pull_request,
                                                                     runner_temp):
    """The gate's side door, closed in the Action too: an annotation the pull request adds
    to silence the rules its own change breaks is a PL125 error; the job fails."""
    workspace, event = pull_request
    write_files(workspace, {"topics/orders.yaml": TOPIC.replace(
        "metadata: {name: orders}",
        'metadata:\n  name: orders\n  annotations: {policylint.io/disable: "PL202,PL209"}')
        .replace("replicas: 3", "replicas: 1")})
    git_commit(workspace, "pr")
    log, steps, _, _, status = run_action(workspace, runner_temp,
                                          {"paths": "topics", "cluster": "cluster/prod.json"},
                                          event)
    assert status == 1, log
    assert "title=PL125 policy-weakened::" in "".join(log)
    assert "policylint.io/disable annotation of PL202, PL209 added" in "".join(log)


def test_action_judges_by_a_central_policy_outside_the_repository(tmp_path, runner_temp):
    workspace, platform = tmp_path / "repo", tmp_path / "platform"
    write_files(platform, {"policy.yaml": "extends: strict\nrules: {PL209: {min: 3}}\n"})
    write_files(workspace, {"cluster/prod.json": SNAPSHOT, "topics/orders.yaml": TOPIC})
    git_commit(workspace, "main")
    base = git(workspace, "rev-parse", "HEAD").strip()
    git(workspace, "checkout", "-q", "-b", "pr")
    write_files(workspace, {"topics/orders.yaml": TOPIC.replace("replicas: 3", "replicas: 2")})
    git_commit(workspace, "pr")
    log, _, _, _, status = run_action(
        workspace, runner_temp, {"paths": "topics", "cluster": "cluster/prod.json",
                                 "policy": str(platform / "policy.yaml")},
        {"pull_request": {"base": {"sha": base}}})
    assert status == 1, log
    text = "".join(log)
    assert "title=PL209 rf-below-minimum::" in text and "not in the base" not in text
