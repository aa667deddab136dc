"""Every file policylint writes: a user's file it fixes (``replace``) and its own reports
and baselines (``check_targets``, ``write_all``). What is written is what the user asked
for, where they asked:

- a user's file is written by the path it was read by (a symbolic link: its target, the
  link kept), with its mode, owner and byte order mark; a read-only file, a hard-linked one
  (a new file would part its names) or one of another owner that cannot be kept so is left
  as it is, said why;
- a report or baseline never replaces a file that is not policylint's own output (unless
  ``--force``), an input of the run, or another target of the run; a device is written
  through, a FIFO refused (nothing may read it), a symbolic link followed;
- each file is old or whole at any moment: written to a temporary file beside it and
  renamed over it, with Ctrl-C held off from the temporary file's creation to its rename,
  so that an interrupt leaves no temporary file and happens between files, never within;
- the check that a user's file is as it was read happens just before the rename.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import threading
from typing import Iterator

#: the files written in this run, in order: an interrupt says which
written: list[str] = []
_BOM = b"\xef\xbb\xbf"
# no wait on a FIFO swapped in for a file; no following a link where the name is the file
_READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def held_interrupt() -> Iterator[None]:
    """Ctrl-C is held off while the block runs and delivered when it ends (the main thread
    only: others get no signals)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def read_regular(path: str) -> bytes:
    """A regular file's bytes, never waiting on a FIFO or device (OSError: it is none)."""
    fd = os.open(path, _READ)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        chunks = []
        while chunk := os.read(fd, 2**20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def replace(path: str, text: str, read: str, bom: bool = False) -> str | None:
    """Writes ``text`` over the user's file at ``path`` (as they named it) if it still holds
    ``read``, the text it was read as; why not, in a few words, when it is not written."""
    real = os.path.realpath(path)  # a symbolic link: its target is fixed, the link stays
    try:
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            return "no longer a regular file: not fixed"
        if info.st_nlink > 1:
            return (f"has {info.st_nlink} hard links: not fixed (a new file would part "
                    "them; fix it by hand)")
        if not info.st_mode & 0o222 or not os.access(real, os.W_OK):
            return "read-only: not fixed"
        import tempfile  # only when a file is written: not on every run's import path
        data = (_BOM if bom else b"") + text.encode("utf-8", "surrogateescape")
        expected = (_BOM if bom else b"") + read.encode("utf-8", "surrogateescape")
        with held_interrupt():
            fd, temporary = tempfile.mkstemp(prefix=".policylint-", suffix=".tmp",
                                             dir=os.path.dirname(real))
            try:
                _fill(fd, data)
                os.chmod(temporary, info.st_mode & 0o7777)
                if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                    try:
                        os.chown(temporary, info.st_uid, info.st_gid)
                    except PermissionError:
                        if info.st_uid != os.geteuid():
                            return "owned by another user: not fixed"
                # the last check, as late as it can be: an edit made since the file was
                # read is not lost (a narrower window than this needs a lock editors ignore)
                if read_regular(real) != expected:
                    return "changed on disk since it was read: not overwritten"
                os.replace(temporary, real)
                temporary = None
                written.append(path)
            finally:
                if temporary is not None:
                    os.unlink(temporary)
    except (OSError, UnicodeError) as exc:
        return f"cannot be written: {getattr(exc, 'strerror', None) or exc}"
    return None


def _fill(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())


# -- policylint's own files -----------------------------------------------------------------

#: what a file of each format of policylint's own holds, near its start or its end
_OWN = (b"policylint", b"<checkstyle", b'"check_name"', b"No problems found",
        b"Found 1 problem", b" problems (", b"::error ", b"::warning ", b"::notice ")


def _own(path: str) -> bool:
    """Whether an existing file is one policylint wrote (or empty): its head or tail holds
    what every format of policylint's says (its name, Checkstyle's root, the summary)."""
    try:
        fd = os.open(path, _READ)
    except OSError:
        return False
    try:
        size = os.fstat(fd).st_size
        head = os.read(fd, 65536)
        tail = os.pread(fd, 4096, max(size - 4096, 0)) if size > 65536 else b""
    finally:
        os.close(fd)
    text = head + tail
    return not text.strip() or text.strip() == b"[]" or any(m in text for m in _OWN)


def check_targets(targets: list[str], inputs: list[str] = (), force: bool = False) -> None:
    """OSError naming the target's path for a report or baseline that must not be written:
    checked before a run writes anything (a --fix, a first report), so that every write
    happens or none. ``inputs``: the files the run reads."""
    def refuse(path: str, code: int, why: str | None = None) -> None:
        raise OSError(code, why or os.strerror(code), path)
    read = {_identity(p) for p in inputs} - {None}
    seen: dict[tuple, str] = {}
    for path in targets:
        if "\0" in path:
            refuse(path, errno.EINVAL)
        try:
            info = os.stat(path)
        except OSError:
            info = None
        if info is not None and not stat.S_ISREG(info.st_mode):
            if stat.S_ISDIR(info.st_mode):
                refuse(path, errno.EISDIR)
            if stat.S_ISSOCK(info.st_mode):
                refuse(path, errno.EINVAL, "a socket: not written")
            os.close(_open_special(path))  # a FIFO nothing reads is refused, not waited on
            continue  # a device or a pipe (/dev/stdout): written through
        real = os.path.realpath(path)
        if info is not None:
            key = (info.st_dev, info.st_ino)
            if key in read:
                refuse(path, errno.EEXIST, "an input of this run: not overwritten")
            if key in seen:
                refuse(path, errno.EEXIST, f"the same file as {seen[key]}: give each report "
                                            "a file of its own")
            seen[key] = path
            if not force and not _own(real):
                refuse(path, errno.EEXIST, "exists and is not policylint's output: not "
                                            "overwritten (give --force to replace it)")
        elif (real,) in seen:
            refuse(path, errno.EEXIST, f"the same file as {seen[(real,)]}: give each report "
                                        "a file of its own")
        folder = os.path.dirname(real)
        if not os.path.isdir(folder):
            refuse(path, errno.ENOENT if not os.path.exists(folder) else errno.ENOTDIR)
        if len(os.fsencode(os.path.basename(real))) > os.pathconf(folder, "PC_NAME_MAX"):
            refuse(path, errno.ENAMETOOLONG)
        if not os.access(folder, os.W_OK | os.X_OK):
            refuse(path, errno.EACCES)
        if info is None:
            seen[(real,)] = path


def _as_before(tmp: str, real: str, mode: int) -> None:
    """A report's new file with the mode and owner of the file it replaces (a new one: the
    user's own, created as any file they write)."""
    try:
        info = os.stat(real)
    except FileNotFoundError:
        os.chmod(tmp, mode)
        return
    os.chmod(tmp, info.st_mode & 0o7777)
    if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(PermissionError):  # not ours to give away: the runner's
            os.chown(tmp, info.st_uid, info.st_gid)


def _open_special(path: str) -> int:
    """A device or pipe opened to write, never waiting for a reader (OSError naming it: a
    FIFO that nothing reads)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(exc.errno, "a FIFO that nothing reads: not written", path) from None
        exc.filename = path
        raise
    os.set_blocking(fd, True)
    return fd


def _identity(path: str) -> tuple | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def write_all(reports: list[tuple[str, str]], inputs: list[str] = (),
              force: bool = False) -> None:
    """Writes every report or none: each goes to a temporary file beside its target first,
    and only when all of them are written do they replace their targets (a device is
    written through, last). OSError names the report that could not be written."""
    if not reports:  # a plain run: not even tempfile imported
        return
    import tempfile
    umask = os.umask(0)  # read it: a report is created as any file the user writes
    os.umask(umask)
    check_targets([path for path, _ in reports], inputs, force)
    staged: list[tuple[str, str]] = []
    devices: list[tuple[str, str]] = []
    with held_interrupt():
        try:
            for path, text in reports:
                if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
                    devices.append((path, text))
                    continue
                real = os.path.realpath(path)
                try:
                    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(real),
                                               prefix=".policylint-", suffix=".tmp")
                except OSError as exc:
                    exc.filename = path
                    raise
                staged.append((tmp, real))
                # a lone surrogate (a name that was not UTF-8) is written as its escape
                _fill(fd, text.encode("utf-8", "backslashreplace"))
                _as_before(tmp, real, 0o666 & ~umask)
            while staged:
                tmp, real = staged[0]
                try:
                    os.replace(tmp, real)
                except OSError as exc:
                    exc.filename = real
                    raise
                staged.pop(0)
                written.append(real)
            for path, text in devices:
                with os.fdopen(_open_special(path), "wb") as out:
                    out.write(text.encode("utf-8", "backslashreplace"))
        finally:  # whatever went wrong, no temporary file stays behind
            for tmp, _ in staged:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
