"""What the server answers, from a file's lint (``workspace.Linted``): its findings as LSP
diagnostics, their fixes and suppressions as code actions, and the editor's settings as
``settings.resolve``'s keywords. Pure functions; ``types`` is lsprotocol's module."""

from __future__ import annotations

import re
from typing import Any

from .workspace import Linted, edit, uri_of

#: the code action kind of "fix all", namespaced so that fix-on-save can name it alone
FIX_ALL = "source.fixAll.policylint"


_SEVERITY = {"error": 1, "warning": 2, "note": 3}
#: where a policy's refusal names its place: ``policy NAME:LINE:COLUMN: why``
_LOCATED = re.compile(r"(\d+):(\d+): ")


def settings(raw: Any) -> tuple[dict, float | None]:
    """(``lint``'s keywords, the debounce in seconds or None) of the editor's settings:
    ``policy`` (a file), ``select`` and ``ignore`` (codes, a list or comma-separated),
    ``kafkaVersion``, ``baseline`` (a file; "" for none), ``debounceMs``. What is not of its
    type is left out."""
    if isinstance(raw, dict) and isinstance(raw.get("policylint"), dict):
        raw = raw["policylint"]
    if not isinstance(raw, dict):
        return {}, None
    options: dict = {}
    for key, name in (("policy", "policy"), ("kafkaVersion", "kafka_version"),
                      ("baseline", "baseline")):
        if isinstance(raw.get(key), str):
            options[name] = raw[key]
    for key in ("select", "ignore"):
        value = raw.get(key)
        items = value.split(",") if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            options[key] = [i.strip() for i in items if i.strip()]
    debounce = raw.get("debounceMs")
    return options, (max(0, debounce) / 1000 if isinstance(debounce, (int, float))
                     and not isinstance(debounce, bool) else None)


def _column(text: str | None, column: int) -> int:
    """A 1-based column in characters as LSP's 0-based UTF-16 offset."""
    if not text:
        return max(column - 1, 0)
    head = text[:max(column - 1, 0)]
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def related(ls: Any) -> bool:
    """Whether the client takes ``relatedInformation`` (LSP: only where it says so)."""
    documents = ls.client_capabilities.text_document
    published = documents.publish_diagnostics if documents is not None else None
    return bool(published is not None and published.related_information)


def diagnostics(linted: Linted, types: Any, with_related: bool = True) -> list:
    """The unsuppressed findings of the file, as LSP diagnostics: located from start to
    end, the rule's code linked to its page."""
    if linted.result is None:
        return []
    from ..registry import all_rules
    rules = all_rules()
    lines = linted.text.splitlines()
    out = []
    for i, f in linted.result.of_file(linted.name):
        if f.suppressed:
            continue
        line = (f.line or 1) - 1
        text = lines[line] if 0 <= line < len(lines) else ""
        end = f.end() or (f.line or 1, len(text) + 1)
        start = types.Position(line, _column(text, f.column or 1))
        stop_text = lines[end[0] - 1] if 0 < end[0] <= len(lines) else ""
        stop = types.Position(end[0] - 1, _column(stop_text, end[1]))
        rule = rules.get(f.rule)
        href = rule.help_uri() if rule is not None else None
        related = [types.DiagnosticRelatedInformation(location=_location(r, types),
                                                      message=r["what"])
                   for r in f.related_at() if r.get("file") and r.get("line")]
        out.append(types.Diagnostic(
            range=types.Range(start, stop), message=f.message, source="policylint",
            severity=types.DiagnosticSeverity(_SEVERITY.get(f.severity, 3)), code=f.rule,
            code_description=types.CodeDescription(href=href) if href else None,
            related_information=related if related and with_related else None,
            data={"finding": i}))
    return sorted(out, key=lambda d: (d.range.start.line, d.range.start.character))


def refusal(said: str, linted: Linted, types: Any) -> list:
    """A refused policy's one-line reason (``policy NAME:LINE:COLUMN: why``, or ``policy
    NAME: why``) as a diagnostic of the file it names, when that is ``linted``'s (an open
    policy file: its name, the editor's text), from its place to its line's end; else
    none."""
    head = f"policy {linted.name}:"
    if not said.startswith(head):
        return []
    located = _LOCATED.match(said, len(head))
    line, column = (int(located[1]), int(located[2])) if located else (1, 1)
    lines = linted.text.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return [types.Diagnostic(
        range=types.Range(types.Position(line - 1, _column(text, column)),
                          types.Position(line - 1, _column(text, len(text) + 1))),
        message=said[located.end() if located else len(head):].strip(), source="policylint",
        severity=types.DiagnosticSeverity.Error)]


def _location(where: dict, types: Any) -> Any:
    """A related value's place (file, 1-based line and column) as an LSP Location."""
    at = types.Position(where["line"] - 1, max((where["column"] or 1) - 1, 0))
    return types.Location(uri=uri_of(where["file"]), range=types.Range(at, at))


def code_actions(linted: Linted, params: Any, types: Any) -> list:
    """Per diagnostic in range its fix and a suppression comment; and "fix all"."""
    from .. import fixes
    findings = linted.result.findings
    uri = params.text_document.uri
    actions = []
    for diagnostic in params.context.diagnostics:
        finding = _finding_of(diagnostic, findings, linted.name)
        if finding is None:
            continue
        if finding.fix is not None:
            actions += _action(f"Fix {finding.rule}: {finding.message[:60]}",
                               _edit(fixes.apply([finding], write=False), linted, uri, types),
                               types.CodeActionKind.QuickFix, [diagnostic], types)
        actions += _action(f"Suppress {finding.rule} on this line",
                           _edit(fixes.add_noqa([finding], "", write=False), linted, uri, types),
                           types.CodeActionKind.QuickFix, [diagnostic], types)
    fixable = _fixable(linted)
    actions += _action(f"Fix all policylint findings ({len(fixable)})",
                       fix_all(linted, uri, types), FIX_ALL, None, types)
    return actions


def _fixable(linted: Linted) -> list:
    return [f for _, f in linted.result.of_file(linted.name)
            if f.fix is not None and not f.suppressed]


def fix_all(linted: Linted, uri: str, types: Any) -> Any:
    """The edit that applies every fix of the file's findings (None: nothing to fix)."""
    from .. import fixes
    fixable = _fixable(linted)
    return _edit(fixes.apply(fixable, write=False), linted, uri, types) if fixable else None


def _finding_of(diagnostic: Any, findings: list, name: str) -> Any:
    """The finding a diagnostic the client sends back stands for: by the index it carries,
    else (a client that drops ``data``) by its code and line."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    index = data.get("finding")
    if isinstance(index, int) and 0 <= index < len(findings) and \
            findings[index].rule == diagnostic.code:
        return findings[index]
    return next((f for f in findings if f.file == name and f.rule == diagnostic.code
                 and (f.line or 1) - 1 == diagnostic.range.start.line), None)


def _edit(outcomes: list, linted: Linted, uri: str, types: Any) -> Any:
    """The outcomes of a fix as one WorkspaceEdit of the file (None: it changes nothing)."""
    texts = [o.text for o in outcomes if o.text is not None and o.file == linted.name]
    if not texts or texts[0] == linted.text:
        return None
    change = edit(linted.text, texts[0])
    text_edit = types.TextEdit(range=types.Range(types.Position(change.start, 0),
                                                 types.Position(change.end, 0)),
                               new_text=change.text)
    return types.WorkspaceEdit(changes={uri: [text_edit]})


def _action(title: str, change: Any, kind: Any, diagnostics_: list | None,
            types: Any) -> list:
    return [] if change is None else [types.CodeAction(
        title=title, kind=kind, diagnostics=diagnostics_, edit=change)]
