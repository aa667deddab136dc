"""The documentation page of each built-in rule (``docs/rules/PL301.md``), made from its
docstring and options; the test suite keeps the checked-in pages in step with the rules.

    python -m policylint.rule_pages docs/rules
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .registry import all_rules
from .rule import Rule


def page(rule: Rule) -> str:
    lines = [f"# {rule.code} {rule.name}", "",
             f"Default severity: **{rule.severity}**. Configure it in the policy: "
             f"`rules: {{{rule.code}: {{severity: warning}}}}`, or turn it off with "
             "`enabled: false`.", ""]
    props = rule.options_schema.get("properties", {})
    if props:
        lines += ["| option | default | meaning |", "| --- | --- | --- |"]
        lines += [f"| `{name}` | `{json.dumps(spec.get('default'))}` | "
                  f"{spec.get('description', '')} |" for name, spec in props.items()]
        lines.append("")
    lines += [rule.documentation(), ""]
    return "\n".join(lines)


def built_in() -> list[Rule]:
    return sorted((r for r in all_rules().values() if r.help_uri() and
                   type(r).__module__.startswith("policylint.rules.")), key=lambda r: r.code)


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/rules")
    folder.mkdir(parents=True, exist_ok=True)
    for rule in built_in():
        (folder / f"{rule.code}.md").write_text(page(rule))
    index = ["# policylint rules", "", "| code | name | severity | summary |",
             "| --- | --- | --- | --- |"]
    index += [f"| [{r.code}]({r.code}.md) | {r.name} | {r.severity} | {r.summary()} |"
              for r in built_in()]
    (folder / "README.md").write_text("\n".join(index) + "\n")
    print(f"{folder}: {len(built_in())} rule pages")


if __name__ == "__main__":
    main()
