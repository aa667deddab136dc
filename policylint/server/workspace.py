"""The editor's workspace as ``policylint lint`` would see it, kept between edits.

At start the workspace folders are walked once: every file is parsed and kept (keyed by
size, mtime and inode, so a file is parsed again only when it changes) and the files that
describe clusters (Strimzi ``Kafka`` and node pools, snapshots, cluster profiles...) are
remembered. An open file is then linted from the editor's unsaved text, with those cluster
files beside it, read as the CLI reads a directory (clusters scoped by directory) but not
judged themselves: the same findings as ``policylint lint`` on the folder, for that file.
"""

from __future__ import annotations

import difflib
import os
from typing import NamedTuple

from ..linter import lint
from ..sources import display_name, read_before, unsaved


class Linted(NamedTuple):
    name: str  # the file as findings name it
    text: str
    result: object  # engine.Result (None: none of policylint's kinds)


class Workspace:
    def __init__(self, roots: list[str]):
        self.roots = [os.path.abspath(r) for r in roots if os.path.isdir(r)]
        self.parsed: dict = {}  # sources.read_before: every file read, while unchanged
        self.clusters: list[str] = []

    def scan(self) -> None:
        """Finds (again) the files that describe clusters; files read before and unchanged
        are not parsed again."""
        from ..sources.loader import read_inputs
        token = read_before.set(self.parsed)
        found: set[str] = set()
        try:
            for root in self.roots:
                try:
                    inputs = read_inputs([root])
                except Exception:  # a workspace policylint cannot walk: no clusters from it
                    continue
                docs = [doc for _, doc, _ in inputs.kafkas] + \
                    [s.doc for s in inputs.snapshots] + \
                    [doc for role in ("nodepool", "configmap") for doc in inputs.related[role]]
                found |= {os.path.abspath(doc.source.path) for doc in docs
                          if doc.source.path is not None}
        finally:
            read_before.reset(token)
        self.clusters = sorted(found)

    def forget(self, path: str) -> None:
        """A file changed or went away on disk: read it again when next asked."""
        self.parsed.pop(os.path.abspath(path), None)

    def lint(self, path: str, text: str) -> Linted:
        """The findings of the file at ``path`` with ``text`` (the editor's) in it."""
        path = os.path.abspath(path)
        name = display_name(path)
        paths = [path] + [c for c in self.clusters if c != path and os.path.exists(c)]
        held, cached = unsaved.set({path: text}), read_before.set(self.parsed)
        try:
            result = lint(paths, judged={name}, baseline="")
        finally:
            unsaved.reset(held)
            read_before.reset(cached)
        result.findings = [f for f in result.findings if f.rule != "PL102"]
        known = name in result.read or any(f.rule == "PL100" for f in result.findings)
        return Linted(name, text, result if known else None)


class Edit(NamedTuple):
    """Replace lines ``start`` to ``end`` (0-based, end excluded) by ``text``."""
    start: int
    end: int
    text: str


def edit(before: str, after: str) -> Edit:
    """The one edit, whole lines, that turns ``before`` into ``after``."""
    old, new = before.splitlines(True), after.splitlines(True)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    blocks = [b for b in matcher.get_opcodes() if b[0] != "equal"]
    if not blocks:
        return Edit(0, 0, "")
    first, last = blocks[0], blocks[-1]
    return Edit(first[1], last[2], "".join(new[first[3]:last[4]]))
