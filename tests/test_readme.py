"""The README runs. Every command of its ``sh`` and ``console`` blocks that can run offline is
run with the installed policylint, in a copy of the bundled examples, one block after the
other as a reader would; a ``console`` block's output is what the command prints. The
commands that cannot run here are listed below with the reason."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent

#: a command starting so cannot run offline, for this reason
OFFLINE = {
    "pip install": "installs from the package index or a git remote",
    "make ": "sets up a venv and runs the demo or the whole suite (CI runs make test)",
    "policylint snapshot --bootstrap-server": "reads a live cluster (tests/test_capture_broker.py)",
    "policylint lint plans/ --bootstrap-server": "reads a live cluster",
    "policylint lint plans/ --cluster prod.json": "lints against the snapshot the line before "
                                                  "takes from a live cluster",
    "kafka-reassign-partitions.sh": "Kafka's own tool, run against a live cluster",
    "policylint plan prod.json": "plans on the snapshot the block's first step takes from a "
                                 "live cluster (test_the_plan_steps_run_as_written below)",
    "policylint lint expand.json": "lints the plan of the step before (the same test)",
    "policylint lint plan.json --current": "the reader's plan and kafka-reassign-partitions.sh "
                                           "output (tests/cases/replication/PL201.yaml)",
    "policylint lint kafka/ --base": "a git repository with that ref (tests/test_diff.py)",
    "policylint audit hdfs://": "HDFS and a Spark master",
    "spark-submit --master yarn": "a YARN cluster",
}


def blocks():
    """(id, language, text) of each sh and console block, in order."""
    heading = "top"
    for match in re.finditer(r"^(#+ [^\n]*)$|^```(sh|console)\n(.*?)^```$", README, re.S | re.M):
        if match.group(1):
            heading = match.group(1).lstrip("# ").lower().replace(" ", "-")
        else:
            yield heading, match.group(2), match.group(3)


def commands(language, text):
    """(command, the output the README shows or None) of a block."""
    if language == "sh":
        for line in re.sub(r"\\\n\s*", " ", text).splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                yield line.strip(), None
        return
    for chunk in re.split(r"^\$ ", text, flags=re.M)[1:]:
        command, _, output = chunk.partition("\n")
        yield command.strip(), output or None


def offline_reason(command):
    return next((why for start, why in OFFLINE.items() if command.startswith(start)), None)


BLOCKS = list(blocks())


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    """A reader's clone: the examples, and the files the blocks before wrote."""
    work = tmp_path_factory.mktemp("readme")
    shutil.copytree(ROOT / "examples", work / "examples")
    return work


@pytest.mark.parametrize("heading, language, text", BLOCKS,
                         ids=[f"{h}-{i}" for i, (h, _, _) in enumerate(BLOCKS)])
def test_the_readmes_commands_run_and_print_what_it_shows(reader, heading, language, text):
    ran = 0
    for command, shown in commands(language, text):
        if offline_reason(command):
            continue
        done = subprocess.run(["bash", "-c", command], cwd=reader, capture_output=True,
                              text=True, timeout=600,
                              env={"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(reader),
                                   "COLUMNS": "200"})
        printed = done.stdout + done.stderr
        assert done.returncode in (0, 1), f"$ {command}\n{printed}"
        assert "Traceback" not in printed and "internal error" not in printed, command
        if shown is not None:
            assert printed.strip() == shown.strip(), f"$ {command}"
        ran += 1
    if not ran:
        pytest.skip("; ".join(sorted({offline_reason(c) for c, _ in commands(language, text)})))


def test_every_block_is_run_or_says_why_not():
    """A new block or command is run unless OFFLINE gives its reason, and no reason is stale."""
    every = [c for _, language, text in BLOCKS for c, _ in commands(language, text)]
    assert sum(1 for c in every if not offline_reason(c)) >= 10
    for start in OFFLINE:
        assert any(c.startswith(start) for c in every), f"no README command starts {start!r}"


def _plan_block():
    return next(text for heading, _, text in BLOCKS if heading == "writing-a-plan")


def test_the_plan_steps_run_as_written(tmp_path):
    """The plan block's steps 2 and 3 exactly as the README writes them, on a snapshot of
    the cluster it describes (6 brokers in eu-1a..c, one partition read mid-reassignment):
    the plan is written, its own check finds no error, and every file step 4 runs is one
    the plan wrote."""
    racks = ["eu-1a", "eu-1b", "eu-1c"]
    brokers = [{"id": b, "rack": racks[(b - 1) % 3]} for b in range(1, 7)]
    partitions = [{"partition": i, "replicas": [1 + (i + k) % 6 for k in range(3)]}
                  for i in range(600)]
    partitions[7]["replicas"] += [b for b in range(1, 7) if b not in partitions[7]["replicas"]]
    for p in partitions:
        p["isr"] = p["replicas"]
    (tmp_path / "prod.json").write_text(json.dumps({
        "kind": "ClusterSnapshot", "version": 1, "cluster": "prod", "brokers": brokers,
        "config": {"min.insync.replicas": "2"},
        "topics": [{"name": "orders", "partitions": partitions}]}))
    sizes = [{"broker": b["id"], "logDirs": [{"logDir": "/data", "error": None, "partitions": [
        {"partition": f"orders-{p['partition']}", "size": 1000 * (1 + p["partition"] % 7),
         "offsetLag": 0, "isFuture": False} for p in partitions if b["id"] in p["replicas"]]}]}
             for b in brokers]
    (tmp_path / "log-dirs.txt").write_text(
        "Querying brokers for log directories information\nReceived log directory information "
        "from brokers 1,2,3,4,5,6\n" + json.dumps({"version": 1, "brokers": sizes}) + "\n")
    steps = [c for c, _ in commands("sh", _plan_block())]
    planned = next(c for c in steps if c.startswith("policylint plan prod.json"))
    checked = next(c for c in steps if c.startswith("policylint lint expand.json"))
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}
    done = subprocess.run(["bash", "-c", planned], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "1 partition holding more replicas than their topic's replication factor" in \
        done.stderr
    written = json.loads((tmp_path / "expand.json").read_text())["partitions"]
    assert all(len(p["replicas"]) == 3 for p in written)
    assert 7 not in {p["partition"] for p in written}
    done = subprocess.run(["bash", "-c", checked], cwd=tmp_path, capture_output=True,
                          text=True, env=env, timeout=600)
    assert done.returncode == 0 and "(0 errors" in done.stdout, done.stdout
    for command in steps:
        if command.startswith("kafka-reassign-partitions.sh"):
            named = re.search(r"--reassignment-json-file (\S+)", command)[1]
            assert (tmp_path / named).is_file(), f"{named}: not written by the plan step"


def test_make_demos_plan_runs_clean(tmp_path):
    """make demo's plan on the bundled snapshot (clicks-3 read mid-reassignment): written,
    clicks-3 left out, and the plan checks clean with the same joining brokers."""
    makefile = (ROOT / "Makefile").read_text()
    line = next(ln.strip().lstrip("@") for ln in makefile.splitlines()
                if "policylint plan " in ln and not ln.strip().startswith("@echo"))
    command = line.replace("$(BIN)/", "").replace(".demo/", "")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "200"}
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    entries = json.loads((tmp_path / "expand.json").read_text())["partitions"]
    assert ("clicks", 3) not in {(p["topic"], p["partition"]) for p in entries}
    add = re.search(r"--add (\S+)", command)[1]
    done = subprocess.run(["bash", "-c", "policylint lint expand.json --cluster "
                           f"examples/clusters/prod-eu-1.json --add {add} --format json"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert [f for f in json.loads(done.stdout)["findings"] if f["severity"] == "error"] == []


def ci_scripts():
    """The policylint commands of the README's CI snippets (GitLab's ``script:``)."""
    import yaml
    for block in re.findall(r"^```yaml\n(.*?)^```$", README, re.S | re.M):
        jobs = yaml.safe_load(block)
        for job in jobs.values() if isinstance(jobs, dict) else ():
            if isinstance(job, dict) and "script" in job:
                yield [line for line in job["script"] if line.startswith("policylint ")], job


@pytest.mark.parametrize("script, job", list(ci_scripts()))
def test_the_readmes_ci_snippets_run_as_shown(tmp_path, script, job):
    """Each command exactly as the snippet writes it, in a copy of the examples: a report
    redirected into the tree is not read back as an input (it is empty when the run starts),
    and every report the job keeps is written and parses."""
    import xml.etree.ElementTree as ElementTree
    assert script
    shutil.copytree(ROOT / "examples" / "gitops", tmp_path, dirs_exist_ok=True)
    for command in script:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True,
                              text=True, env={"PATH": f"{BIN}:/usr/bin:/bin",
                                              "HOME": str(tmp_path)}, timeout=600)
        assert done.returncode in (0, 1), done.stderr
    for kind, name in job["artifacts"]["reports"].items():
        text = (tmp_path / name).read_text()
        found = json.loads(text) if name.endswith(".json") else ElementTree.fromstring(text)
        assert found is not None and len(found)
        assert "file is empty" not in text and "PL100" not in text, kind


def test_the_team_rules_block_is_the_bundled_example():
    """The README's CEL rules are examples/team-rules/.policylint.yaml, word for word."""
    block = re.search(r"```yaml\n# \.policylint\.yaml\n(cel_rules:\n.*?)```", README, re.S)[1]
    bundled = (ROOT / "examples/team-rules/.policylint.yaml").read_text()
    assert block == bundled[bundled.index("cel_rules:"):]


def test_what_a_cel_rule_sees_is_the_kinds_records():
    """The README's table of CEL variables is made from ``cel.kinds`` (one record per
    variable), and each record's documentation names each of its fields."""
    from policylint.cel.kinds import VARIABLES, table
    assert "**What a rule sees**" in README and "\n" + table() + "\n" in README
    for variable in VARIABLES.values():
        if variable.doc:
            assert all(f"`{field}`" in variable.doc for field in variable.fields), variable.name


def test_the_readmes_figures_are_true(request):
    """The test count the README states is within a tenth of the suite's, and the range of
    Kafka releases it says the config table covers is the table's."""
    from policylint import kafka_configs
    stated = int(re.search(r"for the ([\d,]+) tests", README)[1].replace(",", ""))
    collected = len(request.session.items)
    if collected > 1000:  # the whole suite, not a selection of it
        assert abs(stated - collected) <= collected / 10, (stated, collected)
    newest = kafka_configs.newest()
    assert f"topic-level config of Kafka {kafka_configs.known_versions()[0]} to {newest}" \
        in README
