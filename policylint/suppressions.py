"""Suppressions written in the linted files, and those that suppress nothing (PL122).

A finding is suppressed by a ``# policylint: disable=CODE reason`` comment on its line or
the line above (YAML), by its manifest's ``policylint.io/disable`` annotation, or by a policy
exemption. A comment or annotation that names no known rule, or that suppressed no finding
of a rule that ran, is reported, as ruff's RUF100 does: a typo'd code silently suppresses
nothing, and a stale one hides the next real finding. Each such finding carries its fix:
the code leaves the comment or annotation, and a suppression left naming nothing goes
whole (a comment on a line of its own takes the line with it).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from .model import Finding, Fix, LineFix
from .sources.document import DISABLE

ANNOTATION = "policylint.io/disable"


class Suppressions:
    """Applies the suppressions to findings and remembers which were used."""

    def __init__(self, policy: Any):
        self.policy = policy
        self.used: set[tuple] = set()  # (source, line, key) of comments; (doc, key)

    def apply(self, finding: Finding, rule: Any) -> None:
        keys = {rule.code, rule.name, "all"}
        doc = finding.at[0] if finding.at else None
        if doc is not None and finding.line is not None:
            disables = doc.source.disables()
            for line in (finding.line, finding.line - 1):
                if line in disables and keys & disables[line][0]:
                    self.used.update((id(doc.source), line, key)
                                     for key in keys & disables[line][0])
                    _suppressed(finding, "inSource",
                                disables[line][1] or "disabled by an inline comment")
                    return
        listed = annotation_codes(doc)
        if listed and keys & listed:
            self.used.update((id(doc), key) for key in keys & listed)
            _suppressed(finding, "inSource", f"disabled by the {ANNOTATION} annotation")
            return
        exemption = self.policy.exemption(rule.code, finding.topic)
        if exemption is not None:
            _suppressed(finding, "external", exemption.reason)

    def unused(self, docs: Iterable[Any], annotated: Iterable[Any], rules: dict[str, Any],
               ran: set[str], report: Any) -> Iterator[Finding]:
        """PL122 findings (from ``report``, the rule) of the comments in the files of
        ``docs`` and of the annotations of the ``annotated`` documents that name no rule of
        ``rules`` (code or name -> rule), or that suppressed nothing of a rule that ran."""
        sources = {id(doc.source): doc.source for doc in docs}
        for key, source in sources.items():
            disables = source.disables()
            lines = source.text.splitlines() if disables else []
            for line, (codes, _) in sorted(disables.items()):
                text = lines[line - 1] if line <= len(lines) else ""
                problems = {code: self._problem(code, rules, ran, (key, line, code))
                            for code in sorted(codes)}
                fix = LineFix(source, line, _comment_without(text, problems))
                for code, problem in problems.items():
                    if problem:
                        finding = report.finding(f"# policylint: disable={code} {problem}")
                        finding.file, finding.line = source.name, line
                        finding.column = text.find("#") + 1
                        finding.fix = fix
                        yield finding
        for doc in {id(doc): doc for doc in annotated}.values():
            at = (doc, ("metadata", "annotations", ANNOTATION))
            listed = _listed(doc) or ""
            problems = {code: self._problem(code, rules, ran, (id(doc), code))
                        for code in sorted(annotation_codes(doc))}
            kept = ",".join(c.strip() for c in listed.split(",")
                            if c.strip() and not problems[c.strip()])
            fix = Fix("set", at, kept) if kept else Fix("delete", at)
            for code, problem in problems.items():
                if problem:
                    finding = report.finding(f"{ANNOTATION}: {code} {problem}", at=at)
                    finding.fix = fix
                    yield finding

    def _problem(self, code: str, rules: dict[str, Any], ran: set[str], used: tuple) -> str:
        if code != "all" and code not in rules:
            return "names no rule policylint knows (see 'policylint rules')"
        if used not in self.used and (code == "all" or rules[code].code in ran):
            return "suppresses no finding in this run: remove it"
        return ""


def _comment_without(text: str, problems: dict[str, str]) -> str | None:
    """``text`` with the codes that have a problem taken out of its disable comment; the
    comment goes when none is left, and the line when nothing else was on it (None)."""
    match = DISABLE.search(text)
    kept = [c.strip() for c in match.group(1).split(",") if c.strip() and not problems.get(
        c.strip())]
    if kept:
        return text[:match.start(1)] + ",".join(kept) + text[match.end(1):]
    head = text[:match.start()].rstrip()
    return head if head.strip() else None


def _listed(doc: Any) -> str | None:
    """A manifest's ``policylint.io/disable`` annotation as text (a plan or snapshot, read as
    typed values, has none). A YAML number (``301``) is read as written: it names no rule,
    which PL122 says."""
    if doc is None or doc.typed is not None or not isinstance(doc.data, dict):
        return None
    metadata = doc.data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    listed = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    if isinstance(listed, (int, float)) and not isinstance(listed, bool):
        return str(listed)
    return listed if isinstance(listed, str) else None


def annotation_codes(doc: Any) -> set[str]:
    """The codes of a manifest's ``policylint.io/disable`` annotation."""
    listed = _listed(doc)
    return {c.strip() for c in listed.split(",") if c.strip()} if listed else set()


def _suppressed(finding: Finding, kind: str, justification: str) -> None:
    finding.suppressed, finding.suppression, finding.justification = True, kind, justification
