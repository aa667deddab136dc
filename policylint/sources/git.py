"""Files as they are at a git ref, read with git itself: no checkout, no network."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from . import EXTENSIONS, InputError, start_of


def _git(args: list[str], cwd: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    if not os.path.isdir(cwd):  # a folder that does not exist: no git is asked
        raise InputError(f"{cwd}: no such directory (--base reads the git repository that "
                         "holds the paths linted)")
    try:
        return subprocess.run(["git", "--literal-pathspecs", *args], cwd=cwd, input=stdin,
                              capture_output=True, check=False)
    except FileNotFoundError:
        raise InputError("--base needs git, and git is not installed") from None


def repo_root(cwd: str = ".") -> Path:
    done = _git(["rev-parse", "--show-toplevel"], cwd)
    if done.returncode != 0:
        raise InputError(f"--base needs a git repository, and {os.path.abspath(cwd)} is not "
                         "inside one")
    return Path(done.stdout.decode().strip())


def resolve(ref: str, root: Path) -> str:
    """The commit a ref names, or an InputError that says how to make it available."""
    done = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
                str(root))
    if done.returncode == 0:
        return done.stdout.decode().strip()
    shallow = _git(["rev-parse", "--is-shallow-repository"], str(root)).stdout.strip() == b"true"
    remote, _, branch = ref.partition("/")
    fetch = f"git fetch origin {branch}" if remote == "origin" and branch else \
        f"git fetch origin {ref}"
    if shallow:
        raise InputError(f"base ref {ref} not found in this shallow clone; fetch it with "
                         f"{fetch}, or check out with fetch-depth: 0 in GitHub Actions")
    raise InputError(f"base ref {ref} not found; fetch it with {fetch}, or check out with "
                     "fetch-depth: 0 in GitHub Actions")


def show(root: Path, commit: str, relative: str) -> bytes | None:
    """One file's bytes at a commit, None when the commit has no such file."""
    done = _git(["cat-file", "blob", f"{commit}:{relative}"], str(root))
    return done.stdout if done.returncode == 0 else None


def files_at(ref: str, paths: list[str]) -> list[tuple[str, bytes]]:
    """``(display name, bytes)`` of the YAML and JSON files under ``paths`` at ``ref``, chosen
    as a directory walk of the working tree would choose them (hidden entries are skipped
    below a directory, a file named directly is always taken)."""
    # the repository of the paths linted, wherever policylint is run from
    start = start_of(paths)
    root = repo_root(str(start) if start is not None else ".")
    commit = resolve(ref, root)
    specs = []
    for raw in paths:
        try:
            specs.append(Path(os.path.realpath(raw)).relative_to(root).as_posix())
        except ValueError:
            raise InputError(f"{raw} is outside the git repository at {root}; --base compares "
                             "files of one repository") from None
    specs = [s if s != "." else "" for s in specs]
    listed = _git(["ls-tree", "-r", "-z", "--full-tree", commit, "--",
                   *(s or "." for s in specs)], str(root))
    if listed.returncode != 0:
        raise InputError(f"git ls-tree {ref} failed: {listed.stderr.decode().strip()}")
    blobs: list[tuple[str, str]] = []
    for entry in listed.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.decode("utf-8", "surrogateescape").partition("\t")
        if meta.split()[1] == "blob" and _chosen(name, specs):
            blobs.append((meta.split()[2], name))
    return [(_display(root / name), data) for (_, name), data in zip(blobs, _read(blobs, root))]


def _chosen(name: str, specs: list[str]) -> bool:
    if name in specs:
        return True
    if not name.endswith(EXTENSIONS):
        return False
    for spec in specs:
        if not spec or name.startswith(spec + "/"):
            below = name[len(spec) + 1 if spec else 0:].split("/")
            if not any(part.startswith(".") for part in below):
                return True
    return False


def _read(blobs: list[tuple[str, str]], root: Path) -> list[bytes]:
    """The blobs' contents in one ``git cat-file --batch`` call."""
    if not blobs:
        return []
    out = _git(["cat-file", "--batch"], str(root),
               stdin="".join(f"{sha}\n" for sha, _ in blobs).encode()).stdout
    contents, pos = [], 0
    for _ in blobs:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        contents.append(out[header_end + 1:header_end + 1 + size])
        pos = header_end + 1 + size + 1
    return contents


def _display(path: Path) -> str:
    return os.path.relpath(path).replace(os.sep, "/")
