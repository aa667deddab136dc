"""Every rule documents itself in ruff's headings; codes and names are stable."""

import inspect
import re
from pathlib import Path

import pytest

from policylint.registry import all_rules

HEADINGS = ["## What it does", "## Why is this bad?", "## Example", "## Use instead"]
RULES_MD = Path(__file__).parents[2] / "shared" / "RULES.md"


@pytest.mark.parametrize("code", list(all_rules()))
def test_rule_docstring_has_the_headings(code):
    rule = all_rules()[code]
    doc = inspect.cleandoc(type(rule).__doc__ or "")
    assert doc.splitlines()[0].strip(), "a one-line summary first"
    for heading in HEADINGS:
        assert heading in doc, f"{code} lacks {heading}"
    if rule.options_schema.get("properties"):
        assert "## Options" in doc
        for option in rule.options_schema["properties"]:
            assert f"`{option}`" in doc


@pytest.mark.skipif(not RULES_MD.exists(), reason="shared/RULES.md is not beside the repo")
def test_codes_and_names_match_the_catalogue():
    catalogue = dict(re.findall(r"^\| (PL\d{3}) \| ([a-z0-9-]+) \|", RULES_MD.read_text(), re.M))
    diff_mode = {"PL202", "PL206", "PL207", "PL208"}  # need git history: not in this release
    for code, name in catalogue.items():
        if code in diff_mode:
            continue
        assert code in all_rules(), f"{code} {name} is not implemented"
        assert all_rules()[code].name == name
        severity = re.search(rf"^\| {code} \| {name} \| (\w+) \|", RULES_MD.read_text(), re.M)
        assert all_rules()[code].severity == severity.group(1)
