import subprocess
import textwrap
from pathlib import Path

import pytest
import yaml

CASES = Path(__file__).parent / "cases"


def load_cases():
    """(rule, case) for every case of every case file, with readable ids."""
    return list(_cases())


def _cases():

    for path in sorted(CASES.glob("*.yaml")):
        spec = yaml.safe_load(path.read_text())
        for i, case in enumerate(spec["cases"]):
            yield pytest.param(spec["rule"], case, id=f"{path.stem}-{i}-{case['name']}")


def write_files(root: Path, files: dict) -> None:
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_text(textwrap.dedent(content))
        else:  # raw bytes given as a list of ints or via `bytes:`
            target.write_bytes(bytes(content["bytes"]))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def git_commit(root: Path, message: str) -> None:
    """Commit everything under ``root``, making it a git repository first if need be."""
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=policylint", "-c", "user.email=policylint@example.com",
        "commit", "-q", "--allow-empty", "-m", message)
