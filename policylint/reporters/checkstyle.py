"""``--format checkstyle``: Checkstyle's XML (``checkstyle`` > ``file name`` > ``error line
column severity message source``), which Jenkins' warnings plugin, reviewdog and many
editors read."""

from __future__ import annotations

from itertools import groupby
from xml.etree import ElementTree as ET

from .junit import _clean

SEVERITY = {"error": "error", "warning": "warning", "note": "info"}


def render(result, **_) -> str:
    root = ET.Element("checkstyle", version="4.3")
    active = [f for f in result.findings if not f.suppressed]
    for file, findings in groupby(active, key=lambda f: f.file or "(policy)"):
        element = ET.SubElement(root, "file", name=_clean(file))
        for f in findings:
            attributes = {"line": str(f.line or 0)}
            if f.column is not None:
                attributes["column"] = str(f.column)
            ET.SubElement(element, "error", **attributes, severity=SEVERITY[f.severity],
                          message=_clean(f.message), source=f"policylint.{f.rule}.{f.name}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"
