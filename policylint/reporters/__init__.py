"""Output formats. Each is a module with ``render(result, **options) -> str``, registered in
the ``policylint.reporters`` entry point group (the built-in ones too)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def render(fmt: str, result, **options) -> str:
    from ..registry import reporter
    return reporter(fmt).render(result, **options)


@lru_cache(maxsize=None)
def _repo_root(cwd: str) -> Path:
    """The enclosing git work tree (found without running git), else the working directory."""
    here = Path(cwd)
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return here


def repo_relative(file: str) -> str:
    """A finding's file relative to the repository root, as code scanning and workflow
    annotations expect, with ``/`` separators."""
    root = _repo_root(os.getcwd())
    return os.path.relpath(os.path.abspath(file), root).replace(os.sep, "/")


def write(path: str, text: str) -> None:
    """Writes a report so that readers see the old content or the new, never half a file."""
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=".policylint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        umask = os.umask(0)  # read it: a report is created as any file the user writes
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
