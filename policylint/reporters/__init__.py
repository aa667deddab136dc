"""Output formats. Each module has ``render(result, **options) -> str``."""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import import_module
from pathlib import Path

FORMATS = ("text", "json", "sarif", "github", "markdown")


def render(fmt: str, result, **options) -> str:
    return import_module(f"{__name__}.{fmt}").render(result, **options)


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
