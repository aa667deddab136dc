"""ACME's rules, tested with policylint's case-file harness: lint, and the audit on Spark
(native where a rule has a Spark form, the generic Python path otherwise)."""

from pathlib import Path

import pytest

from policylint import testing

CASES = Path(__file__).parent / "cases"


@pytest.mark.parametrize("rule,case", testing.load_cases(CASES))
def test_case(rule, case, tmp_path):
    testing.check_case(rule, case, tmp_path)


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark")
    session = testing.spark_session()
    yield session
    session.stop()


def test_the_audit_gives_the_lint_findings(spark, tmp_path):
    assert testing.check_spark_parity(spark, testing.load_cases(CASES), tmp_path) == 4
