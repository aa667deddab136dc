"""``--format json``: the public, stable JSON contract (sorted by file, line, column, code)."""

from __future__ import annotations

from .. import __version__
from ..model import LineFix
from . import to_json


def fix_of(finding) -> dict | None:
    """What --fix changes for a finding: an entry set, renamed or deleted at its path, or a
    line replaced or removed; None when it has no fix."""
    fix = finding.fix
    if fix is None:
        return None
    if isinstance(fix, LineFix):
        return {"action": "replace-line" if fix.text is not None else "delete-line",
                "line": fix.line, "text": fix.text}
    return {"action": fix.action, "path": [str(p) for p in fix.at[1]],
            "value": fix.value if isinstance(fix.value, (str, int, float, bool)) else None,
            **({"key": fix.key} if fix.key else {})}


def render(result, **_) -> str:
    urls = {rule.code: rule.help_uri() for rule, _ in result.rules}
    counts = result.counts()
    document = {
        "version": 1,
        "tool": {"name": "policylint", "version": __version__},
        "findings": [
            {"rule": f.rule, "name": f.name, "severity": f.severity, "message": f.message,
             "file": f.file, "line": f.line, "column": f.column, "topic": f.topic,
             "partition": f.partition, "suppressed": f.suppressed,
             "related": f.related_at(), "subjects": f.subjects,
             "url": urls.get(f.rule), "fix": fix_of(f),
             **dict(zip(("end_line", "end_column"), f.end() or (None, None)))}
            for f in result.findings],
        "unchecked": result.unchecked_subjects,
        "summary": {"files": result.files, **counts, "unchecked": result.unchecked,
                    "skipped": [{"file": name, "reason": why} for name, why in result.skipped],
                    "fixable": sum(1 for f in result.findings if f.fix and not f.suppressed),
                    **({"baseline": result.baseline} if result.baseline is not None else {})},
    }
    return to_json(document)
