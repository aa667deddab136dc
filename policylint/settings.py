"""The settings of one run, resolved once into one frozen value (as ruff's ``LinterSettings``):
the policy in force with the command line's overrides applied here and nowhere else, the
rules it runs, what walks leave out, the clusters, base and baseline. ``policylint lint``,
the editor's server, the planner's own lint and the case tests each build one with
``resolve`` and hand it whole to ``linter.load`` and ``linter.judge``."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from . import policy as policies
from .sources import DEFAULT_MAX_FILE_SIZE, start_of
from .sources.yamldoc import MAX_NODES


class Output(Struct, frozen=True):
    """How the command line shows a result (the library's callers render their own)."""
    format: str = "text"
    fail_on: str = "error"  # or "never"
    quiet: bool = False
    show_suppressed: bool = False
    statistics: bool = False
    color: bool = False


class Settings(Struct, frozen=True):
    policy: policies.Policy  # in force, the overrides below applied
    rules: tuple  # the rules the run runs (engine.selected_rules)
    start: Path | None  # where the policy and git are found from (None: the working dir)
    policy_file: str | None = None  # --config as given (None: discovered)
    tree: Any = None  # policy.GitTree the policy was read at (diff mode), else None
    ref: str | None = None  # that tree's git ref
    clusters: tuple[str, ...] = ()  # --cluster files
    current: str | None = None
    allow_rf_change: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    max_yaml_values: int = MAX_NODES
    base: str | None = None  # diff mode: the git ref manifests are compared with
    today: dt.date | None = None
    stdin_name: str | None = None
    baseline: str | None = None  # the baseline file in force (None, "": none)
    exclude: tuple[str, ...] = ()  # the policy's patterns, then the command line's
    force_exclude: bool = False
    respect_gitignore: bool = True
    joining: tuple[tuple[int, str | None], ...] = ()  # brokers (id, rack) that join
    output: Output = field(default_factory=Output)

    def reads_as(self, other: Settings) -> bool:
        """Whether a run with ``other`` reads what a run with these reads
        (``linter.load``): the same files, clusters and placement; only what judges them
        may differ (a rule's severity, the rules selected, exemptions...)."""
        return self.tree is None and other.tree is None and \
            self.policy.clusters == other.policy.clusters and \
            all(getattr(self, key) == getattr(other, key) for key in _READ)

    @property
    def described(self) -> str:
        """Which policy judges, and where it was read (``lint -v``)."""
        said = self.policy.source + (f" at {self.ref}" if self.tree is not None else "")
        if self.tree is not None and self.tree.outside:  # out of the change's reach
            said += f"; read from disk, outside the git work tree: {', '.join(self.tree.outside)}"
        return said


#: the settings ``linter.load`` reads by (besides the policy's clusters and a base's tree)
_READ = ("clusters", "current", "max_file_size", "max_yaml_values", "base", "stdin_name",
         "exclude", "force_exclude", "respect_gitignore", "joining")


def resolve(paths: list[str], *, cluster: str | list[str] | None = None,
            current: str | None = None, policy: str | None = None,
            select: list[str] | None = None, ignore: list[str] | None = None,
            allow_rf_change: bool = False, max_file_size: int = DEFAULT_MAX_FILE_SIZE,
            base: str | None = None, today: dt.date | None = None,
            stdin_name: str | None = None, baseline: str | None = None,
            exclude: list[str] | None = None, force_exclude: bool = False,
            respect_gitignore: bool = True, kafka_version: str | None = None,
            max_yaml_values: int | None = None, policy_from: str = "base",
            joining: dict[int, str | None] | None = None,
            output: Output | None = None) -> Settings:
    """The settings of a run over ``paths``: the policy found for them (``policy``: the
    file; with ``base``, read at that ref unless ``policy_from`` is "head" or another ref)
    with ``kafka_version``, ``exclude`` and ``baseline`` (a file; "": none; None: the
    policy's) over its own, and the rules ``select`` and ``ignore`` leave. PolicyError or
    RegistryError for a policy or selector that cannot be used (exit 2)."""
    from .engine import selected_rules
    from .registry import check_selectors
    start = start_of(paths)
    ref = base if policy_from == "base" else None if policy_from == "head" else policy_from
    tree = policies.GitTree(ref, start) if ref is not None else None
    chosen = policies.load(policy, start, tree)
    if kafka_version is not None:
        chosen.kafka_version = kafka_version
    check_selectors((select or []) + (ignore or []), chosen.custom_rules)
    clusters = [cluster] if isinstance(cluster, str) else list(cluster or [])
    return Settings(
        policy=chosen, rules=tuple(selected_rules(chosen, select, ignore)), start=start,
        policy_file=policy, tree=tree, ref=ref, clusters=tuple(clusters), current=current,
        allow_rf_change=allow_rf_change, max_file_size=max_file_size,
        max_yaml_values=max_yaml_values or MAX_NODES, base=base, today=today,
        stdin_name=stdin_name, baseline=chosen.baseline if baseline is None else baseline,
        exclude=(*chosen.exclude, *(exclude or [])), force_exclude=force_exclude,
        respect_gitignore=respect_gitignore, joining=tuple((joining or {}).items()),
        output=output or Output())
