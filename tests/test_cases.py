"""Rule behaviour, from the case files in tests/cases (one file per rule).

A case writes its files into a temporary directory, lints them with only its rule selected
and compares the findings, as ``CODE file:line:column``, with ``expect``. A case with
``base`` files is a diff-mode case: they are committed to a real git repository first, then
replaced by ``files``, and the run compares with that commit.
"""

import datetime as dt

import pytest
import yaml

from policylint.linter import lint
from policylint.registry import all_rules

from conftest import CASES, git_commit, load_cases, write_files

TODAY = dt.date(2026, 11, 21)


def run_case(rule, case, root):
    base = None
    if "base" in case:
        write_files(root, case["base"])
        git_commit(root, "base")
        for name in case["base"]:
            (root / name).unlink()
        base = "HEAD"
    write_files(root, case["files"])
    context = {case.get("cluster"), case.get("current")}
    paths = case.get("paths") or sorted(n for n in case["files"] if n not in context)
    policy = None
    if "policy" in case:
        (root / "policy.yaml").write_text(yaml.safe_dump(case["policy"]))
        policy = "policy.yaml"
    result = lint(paths, cluster=case.get("cluster"), current=case.get("current"),
                  policy=policy, select=[rule], allow_rf_change=case.get("allow_rf_change", False),
                  max_file_size=case.get("max_file_size", 2**20), base=base, today=TODAY)
    return result


def render(finding):
    where = f"{finding.file}:{finding.line}:{finding.column}"
    return f"{finding.rule} {where}" + (" suppressed" if finding.suppressed else "")


@pytest.mark.parametrize("rule,case", load_cases())
def test_case(rule, case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_case(rule, case, tmp_path)
    assert [render(f) for f in result.findings] == case["expect"]
    for expected in case.get("messages", []):
        assert any(expected in f.message for f in result.findings), expected
    if "unchecked" in case:
        assert result.unchecked.get(rule, 0) == case["unchecked"]


def test_every_rule_has_failing_and_passing_cases():
    for code in all_rules():
        path = CASES / f"{code}.yaml"
        assert path.exists(), f"no case file for {code}"
        cases = yaml.safe_load(path.read_text())["cases"]
        assert any(c["expect"] for c in cases), f"{code} has no failing case"
        assert any(not c["expect"] for c in cases), f"{code} has no passing case"
