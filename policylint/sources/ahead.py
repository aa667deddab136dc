"""Schema validation of large JSON inputs in a helper process, ahead of need.

Validating a million-entry plan costs about as much as decoding it, and nothing but the
rules depends on it. So when a run has large JSON files and the machine a second core, a
forked helper decodes and validates them while this process decodes them and builds the
model; only the errors come back through a pipe. Without fork, with other threads running
(forking them is unsafe) or when the helper fails, validation happens here, as it does for
small files.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable

from ..schema import Error
from .document import Document, ParseError

LARGE = 8 * 2**20  # a smaller file is validated here: the fork would cost more than it saves


class Ahead:
    """Schema errors of the documents of large JSON files, found by a helper process.

    ``errors_of`` maps a document's data to its schema errors (None: not a document
    policylint validates); the helper reads the large files of ``paths`` but the first, in
    order, and applies it to each document. Ask for errors in the same order. Use as a
    context manager: leaving it ends the helper.
    """

    def __init__(self, paths: list[Path], max_size: int,
                 errors_of: Callable[[Any], list[Error] | None]):
        self._found: dict[str, list[list[Error] | None]] = {}
        self._pid: int | None = None
        self._names: set[str] = set()  # the files the helper validates
        # This process validates the first large file itself while the helper reads,
        # decodes and validates the next ones: both cores are busy from the start.
        large = [p for p in paths if _size(p) >= LARGE][1:]
        if not large or not hasattr(os, "fork") or _cores() < 2 or threading.active_count() > 1:
            return
        import pickle  # here, not at the top: a run without a helper does not pay for it
        self._load = pickle.load
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the helper: it never returns
            os.close(read)
            _serve(large, max_size, errors_of, write)
        os.close(write)
        self._pid, self._pipe = pid, os.fdopen(read, "rb")
        from . import display_name
        self._names = {display_name(p) for p in large}

    def errors(self, doc: Document) -> list[Error] | None:
        """The document's schema errors as the helper found them; None if it did not."""
        name = doc.source.name
        while self._pid is not None and name in self._names and name not in self._found:
            try:
                got, per_document = self._load(self._pipe)
            except Exception:  # the helper died, or has no more files
                self.close()
                break
            self._found[got] = per_document
        found = self._found.get(name)
        return found[doc.index] if found is not None and doc.index < len(found) else None

    def close(self) -> None:
        if self._pid is not None:
            import signal
            self._pipe.close()
            os.kill(self._pid, signal.SIGKILL)  # it may still be busy with a file not asked for
            os.waitpid(self._pid, 0)
            self._pid = None

    def __enter__(self) -> Ahead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cores() -> int:
    """Cores this process may run on (a container may allow fewer than the machine has)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        os.cpu_count() or 1


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _serve(paths: list[Path], max_size: int, errors_of: Callable[[Any], list | None],
           fd: int) -> None:
    import pickle

    from . import display_name, parse, read
    try:
        with os.fdopen(fd, "wb") as out:
            for path in paths:
                try:
                    source = read(path, max_size)
                    found = [errors_of(doc.data) for doc in parse(source)] \
                        if source.format == "json" else []
                except ParseError:
                    found = []  # the parent meets the same problem and reports it
                pickle.dump((display_name(path), found), out)
                out.flush()
    finally:
        os._exit(0)
