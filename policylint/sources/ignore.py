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

    def excluded(self, path: str, shown: str, is_dir: bool = False) -> bool:
        """Whether ``path`` (shown as ``shown``) is left out: an ``--exclude`` pattern
        matches it, or git ignores it."""
        suffix = "/" if is_dir else ""
        if self.patterns is not None and self.patterns.match_file(shown + suffix):
            return True
        return self.git and self._ignored_by_git(os.path.abspath(path), suffix)

    def _ignored_by_git(self, path: str, suffix: str) -> bool:
        top = self._top(os.path.dirname(path))
        if top is None:
            return False
        folder = os.path.dirname(path)
        while True:  # the deepest .gitignore that says something about the path decides
            spec = self._patterns(os.path.join(folder, ".gitignore"))
            if spec is not None:
                found = spec.check_file(os.path.relpath(path, folder) + suffix).include
                if found is not None:
                    return found
            if folder == top:
                break
            folder = os.path.dirname(folder)
        spec = self._patterns(os.path.join(top, ".git", "info", "exclude"))
        return bool(spec is not None and spec.match_file(os.path.relpath(path, top) + suffix))

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
