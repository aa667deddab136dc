"""Output formats. Each is a module with ``render(result, **options) -> str``, registered in
the ``policylint.reporters`` entry point group (the built-in ones too)."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def render(fmt: str, result, **options) -> str:
    """The result in ``fmt``, as text any output can take: a lone surrogate from an input
    (JSON's ``"\\ud800"``) is written as its escape."""
    from ..registry import reporter
    text = reporter(fmt).render(result, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def to_json(document: object) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False)`` + newline, written by msgspec
    (the same bytes for the reporters' documents, which hold no floats; 52,000 findings in
    a fraction of the time)."""
    import msgspec
    try:
        encoded = msgspec.json.format(msgspec.json.encode(document), indent=2)
    except UnicodeEncodeError:  # a lone surrogate, which render() escapes: the slow way
        import json
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return encoded.decode("utf-8") + "\n"


@lru_cache(maxsize=4096)
def _repo_root(folder: str) -> Path | None:
    """The git work tree that holds ``folder`` (found without running git), or None."""
    here = Path(folder)
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return None


def repo_relative(file: str) -> str:
    """A finding's file relative to the root of the repository that holds it (wherever
    policylint runs from), as code scanning and workflow annotations expect, with ``/``
    separators; a file in no repository, relative to the working directory."""
    path = os.path.abspath(file)
    root = _repo_root(os.path.dirname(path)) or os.getcwd()
    return os.path.relpath(path, root).replace(os.sep, "/")


def write(path: str, text: str) -> None:
    """Writes a report so that readers see the old content or the new, never half a file
    (``policylint.writes``)."""
    from ..writes import write_all
    write_all([(path, text)])
