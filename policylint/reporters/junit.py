"""``--format junit``: JUnit XML as GitLab and Jenkins read it (``testsuites`` > one
``testsuite`` > a ``testcase`` for each linted file, a ``failure`` for each of its findings),
so a CI's test report lists what policylint found. A run with no finding has one passing
test case for each file with none."""

from __future__ import annotations

from itertools import groupby
from xml.etree import ElementTree as ET

from . import repo_relative


def _clean(text: str) -> str:
    """XML 1.0 takes no control characters (but tab and line breaks) nor lone surrogates."""
    return "".join(ch if ch in "\t\n\r" or (" " <= ch and not "\ud800" <= ch <= "\udfff"
                                          and ch not in "\ufffe\uffff") else "\ufffd"
                   for ch in text)


def render(result, **_) -> str:
    active = [f for f in result.findings if not f.suppressed]
    by_file = {file: list(group) for file, group in
               groupby(active, key=lambda f: repo_relative(f.file) if f.file else "(policy)")}
    suites = ET.Element("testsuites", name="policylint", tests=str(max(len(by_file), 1)),
                        failures=str(len(active)), errors="0")
    suite = ET.SubElement(suites, "testsuite", name="policylint",
                          tests=str(max(len(by_file), 1)), failures=str(len(active)),
                          errors="0", skipped=str(len(result.skipped)))
    for file, findings in by_file.items():
        case = ET.SubElement(suite, "testcase", name=_clean(file), classname="policylint")
        for f in findings:
            where = f"{file}:{f.line}:{f.column}" if f.line is not None else file
            failure = ET.SubElement(case, "failure", type=f"{f.rule} {f.name}",
                                    message=_clean(f"{f.rule} [{f.severity}] {f.message}"))
            failure.text = _clean(f"{where}: {f.rule} [{f.severity}] {f.message}")
    if not by_file:
        ET.SubElement(suite, "testcase", name=f"{result.files} files", classname="policylint")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
