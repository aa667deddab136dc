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


# Catalogue rows whose issues are still open: each leaves this list as it lands.
PENDING: set[str] = set()  # RULES.md rows of open issues

#: rules an issue asked for before the catalogue has their row (RULES.md is read-only here;
#: the closing note proposes the row): code -> name
AHEAD: dict[str, str] = {}  # rules built before their catalogue row: none now


@pytest.mark.skipif(not RULES_MD.exists(), reason="shared/RULES.md is not beside the repo")
def test_codes_and_names_match_the_catalogue():
    catalogue = dict(re.findall(r"^\| (PL\d{3}) \| ([a-z0-9-]+) \|", RULES_MD.read_text(), re.M))
    built_in = {code for code in all_rules() if code.startswith("PL")}
    assert built_in - catalogue.keys() - AHEAD.keys() == set(), "a rule the catalogue lacks"
    for code, name in AHEAD.items():  # the catalogue is the steering's: its row is asked for
        assert code not in catalogue, f"{code} is in the catalogue: take it out of AHEAD"
        assert all_rules()[code].name == name
    for code, name in catalogue.items():
        if code in PENDING:
            assert code not in all_rules(), f"{code} is implemented: take it out of PENDING"
            continue
        assert code in all_rules(), f"{code} {name} is not implemented"
        assert all_rules()[code].name == name
        severity = re.search(rf"^\| {code} \| {name} \| (\w+) \|", RULES_MD.read_text(), re.M)
        assert all_rules()[code].severity == severity.group(1)


def test_the_platform_policy_example_passes_its_topic_and_flags_the_others(monkeypatch):
    """examples/platform-policy.yaml, the policy the README shows, reads as written and
    judges: its own example topic passes, the gitops examples break its parameters."""
    from policylint.linter import lint
    monkeypatch.chdir(Path(__file__).parent.parent)
    policy = "examples/platform-policy.yaml"
    cluster = "examples/clusters/prod-eu-1.json"
    run = dict(cluster=cluster, policy=policy, select=["PL"])  # the example pack installed
    assert lint(["examples/platform"], **run).findings == []
    codes = {f.rule for f in lint(["examples/gitops"], **run).findings}
    assert {"PL701", "PL703", "PL704", "PL705", "PL706"} <= codes


def test_each_built_in_rule_has_its_page_in_step_with_its_docstring():
    """docs/rules is generated: python -m policylint.rule_pages docs/rules"""
    from policylint.rule_pages import built_in, page
    folder = Path(__file__).parent.parent / "docs" / "rules"
    rules = built_in()
    assert len(rules) >= 60
    for rule in rules:
        assert (folder / f"{rule.code}.md").read_text() == page(rule), rule.code
        assert rule.help_uri().endswith(f"/docs/rules/{rule.code}.md")
    assert sorted(p.stem for p in folder.glob("PL*.md")) == [r.code for r in rules]
