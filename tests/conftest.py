import os
import shutil
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


@pytest.fixture(scope="session")
def spark():
    """One embedded Spark session (local[2], 127.0.0.1) for every Spark test. Without pyspark
    or Java the Spark tests skip, unless POLICYLINT_REQUIRE_SPARK=1 (CI) makes that a failure."""
    missing = None
    try:
        import pyspark  # noqa: F401
    except ImportError:
        missing = "pyspark is not installed (pip install -e '.[spark]')"
    if missing is None and shutil.which("java") is None:
        missing = "Java 17+ is not installed"
    if missing:
        if os.environ.get("POLICYLINT_REQUIRE_SPARK"):
            pytest.fail(f"Spark tests required but cannot run: {missing}")
        pytest.skip(missing)
    from policylint.spark.audit import session
    spark = session("local[2]")
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    yield spark
    spark.stop()
