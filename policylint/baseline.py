"""Baselines: a repository's findings recorded once (``--write-baseline FILE``), so that a
later run (``--baseline FILE``, or ``baseline:`` in the policy) reports only new ones.

A finding is known by its fingerprint, the one SARIF carries: its rule, file, topic,
partition and the keys of the path it points at, never a line or column, so that edits
elsewhere in a file do not make it new. Findings with one identity are numbered in order.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable, Iterable

from .model import Finding

FORMAT = "policylint-baseline"


class BaselineError(Exception):
    """A baseline file that cannot be read (exit 2)."""


def identity(finding: Finding, uri: str | None) -> str:
    """What stays of a finding across commits: no line, column or list position."""
    keys = [k for k in (finding.at[1] if finding.at else ()) if isinstance(k, str)]
    data = [finding.rule, uri, finding.topic, finding.partition, keys]
    import hashlib  # here: the error class above is imported by every run, a baseline rarely
    return hashlib.sha256(json.dumps(data).encode()).hexdigest()[:32]


def fingerprints(findings: Iterable[Finding], relative: Callable[[str], str]) -> list[str]:
    """Each finding's fingerprint, ``identity:n`` (the n-th with that identity); ``relative``
    names a file as the repository does (the same file from any working directory)."""
    seen: Counter = Counter()
    found = []
    for f in findings:
        key = identity(f, relative(f.file) if f.file else None)
        seen[key] += 1
        found.append(f"{key}:{seen[key]}")
    return found


def document(findings: list[Finding], relative: Callable[[str], str]) -> str:
    """A baseline of ``findings``: their fingerprints, each with what a reviewer needs to
    recognise it."""
    entries = [{"fingerprint": fp, "rule": f.rule, "file": f.file, "topic": f.topic,
                "message": f.message}
               for f, fp in zip(findings, fingerprints(findings, relative)) if not f.suppressed]
    return json.dumps({"format": FORMAT, "version": 1, "findings": entries}, indent=2,
                      ensure_ascii=False) + "\n"


#: each baseline file read from the working tree: (its size, mtime and inode when read,
#: its fingerprints): the editor's server judges each edit against the same file
_READ: dict[str, tuple[tuple, frozenset[str]]] = {}


def load(path: str, tree: Any = None) -> frozenset[str]:
    """The fingerprints of a baseline file, in the working tree or at a base ref (``tree``,
    a ``policy.GitTree``: none there is an empty baseline); BaselineError naming the file
    when it is none. A file of the working tree is read again only once it changed."""
    import os
    from pathlib import Path
    from .sources.document import ParseError
    from .sources.jsondoc import refuse_lone_surrogates
    from .writes import read_regular  # a FIFO or device is refused, never waited on
    try:
        stat = os.stat(path) if tree is None else None
    except OSError:
        stat = None
    key = (stat.st_size, stat.st_mtime_ns, stat.st_ino) if stat is not None else None
    if key is not None and _READ.get(path, ((),))[0] == key:
        return _READ[path][1]
    try:
        if tree is not None:
            data = tree.read_bytes(Path(path))
            if data is None:
                return frozenset()
        else:
            data = read_regular(path)
        text = data.decode("utf-8")
        refuse_lone_surrogates(text)
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError, ParseError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc).splitlines()[0] if str(exc) \
            else type(exc).__name__
        raise BaselineError(f"baseline {path}: cannot be read ({reason})") from None
    entries = data.get("findings") if isinstance(data, dict) and \
        data.get("format") == FORMAT else None
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries):
        raise BaselineError(f"baseline {path}: not a policylint baseline (write one with "
                            "--write-baseline FILE)")
    found = frozenset(e["fingerprint"] for e in entries)
    if key is not None:
        _READ[path] = key, found
    return found


def apply(findings: list[Finding], known: set[str], relative: Callable[[str], str]
          ) -> tuple[list[Finding], int, int]:
    """(the findings not in the baseline, how many were, how many of the baseline's are
    gone: fixed since it was written)."""
    kept, matched = [], set()
    for finding, fp in zip(findings, fingerprints(findings, relative)):
        if fp in known and not finding.suppressed:
            matched.add(fp)
        else:
            kept.append(finding)
    return kept, len(matched), len(known - matched)
