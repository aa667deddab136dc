"""``lint()``: the library entry point behind ``policylint lint``."""

from __future__ import annotations

import datetime as dt

from . import policy as policies
from .engine import Context, Result, run, selected_rules
from .registry import check_selectors
from .sources import DEFAULT_MAX_FILE_SIZE
from .sources.loader import read_inputs


def lint(paths: list[str], *, cluster: str | None = None, current: str | None = None,
         policy: str | None = None, select: list[str] | None = None,
         ignore: list[str] | None = None, allow_rf_change: bool = False,
         max_file_size: int = DEFAULT_MAX_FILE_SIZE, base: str | None = None,
         today: dt.date | None = None) -> Result:
    """Lint files and directories; with ``base`` (a git ref) also compare their topic
    manifests with the same topics at that ref. Raises InputError, PolicyError or
    RegistryError for problems with the call itself (exit 2)."""
    chosen = policies.load(policy)
    check_selectors((select or []) + (ignore or []))
    rules = selected_rules(chosen, select, ignore)
    inputs = read_inputs(paths, cluster, current, max_file_size)
    ctx = Context(policy=chosen, profile=inputs.profile, snapshot=inputs.snapshot,
                  current=inputs.current, manifests=inputs.manifests, plans=inputs.plans,
                  allow_rf_change=allow_rf_change)
    if base is not None:
        from .sources import base_manifests
        from .sources.git import files_at
        ctx.base = base_manifests(files_at(base, paths), max_file_size)
        ctx.base_ref = base
    return run(ctx, inputs.targets(), rules, inputs.findings, len(inputs.files), today)
