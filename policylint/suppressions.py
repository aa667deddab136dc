"""Suppressions written in the linted files, and those that suppress nothing (PL122).

A finding is suppressed by a ``# policylint: disable=CODE reason`` comment on its line or
the line above (YAML), by its manifest's ``policylint.io/disable`` annotation, or by a policy
exemption. A comment or annotation that names no known rule, or that suppressed no finding
of a rule that ran, is reported, as ruff's RUF100 does: a typo'd code silently suppresses
nothing, and a stale one hides the next real finding.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from .model import Finding

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
        listed = _annotation(doc)
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
                column = lines[line - 1].find("#") + 1 if line <= len(lines) else 1
                for code in sorted(codes):
                    problem = self._problem(code, rules, ran, (key, line, code))
                    if problem:
                        finding = report.finding(f"# policylint: disable={code} {problem}")
                        finding.file, finding.line, finding.column = source.name, line, column
                        yield finding
        for doc in {id(doc): doc for doc in annotated}.values():
            for code in sorted(_annotation(doc)):
                problem = self._problem(code, rules, ran, (id(doc), code))
                if problem:
                    yield report.finding(f"{ANNOTATION}: {code} {problem}",
                                         at=(doc, ("metadata", "annotations", ANNOTATION)))

    def _problem(self, code: str, rules: dict[str, Any], ran: set[str], used: tuple) -> str:
        if code != "all" and code not in rules:
            return "names no rule policylint knows (see 'policylint rules')"
        if used not in self.used and (code == "all" or rules[code].code in ran):
            return "suppresses no finding in this run: remove it"
        return ""


def _annotation(doc: Any) -> set[str]:
    """The codes of a manifest's ``policylint.io/disable`` annotation (a plan or snapshot,
    read as typed values, has none)."""
    if doc is None or doc.typed is not None or not isinstance(doc.data, dict):
        return set()
    metadata = doc.data.get("metadata")
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    listed = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    return {c.strip() for c in listed.split(",") if c.strip()} if isinstance(listed, str) \
        else set()


def _suppressed(finding: Finding, kind: str, justification: str) -> None:
    finding.suppressed, finding.suppression, finding.justification = True, kind, justification
