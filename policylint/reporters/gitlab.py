"""``--format gitlab``: GitLab's code quality report (a JSON array of issues: ``description``,
``check_name``, ``fingerprint``, ``severity``, ``location.path``, ``location.lines.begin``),
for ``artifacts: reports: codequality:``. Fingerprints are the baseline's and SARIF's, made
unique in the file as GitLab requires."""

from __future__ import annotations

import hashlib

from . import repo_relative, to_json
from ..baseline import fingerprints

SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


def render(result, **_) -> str:
    active = [f for f in result.findings if not f.suppressed]
    issues = []
    for f, fingerprint in zip(active, fingerprints(active, repo_relative)):
        issues.append({
            "description": f"{f.rule} {f.name}: {f.message}",
            "check_name": f.rule,
            "fingerprint": hashlib.sha256(fingerprint.encode()).hexdigest()[:32],
            "severity": SEVERITY[f.severity],
            "location": {"path": repo_relative(f.file) if f.file else "(policy)",
                         "lines": {"begin": f.line or 1}},
        })
    return to_json(issues)
