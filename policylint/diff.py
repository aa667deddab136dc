"""Diff mode: what changed between the manifests at the base ref and the working tree, and
what a change set says it changes (a Terraform plan's ``before`` and ``after``).

Topics are matched by Kafka topic name, not by file: a topic moved to another file is the
same topic, and a file may hold several topics. A change set pairs its own sides.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from .model import TopicSpec

ALLOW_RF_CHANGE = "policylint.io/allow-rf-change"


def matched(ctx) -> Iterator[tuple[TopicSpec, TopicSpec]]:
    """(base, head) manifests of every topic present at the base ref and now, and (before,
    after) of every change set's topic changed in place (a replacement is PL211's)."""
    for change in ctx.changes:
        if change.before is not None and change.after is not None and not change.replaces:
            yield change.before, change.after
    if ctx.base is None:
        return
    seen: set[str] = set()
    for spec in ctx.manifests:
        old = ctx.base_manifest(spec.name)
        if old is not None and spec.name not in seen:
            seen.add(spec.name)
            yield old, spec


def at(ctx, old: TopicSpec) -> str:
    """Where the earlier side of a change was: "at REF", or before a change set."""
    if ctx.change_of(old) is not None:
        return "before the plan"
    return f"at {ctx.base_ref}"


def renamed(ctx) -> list[tuple[TopicSpec, TopicSpec]]:
    """(base, head) manifests of one resource whose Kafka topic name changed."""
    if ctx.base is None:
        return []
    before = {spec.resource: spec for spec in ctx.base if spec.resource is not None}
    return [(before[spec.resource], spec) for spec in ctx.manifests
            if spec.resource in before and before[spec.resource].name != spec.name]


def deleted(ctx) -> list[TopicSpec]:
    """Base manifests of topics that no manifest defines any more (renames excepted), and
    the topics change sets delete."""
    planned = [change.before for change in ctx.changes if change.before is not None
               and change.after is None and "delete" in change.actions]
    if ctx.base is None:
        return planned
    gone = {spec.name for spec in ctx.manifests} | {old.name for old, _ in renamed(ctx)}
    result = []
    for spec in ctx.base:
        if spec.name not in gone:
            gone.add(spec.name)
            result.append(spec)
    return planned + result


def resolved(ctx, code: str, old: TopicSpec, new: TopicSpec, name: str,
             default: Callable[[Any], int | None]) -> tuple[int, int] | None:
    """A setting (``"rf"``, ``"partitions"``) at the base ref and now, as numbers, or None
    when there is no change to judge. A field removed from an existing topic is no change
    (the operators leave the topic as it is); one written as the broker default (``-1``)
    is. A side left to the broker default is resolved
    through the cluster profile; without one, or when either side is an unknown value (a
    template placeholder), the change is counted as unchecked."""
    before, after = getattr(old, name), getattr(new, name)
    if after is None and name not in new.unknown and (
            new.doc.get(new.paths[name]) is None or name in new.kept):
        return None  # removed, never written, or left as it is by the tool that applies it
    if name in old.unknown or name in new.unknown:
        ctx.unchecked.add(code, new.where(name), new.name,
                          f"its {_FIELD[name]} on both sides (a template placeholder is none)")
        return None
    if before is not None and after is not None:
        return before, after
    if before is None and after is None:
        return None
    fallback = default(ctx.profile)
    if fallback is None:
        ctx.unchecked.add(code, new.where(name), new.name,
                          f"the broker default its {_FIELD[name]} is left to (the topic's "
                          "cluster: --cluster or its Kafka resource)")
        return None
    return (fallback if before is None else before), (fallback if after is None else after)


_FIELD = {"rf": "replication factor", "partitions": "partition count"}


def words(declared: int | None, value: int) -> str:
    return str(value) if declared is not None else f"{value} (the broker default)"


def allows_rf_change(ctx, spec: TopicSpec) -> bool:
    value = spec.annotations.get(ALLOW_RF_CHANGE)
    return ctx.allows_rf_change(spec.name) or str(value).lower() == "true"


def live_topics(ctx, said: set) -> Iterator[tuple[TopicSpec, Any, str]]:
    """(declaration, its live topic, where the snapshot says so) of each managed declaration
    the run judges whose topic the cluster's snapshot lists, but those in ``said`` (a diff
    finding said it already)."""
    snapshot = ctx.snapshot
    if snapshot is None or not snapshot.lists_topics:
        return
    captured = f", captured {snapshot.captured_at}" if snapshot.captured_at else ""
    source = f"snapshot {snapshot.doc.source.name}{captured}"
    for spec in ctx.judged_manifests:
        live = snapshot.topics.get(spec.name)
        if live is not None and spec.managed and spec.name not in said:
            yield spec, live, source
