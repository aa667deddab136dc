"""Rule behaviour, from the case files in tests/cases (one file per rule).

A case writes its files into a temporary directory, lints them with only its rule selected
and compares the findings, as ``CODE file:line:column``, with ``expect``. A case with
``base`` files is a diff-mode case: they are committed to a real git repository first, then
replaced by ``files``, and the run compares with that commit.
"""

import pytest
import yaml

from policylint import testing
from policylint.registry import all_rules

from conftest import CASES, load_cases


@pytest.mark.parametrize("rule,case", load_cases())
def test_case(rule, case, tmp_path):
    testing.check_case(rule, case, tmp_path)


def test_every_rule_has_failing_and_passing_cases():
    for code, rule in all_rules().items():
        if not code.startswith("PL"):
            continue
        family = type(rule).__module__.split(".")[2]  # policylint.rules.FAMILY.module
        path = CASES / family / f"{code}.yaml"
        assert path.exists(), f"no case file for {code}"
        cases = yaml.safe_load(path.read_text())["cases"]
        assert any(c["expect"] for c in cases), f"{code} has no failing case"
        assert any(not c["expect"] for c in cases), f"{code} has no passing case"
