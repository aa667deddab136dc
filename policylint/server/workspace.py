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
    def __init__(self, roots: list[str], options: dict | None = None):
        self.roots = [os.path.abspath(r) for r in roots if os.path.isdir(r)]
        #: the editor's settings, as ``lint``'s keywords (policy, select, ignore,
        #: kafka_version, baseline): what ``policylint lint`` with those options gives
        self.options = dict(options or {})
        self.parsed: dict = {}  # sources.read_before: every file read, while unchanged
        self.clusters: list[str] = []
        self.of_root: dict[str, list[str]] = {}  # each folder's own cluster files

    def scan(self) -> None:
        """Finds (again) the files that describe clusters; files read before and unchanged
        are not parsed again."""
        from ..sources.loader import read_inputs
        token = read_before.set(self.parsed)
        self.of_root = {}
        try:
            for root in self.roots:
                try:
                    inputs = read_inputs([root])
                except Exception:  # a workspace policylint cannot walk: no clusters from it
                    self.of_root[root] = []
                    continue
                docs = [doc for _, doc, _ in inputs.kafkas] + \
                    [s.doc for s in inputs.snapshots] + \
                    [doc for role in ("nodepool", "configmap") for doc in inputs.related[role]]
                self.of_root[root] = sorted({os.path.abspath(doc.source.path) for doc in docs
                                             if doc.source.path is not None})
        finally:
            read_before.reset(token)
        self.clusters = sorted({c for found in self.of_root.values() for c in found})

    def root_of(self, path: str) -> str | None:
        """The innermost workspace folder that holds ``path`` (each folder is linted as
        ``policylint lint FOLDER`` would lint it: its own clusters)."""
        inside = [r for r in self.roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
        return max(inside, key=len, default=None)

    def forget(self, path: str) -> None:
        """A file changed or went away on disk: read it again when next asked."""
        self.parsed.pop(os.path.abspath(path), None)

    def lint(self, path: str, texts: dict[str, str]) -> tuple[Linted, dict[str, Linted]]:
        """The findings of the file at ``path``, its workspace folder linted whole as
        ``policylint lint FOLDER`` lints it, with the editor's unsaved ``texts`` (path ->
        text) in place of the files on disk; and those of the folder's other files that
        have findings (a cluster's finding that names this file's topic lives there)."""
        path = os.path.abspath(path)
        name = display_name(path)
        root = self.root_of(path)
        if root is not None:  # a file only the editor has is named beside its folder
            paths = [root] + ([] if os.path.exists(path) else [path])
        else:
            paths = [path] + [c for c in self.clusters if c != path and os.path.exists(c)]
        texts = {os.path.abspath(p): t for p, t in texts.items()}
        result = self._run(paths, texts)
        known = name in result.read or any(f.rule == "PL100" and f.file == name
                                           for f in result.findings)
        others = _by_file(result, texts, {f.file for f in result.findings
                                          if f.file and f.file != name})
        return Linted(name, texts.get(path, ""), result if known else None), others

    def lint_all(self, texts: dict[str, str]) -> dict[str, Linted]:
        """Every file policylint reads in the workspace, each folder linted whole as
        ``policylint lint FOLDER`` lints it (workspace diagnostics): path -> its findings."""
        texts = {os.path.abspath(p): t for p, t in texts.items()}
        found: dict[str, Linted] = {}
        for root in self.roots:
            result = self._run([root], texts)
            found.update(_by_file(result, texts, set(result.read) |
                                  {f.file for f in result.findings if f.file}))
        return found

    def _run(self, paths: list[str], texts: dict[str, str]):
        """``lint(paths)`` with the editor's settings, its unsaved texts in place of the
        files on disk, and the files read before and unchanged not parsed again."""
        held, cached = unsaved.set(texts), read_before.set(self.parsed)
        try:
            result = lint(paths, **self.options)
        finally:
            unsaved.reset(held)
            read_before.reset(cached)
        result.findings = [f for f in result.findings if f.rule != "PL102"]
        return result


def _by_file(result, texts: dict[str, str], names: set[str]) -> dict[str, Linted]:
    """The run's findings for each of the files ``names`` (as findings name them), by
    absolute path; the editor's text of each, else the file's."""
    found = {}
    for name in sorted(names):
        full = os.path.abspath(name)
        try:
            text = texts.get(full) or open(full, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        found[full] = Linted(name, text, result)
    return found


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
