"""What a directory walk leaves out: what git ignores in a work tree (every ``.gitignore``
from the work tree's top down to the file, then ``.git/info/exclude``; unless
``--no-respect-gitignore``), and the run's
``--exclude`` / policy ``exclude:`` patterns, matched as ``.gitignore`` lines against the
path shown (relative to the working directory).

Patterns are matched by ``pathspec``, as black and yamllint match them, imported only
when there is a pattern to match (a pre-commit run names its files: no walk, no import).
"""

from __future__ import annotations

import os
from typing import Any


def _spec(lines: list[str]) -> Any:
    import pathspec
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _read(path: str) -> Any:
    """The patterns of one ignore file (None: there is none, or none that reads)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    return _spec(lines) if any(line.strip() and not line.startswith("#") for line in lines) \
        else None


class Excluder:
    """Answers for one run (what it read of the ignore files is kept for the run)."""

    def __init__(self, patterns: list[str] = (), git: bool = True):
        self.patterns = _spec(list(patterns)) if patterns else None
        self.git = git  # whether what git ignores is left out
        self._files: dict[str, Any] = {}  # ignore file -> its patterns
        self._tops: dict[str, str | None] = {}  # folder -> top of its work tree
        self._chains: dict[str, list] = {}  # folder -> its ignore files (``_chain``)

    def excluded(self, path: str, shown: str, is_dir: bool = False) -> bool:
        """Whether ``path`` (shown as ``shown``) is left out: an ``--exclude`` pattern
        matches it, or git ignores it."""
        return self.left_out(os.path.abspath(path), shown, is_dir)

    def left_out(self, path: str, shown: str, is_dir: bool = False) -> bool:
        """``excluded``, for a ``path`` already absolute and normal (a walk's)."""
        suffix = "/" if is_dir else ""
        if self.patterns is not None and self.patterns.match_file(shown + suffix):
            return True
        return self.git and self._ignored_by_git(path, suffix)

    def _ignored_by_git(self, path: str, suffix: str) -> bool:
        for cut, spec, last_word in self._chain(os.path.dirname(path)):
            found = spec.check_file(path[cut:] + suffix).include
            if found is not None or last_word:
                return bool(found)
        return False

    def _chain(self, folder: str) -> list[tuple[int, Any, bool]]:
        """The ignore files that may speak of a file in ``folder`` (absolute), as git reads
        them: each ``.gitignore`` from the folder up to the work tree's top (the deepest
        that says something about the file decides), then ``.git/info/exclude`` (which
        decides); each as (where the file's path relative to it starts, its patterns,
        whether it decides). Made once per folder: ten thousand files of one folder would
        otherwise walk up and relate their path again each."""
        if folder in self._chains:
            return self._chains[folder]
        chain, top = [], self._top(folder)
        if top is not None:
            folders = [folder]
            while folders[-1] != top:
                folders.append(os.path.dirname(folders[-1]))
            files = [(os.path.join(f, ".gitignore"), f, False) for f in folders] + \
                [(os.path.join(top, ".git", "info", "exclude"), top, True)]
            chain = [(len(os.path.join(base, "")), spec, decides) for path, base, decides
                     in files if (spec := self._patterns(path)) is not None]
        self._chains[folder] = chain
        return chain

    def _patterns(self, path: str) -> Any:
        if path not in self._files:
            self._files[path] = _read(path)
        return self._files[path]

    def _top(self, folder: str) -> str | None:
        """The top of the git work tree that holds ``folder`` (absolute), if any."""
        if folder not in self._tops:
            parent = os.path.dirname(folder)
            self._tops[folder] = folder if os.path.exists(os.path.join(folder, ".git")) \
                else None if parent == folder else self._top(parent)
        return self._tops[folder]
