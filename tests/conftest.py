import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from policylint import testing
from policylint.testing import git, git_commit, write_files  # noqa: F401  (for the tests)

CASES = Path(__file__).parent / "cases"
PLUGIN = Path(__file__).parents[1] / "examples" / "plugin"
#: the built-in rule pack: tests of it select it, so that they hold with other packs installed
BUILT_IN = ["PL"]


def pytest_configure(config):
    """The suite runs with a third-party rule pack installed: the example pack, built into a
    temporary directory on the path of this process and of every process it starts. Tests
    of the built-in pack select it (BUILT_IN); the pack's own tests run in the suite too."""
    work = config.plugin_work = Path(tempfile.mkdtemp(prefix="policylint-plugin-"))
    shutil.copytree(PLUGIN, work / "src", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--no-build-isolation", "--target", str(work / "site"), str(work / "src")],
                   check=True, capture_output=True)
    sys.path.insert(0, str(work / "site"))
    # the processes the tests start see the pack; policylint is the one installed (make test:
    # the wheel, in a venv outside this checkout; make test-dev: this checkout, editable)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(work / "site"), os.environ.get("PYTHONPATH")) if p)
    from policylint import registry
    registry._installed.cache_clear()
    registry.all_rules.cache_clear()
    registry.reporter_formats.cache_clear()
    from policylint.sources import formats
    formats.reset()


def pytest_unconfigure(config):
    """The pack's temporary directory goes with the run."""
    work = getattr(config, "plugin_work", None)
    if work is not None:
        shutil.rmtree(work, ignore_errors=True)


def load_cases():
    """(rule, case) for every case of the built-in rules' case files."""
    return testing.load_cases(CASES)


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
    spark = testing.spark_session("local[2]")
    yield spark
    spark.stop()


#: the releases make test (and so CI) asks a running Kafka: the oldest and the newest the
#: config table covers in KRaft mode; bench/kafka_oracle.py asks every one
LIVE_RELEASES = ("3.3", "4.4")
_CLUSTERS: dict = {}


def own_kafka_cluster(minor: str, **options):
    """A running Apache Kafka of its own for one test (which may stop or add brokers): the
    caller stops it. Skipped as the shared ones are where Kafka cannot run here."""
    from kafka_cluster import RELEASES, KafkaCluster, KafkaUnavailable
    for attempt in (1, 2):  # a loaded 2-core machine can time a quorum out: once more
        try:
            return KafkaCluster(RELEASES[minor], **options).start()
        except KafkaUnavailable as exc:
            failed = exc
            if "Maven" in str(exc) or "java" in str(exc):
                break  # nothing to fetch or run it with: no second try helps
    if os.environ.get("POLICYLINT_REQUIRE_KAFKA"):
        pytest.fail(f"Kafka tests required but cannot run: {failed}")
    pytest.skip(str(failed))


@pytest.fixture(scope="session")
def kafka_cluster():
    """A running Apache Kafka of a release (``kafka_cluster("4.4")``): one controller and three
    brokers in racks a, b, c, started once per test run and release, torn down at its end.
    Without Java or Maven the tests skip, unless POLICYLINT_REQUIRE_KAFKA=1 (CI) makes that a
    failure; a start that fails says so in one line."""
    def started(minor: str):
        if minor not in _CLUSTERS:
            _CLUSTERS[minor] = None  # a start that failed is not tried again in the run
            _CLUSTERS[minor] = own_kafka_cluster(minor)
        if _CLUSTERS[minor] is None:
            pytest.skip(f"Kafka {minor} did not start")
        return _CLUSTERS[minor]

    yield started
    for cluster in _CLUSTERS.values():
        if cluster is not None:
            print(f"\nKafka {cluster.version}: started in {cluster.seconds:.0f} s", end="")
            cluster.stop()
