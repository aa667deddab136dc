"""Output formats. Each is a module with ``render(result, **options) -> str``, registered in
the ``policylint.reporters`` entry point group (the built-in ones too)."""

from __future__ import annotations

import contextlib
import errno
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
    write_all([(path, text)])


def check_targets(paths: list[str]) -> None:
    """OSError (naming the path) for a report that could not replace its target: checked
    before a run writes anything (a --fix, a first report), so that every write or none
    happens."""
    for path in paths:
        def refuse(code: int) -> None:
            raise OSError(code, os.strerror(code), path)
        if "\0" in path:
            refuse(errno.EINVAL)
        if os.path.isdir(path):
            refuse(errno.EISDIR)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            refuse(errno.ENOENT if not os.path.exists(folder) else errno.ENOTDIR)
        if len(os.fsencode(os.path.basename(path))) > os.pathconf(folder, "PC_NAME_MAX"):
            refuse(errno.ENAMETOOLONG)
        if not os.access(folder, os.W_OK | os.X_OK):
            refuse(errno.EACCES)


def write_all(reports: list[tuple[str, str]]) -> None:
    """Writes every report or none: each goes to a temporary file beside its target first,
    and only when all of them are written do they replace their targets. OSError names the
    report that could not be written."""
    if not reports:  # a plain run: not even tempfile imported
        return
    import tempfile
    umask = os.umask(0)  # read it: a report is created as any file the user writes
    os.umask(umask)
    check_targets([path for path, _ in reports])  # before anything is written
    written: list[tuple[str, str]] = []
    try:
        for path, text in reports:
            try:
                fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                           prefix=".policylint-", suffix=".tmp")
            except OSError as exc:
                exc.filename = path
                raise
            written.append((tmp, path))
            # a lone surrogate (a name that was not UTF-8) is written as its escape
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
                out.write(text)
            os.chmod(tmp, 0o666 & ~umask)
        while written:
            tmp, path = written[0]
            try:
                os.replace(tmp, path)
            except OSError as exc:
                exc.filename = path
                raise
            written.pop(0)
    finally:  # whatever went wrong, no temporary file stays behind
        for tmp, _ in written:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
