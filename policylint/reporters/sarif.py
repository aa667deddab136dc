"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers."""

from __future__ import annotations

from .. import __version__
from ..baseline import fingerprints
from . import repo_relative, to_json

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(rule, severity: str) -> dict:
    doc = rule.documentation()
    uri = rule.help_uri()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": _section(doc, "What it does") or rule.summary()},
        **({"helpUri": uri} if uri else {}),
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": severity},  # policylint's severities are SARIF levels
        "properties": {"tags": ["kafka"]},
    }


def _section(doc: str, heading: str) -> str:
    """The text under one ``## heading`` of a rule's docstring, as one paragraph."""
    _, found, rest = doc.partition(f"## {heading}\n")
    return " ".join(rest.split("\n## ")[0].split()) if found else ""


def render(result, **_) -> str:
    rules = [_rule(rule, severity) for rule, severity in result.rules]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    # the baseline's fingerprints: no line or column, so they survive edits elsewhere
    for f, fingerprint in zip(result.findings, fingerprints(result.findings, repo_relative)):
        uri = _uri(f.file) if f.file else None
        entry: dict = {"ruleId": f.rule, "ruleIndex": index[f.rule], "level": f.severity,
                       "message": {"text": f.message}}
        if uri is not None:
            location: dict = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
            if f.line is not None:
                location["region"] = {"startLine": f.line, "startColumn": f.column}
            entry["locations"] = [{"physicalLocation": location}]
        related = [(r["what"], r) for r in f.related_at()] + \
            [(f"topic {s['topic']}", s) for s in f.subjects]
        if related:
            entry["relatedLocations"] = [_related(i, what, at)
                                         for i, (what, at) in enumerate(related)]
        entry["partialFingerprints"] = {"policylint/v1": fingerprint}
        if f.suppressed:
            entry["suppressions"] = [{"kind": f.suppression or "external",
                                      "justification": f.justification or ""}]
        properties = {k: v for k, v in (("topic", f.topic), ("partition", f.partition))
                      if v is not None}
        if properties:
            entry["properties"] = properties
        results.append(entry)
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "policylint", "version": __version__,
                                "semanticVersion": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
            # the files not linted, and what could not be checked, as notifications of the run
            "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": [
                {"level": "note", "message": {"text": f"skipped: {why}"}, "locations": [
                    {"physicalLocation": {"artifactLocation": {
                        "uri": _uri(name), "uriBaseId": "%SRCROOT%"}}}]}
                for name, why in result.skipped] + [
                {"level": "note", "message": {"text": f"{code} could not be checked for {n}"}}
                for code, n in result.unchecked.items() if n]}],
            "properties": {"files": result.files, "unchecked": result.unchecked},
        }],
    }
    return to_json(document)


def _related(i: int, what: str, at: dict) -> dict:
    """A SARIF relatedLocation: another value the finding compares, or one of its subjects."""
    location: dict = {"artifactLocation": {"uri": _uri(at["file"]),
                                           "uriBaseId": "%SRCROOT%"}}
    if at["line"] is not None:
        location["region"] = {"startLine": at["line"], "startColumn": at["column"]}
    return {"id": i, "physicalLocation": location, "message": {"text": what}}


def _uri(file: str) -> str:
    """A finding's file as a SARIF ``artifactLocation.uri``: relative to the repository,
    percent-encoded as RFC 3986 asks (a ``#``, ``%``, space or non-ASCII name)."""
    from urllib.parse import quote
    name = repo_relative(file)
    try:  # a name that is not UTF-8 as its bytes on disk
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = name.encode("utf-8", "backslashreplace")
    return quote(raw, safe="/-._~!$&'()*+,;=@")
