"""``--format json``: the public, stable JSON contract (sorted by file, line, column, code)."""

from __future__ import annotations

from .. import __version__
from . import to_json


def render(result, **_) -> str:
    counts = result.counts()
    document = {
        "version": 1,
        "tool": {"name": "policylint", "version": __version__},
        "findings": [
            {"rule": f.rule, "name": f.name, "severity": f.severity, "message": f.message,
             "file": f.file, "line": f.line, "column": f.column, "topic": f.topic,
             "partition": f.partition, "suppressed": f.suppressed,
             "related": f.related_at(), "subjects": f.subjects}
            for f in result.findings],
        "summary": {"files": result.files, **counts, "unchecked": result.unchecked,
                    "skipped": [{"file": name, "reason": why} for name, why in result.skipped],
                    **({"baseline": result.baseline} if result.baseline is not None else {})},
    }
    return to_json(document)
