"""The README runs. Every command of its ``sh`` and ``console`` blocks that can run offline is
run with the installed policylint, in a copy of the bundled examples, one block after the
other as a reader would; a ``console`` block's output is what the command prints. The
commands that cannot run here are listed below with the reason."""

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
                                 "live cluster (tests/test_plan.py plans on snapshots)",
    "policylint lint expand.json": "lints the plan of the step before",
    "policylint lint plan.json --current": "the reader's plan and kafka-reassign-partitions.sh "
                                           "output (tests/cases/PL201.yaml)",
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
