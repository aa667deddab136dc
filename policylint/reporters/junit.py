"""``--format junit``: JUnit XML as GitLab and Jenkins read it (``testsuites`` > one
``testsuite`` > a ``testcase`` for each linted file, a ``failure`` for each of its findings),
so a CI's test report lists what policylint found. A run with no finding has one passing
test case for each file with none."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from . import repo_relative


def _clean(text: str) -> str:
    """XML 1.0 takes no control characters (but tab and line breaks) nor lone surrogates."""
    return "".join(ch if ch in "\t\n\r" or (" " <= ch and not "\ud800" <= ch <= "\udfff"
                                          and ch not in "\ufffe\uffff") else "\ufffd"
                   for ch in text)


def render(result, **_) -> str:
    # a test case per finding (each a failure), per skipped file (skipped), and one that
    # passes when there is neither: tests = failures + skipped + passed, as JUnit counts
    active = [f for f in result.findings if not f.suppressed]
    passed = not active and not result.skipped
    tests = len(active) + len(result.skipped) + passed
    suites = ET.Element("testsuites", name="policylint", tests=str(tests),
                        failures=str(len(active)), errors="0")  # Jenkins' schema: no skipped
    suite = ET.SubElement(suites, "testsuite", name="policylint", tests=str(tests),
                          failures=str(len(active)), errors="0",
                          skipped=str(len(result.skipped)))
    for f in active:
        file = repo_relative(f.file) if f.file else "(policy)"
        where = f"{file}:{f.line}:{f.column}" if f.line is not None else file
        case = ET.SubElement(suite, "testcase", name=_clean(f"{where} {f.rule}"),
                             classname=_clean(file))
        failure = ET.SubElement(case, "failure", type=f"{f.rule} {f.name}",
                                message=_clean(f"{f.rule} [{f.severity}] {f.message}"))
        failure.text = _clean(f"{where}: {f.rule} [{f.severity}] {f.message}")
    for name, why in result.skipped:
        case = ET.SubElement(suite, "testcase", name=_clean(name), classname="skipped")
        ET.SubElement(case, "skipped", message=_clean(why))
    if passed:
        ET.SubElement(suite, "testcase", name=f"{result.files} files", classname="policylint")
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
