"""``--format markdown``: a summary for a pull request or a GitHub job summary."""

from __future__ import annotations

from collections import Counter

from . import repo_relative
from ..words import shown
from .text import summary_line

MAX_ROWS = 200  # a job summary is limited to 1 MiB; the SARIF file has every finding
_ICONS = {"error": ":x:", "warning": ":warning:", "note": ":information_source:"}


def _cell(text: str) -> str:
    """Text from an input as a table cell shows it: no HTML (a job summary renders it),
    no table syntax, no control character."""
    import html
    return html.escape(shown(text.replace("\\", "\\\\").replace("|", "\\|")
                             .replace("\r", " ").replace("\n", " ")), quote=False) \
        .replace("`", "&#96;")


def render(result, **_) -> str:
    lines = ["## policylint", "", summary_line(result), ""]
    active = [f for f in result.findings if not f.suppressed]
    if active:
        per_rule = Counter((f.rule, f.name, f.severity) for f in active)
        lines += ["| Rule | Severity | Findings |", "| --- | --- | ---: |"]
        for (rule, name, severity), count in sorted(per_rule.items()):
            lines.append(f"| {rule} {name} | {_ICONS[severity]} {severity} | {count} |")
        lines += ["", "| Location | Rule | Message |", "| --- | --- | --- |"]
        for f in active[:MAX_ROWS]:
            where = repo_relative(f.file) if f.file else "(policy)"
            if f.line is not None:
                where += f":{f.line}:{f.column}"
            lines.append(f"| `{_cell(where)}` | {_ICONS[f.severity]} {f.rule} | "
                         f"{_cell(f.message)} |")
        if len(active) > MAX_ROWS:
            lines.append(f"\n{len(active) - MAX_ROWS} more findings are not shown here.")
    if result.baseline is not None:
        lines += ["", f"Baseline: {result.baseline['baselined']} known finding(s) left out, "
                  f"{result.baseline['fixed']} fixed since it was written."]
    if result.skipped:
        lines += ["", f"Skipped {len(result.skipped)} file(s): " + ", ".join(
            f"`{_cell(name)}` ({_cell(why)})" for name, why in result.skipped[:MAX_ROWS]) + "."]
    unchecked = {code: n for code, n in result.unchecked.items() if n}
    if unchecked:
        lines += ["", "Not checked for lack of data: " + ", ".join(
            f"{code} ({n})" for code, n in unchecked.items()) + "."]
    return "\n".join(lines) + "\n"
