"""What users install. The wheel holds every module and data file of the source tree (a new
subpackage or data file cannot be left out), the sdist builds the same wheel, both are
reproducible, there is one version string, each extra a command needs is named in one line
when it is missing, and under ``make test`` the suite itself runs against the installed wheel.
"""

import importlib.metadata
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import policylint

ROOT = Path(__file__).parents[1]
#: (tree in the checkout, where the wheel puts it)
SHIPPED = (("policylint", "policylint"), ("policies", "policylint/policies"))


def build(out: Path, *args: str, epoch: str = "1700000000", source: Path = ROOT) -> None:
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), *args, str(source)],
                   check=True, capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": epoch})


def checkout_copy(to: Path) -> Path:
    """The files git would commit, as they are now (links kept): builds from it cannot see
    an edit made while the suite runs."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source, target = ROOT / name, to / name
        if not source.is_symlink() and not source.is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    return to


@pytest.fixture(scope="session")
def dist(tmp_path_factory) -> Path:
    """The sdist and the wheel built from it: make test's own (POLICYLINT_DIST), else built."""
    if os.environ.get("POLICYLINT_DIST"):
        return Path(os.environ["POLICYLINT_DIST"])
    out = tmp_path_factory.mktemp("dist")
    build(out)
    return out


def wheel_of(folder: Path) -> Path:
    (wheel,) = folder.glob("*.whl")
    return wheel


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return {n for n in archive.namelist() if ".dist-info/" not in n}


def source_files() -> set[str]:
    """Every file of the source tree the package is made of, named as in the wheel."""
    names = set()
    for tree, target in SHIPPED:
        for folder, dirs, files in os.walk(ROOT / tree):  # the link policylint/policies not followed
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                path = Path(folder, name)
                if not path.is_symlink() and not name.endswith(".pyc"):
                    names.add(f"{target}/{path.relative_to(ROOT / tree).as_posix()}")
    return names


def test_the_wheel_holds_every_file_of_the_source_tree(dist):
    shipped, source = wheel_names(wheel_of(dist)), source_files()
    assert source - shipped == set(), "left out of the wheel"
    assert shipped - source == set(), "in the wheel but not in the source tree"
    # the parts the last round's hand-written package list left out
    for module in ("planner/placement.py", "cel/__init__.py", "server/__init__.py",
                   "policies/strict.yaml", "sources/schemas/snapshot.json",
                   "kafka_configs/topic_configs.json", "spark/log4j2.properties"):
        assert f"policylint/{module}" in shipped


def test_the_sdist_builds_the_wheel_the_tree_builds(dist, tmp_path):
    """python -m build makes the wheel from the sdist: the tree's own wheel is the same."""
    (sdist,) = dist.glob("*.tar.gz")
    build(tmp_path, "--wheel")
    assert wheel_names(wheel_of(tmp_path)) == wheel_names(wheel_of(dist))
    assert sdist.name == f"policylint-{policylint.__version__}.tar.gz"


def test_the_build_is_reproducible(tmp_path):
    source = checkout_copy(tmp_path / "src")
    build(tmp_path / "a", source=source)
    build(tmp_path / "b", source=source)
    for a in sorted((tmp_path / "a").iterdir()):
        assert a.read_bytes() == (tmp_path / "b" / a.name).read_bytes(), a.name


def test_one_version_string(dist):
    version = policylint.__version__
    assert importlib.metadata.version("policylint") == version
    assert wheel_of(dist).name.startswith(f"policylint-{version}-")
    done = subprocess.run([sys.executable, "-m", "policylint", "--version"],
                          capture_output=True, text=True, check=True)
    assert version in done.stdout
    assert f'version = "{version}"' not in (ROOT / "pyproject.toml").read_text()


@pytest.mark.skipif(not os.environ.get("POLICYLINT_INSTALLED"),
                    reason="make test-dev runs this checkout, editable")
def test_the_suite_runs_against_the_installed_wheel():
    """make test: policylint is the wheel installed in its venv, in this process and in the
    processes the tests start, even from the checkout's own directory."""
    venv = Path(os.environ["POLICYLINT_INSTALLED"]).resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert site.is_relative_to(venv) and not venv.is_relative_to(ROOT.resolve())
    assert Path(policylint.__file__).resolve().is_relative_to(site)
    here = subprocess.run([sys.executable, "-c", "import policylint; print(policylint.__file__)"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    assert Path(here.stdout.strip()).resolve().is_relative_to(site)


# -- each extra, missing ------------------------------------------------------------------

@pytest.fixture(scope="module")
def core_only(dist, tmp_path_factory) -> Path:
    """A venv with the wheel and its core dependencies, no extra."""
    venv = tmp_path_factory.mktemp("core-only")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    str(wheel_of(dist))], check=True, capture_output=True)
    return venv / "bin"


SNAPSHOT = ('{"kind": "ClusterSnapshot", "version": 1, "cluster": "c", "brokers": '
            '[{"id": 1, "rack": "a"}, {"id": 2, "rack": "b"}], "topics": [{"name": "t", '
            '"partitions": [{"partition": 0, "replicas": [1, 2], "isr": [1, 2]}]}]}')
CEL_POLICY = """cel_rules:
  - name: team-prefix
    code: TEAM001
    applies_to: topics
    validations:
      - expression: topic.name.startsWith('team.')
        message: topics start with team.
"""


@pytest.mark.parametrize("extra, args", [
    ("plan", ["plan", "snap.json", "--add", "7:a"]),
    ("cel", ["lint", "snap.json", "--policy", "cel.yaml"]),
    ("server", ["server"]),
    ("capture", ["snapshot", "--bootstrap-server", "127.0.0.1:1", "-o", "out.json"]),
    ("audit", ["audit", "fleet", "--output", "out", "--engine", "local"]),
    ("spark", ["audit", "fleet", "--output", "out", "--engine", "spark", "--format", "json"]),
])
def test_a_missing_extra_is_one_line_naming_it(core_only, tmp_path, extra, args):
    (tmp_path / "snap.json").write_text(SNAPSHOT)
    (tmp_path / "cel.yaml").write_text(CEL_POLICY)
    (tmp_path / "fleet").mkdir()
    (tmp_path / "fleet" / "snap.json").write_text(SNAPSHOT)
    done = subprocess.run([str(core_only / "policylint"), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"pip install 'policylint[{extra}]'" in lines[0], done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "out").exists()


def test_the_built_in_entry_points_are_pyprojects():
    """A checkout run from source (no entry points installed) finds the same reporters and
    formats as an install: one list each, the one pyproject.toml declares."""
    import tomllib

    from policylint.registry import BUILT_IN_FORMATS, BUILT_IN_REPORTERS
    points = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]
    assert sorted(points["policylint.reporters"]) == sorted(BUILT_IN_REPORTERS)
    assert sorted(v.rsplit(".", 1)[1] for v in points["policylint.formats"].values()) == \
        sorted(BUILT_IN_FORMATS)
