"""Kafka semantics shared by several rules (the terms of RULES.md), in one place."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterator

from ..model import (ClusterProfile, Plan, Snapshot, TopicSpec, TopicState, current_rf,
                     is_reassigning, target_replicas)


def as_int(value: Any) -> int | None:
    """Kafka config values come as strings or ints ("2" == 2)."""
    return None if value is None else int(value)


def effective_min_isr(config: dict, profile: ClusterProfile | None) -> int:
    """The topic's min.insync.replicas, else the broker default, else 1."""
    value = config.get("min.insync.replicas")
    if value is None and profile is not None:
        value = profile.config.get("min.insync.replicas")
    return 1 if value is None else int(value)


def default_rf(profile: ClusterProfile | None) -> int | None:
    """The broker default replication factor; Kafka's own default is 1."""
    if profile is None:
        return None
    return as_int(profile.config.get("default.replication.factor", 1))


def manifest_rf(topic: TopicSpec, profile: ClusterProfile | None) -> int | None:
    """A manifest's RF: as declared, else the cluster default (None: unknown)."""
    return topic.rf if topic.rf is not None else default_rf(profile)


def snapshot_topic_rf(topic: TopicState, manifest_rf_: int | None) -> int | None:
    """The RF declared by the topic's manifest, else the most common current RF among the
    topic's non-reassigning partitions (ties: the smallest)."""
    if manifest_rf_ is not None:
        return manifest_rf_
    counts = Counter(len(p.replicas) for p in topic.partitions if not is_reassigning(p))
    if not counts:
        return None
    best = max(counts.values())
    return min(rf for rf, n in counts.items() if n == best)


def smallest_rf(topic: TopicState) -> int | None:
    return min((current_rf(p) for p in topic.partitions), default=None)


def rack_counts(replicas: list[int], racks: dict[int, str | None]) -> Counter:
    """Replicas per rack; placeholders, unknown brokers and brokers without rack don't count."""
    return Counter(rack for rack in map(racks.get, replicas) if rack is not None)


def replica_lists(target: Any, final: bool = False
                  ) -> Iterator[tuple[str, int, list[int], Any, Any]]:
    """(topic, partition, replicas, owner, item) for every replica list of a plan, snapshot
    or manifest with an explicit assignment; ``where_replicas(owner, item)`` locates it.
    ``final``: a snapshot partition's target replicas rather than all replicas."""
    if isinstance(target, Plan):
        for move in target.moves:
            yield move.topic, move.partition, move.replicas, target, move
    elif isinstance(target, Snapshot):
        for topic in target.topics.values():
            for p in topic.partitions:
                replicas = target_replicas(p) if final else p.replicas
                yield topic.name, p.partition, replicas, topic, p
    elif isinstance(target, TopicSpec) and target.assignment:
        for i, replicas in enumerate(target.assignment):
            yield target.name, i, replicas, target, i


def where_replicas(owner: Any, item: Any) -> tuple:
    if isinstance(owner, Plan):
        return owner.where(item, "replicas")
    if isinstance(owner, TopicState):
        return owner.where_partition(item, "replicas")
    return owner.where("assignment", item)


def profile_of(target: Any, ctx: Any) -> ClusterProfile | None:
    """A snapshot is judged against its own brokers; plans and manifests against the run's
    cluster context."""
    return target.profile if isinstance(target, Snapshot) else ctx.profile


def fmt_ids(ids: Any) -> str:
    return "[" + ", ".join(str(i) for i in ids) + "]"


def min_isr_subjects(target: Any, ctx: Any, predicate: Any
                     ) -> Iterator[tuple[str, int | None, int, int, tuple]]:
    """(topic, partition, RF, effective minISR, where) for each subject of the min ISR rules
    for which ``predicate(rf, min_isr)`` holds. Manifests: topic-level, RF as declared.
    Snapshots: topic-level, the smallest current RF. Plans: per entry, its replica count."""
    if isinstance(target, TopicSpec):
        rf = manifest_rf(target, ctx.profile)
        min_isr = effective_min_isr(target.config, ctx.profile)
        if rf is not None and predicate(rf, min_isr):
            at = target.where("config", "min.insync.replicas") \
                if "min.insync.replicas" in target.config else target.where("rf")
            yield target.name, None, rf, min_isr, at
    elif isinstance(target, Snapshot):
        for topic in target.topics.values():
            rf = smallest_rf(topic)
            min_isr = effective_min_isr(topic.config, target.profile)
            if rf is not None and predicate(rf, min_isr):
                at = topic.where("config", "min.insync.replicas") \
                    if "min.insync.replicas" in topic.config else topic.where("name")
                yield topic.name, None, rf, min_isr, at
    elif isinstance(target, Plan):
        verdicts: dict[tuple[str, int], int | None] = {}
        for move in target.moves:
            key = (move.topic, len(move.replicas))
            min_isr = verdicts.get(key, 0)
            if min_isr == 0:
                min_isr = ctx.min_isr(move.topic)
                min_isr = verdicts[key] = min_isr if predicate(key[1], min_isr) else None
            if min_isr is not None:
                yield (move.topic, move.partition, key[1], min_isr,
                       target.where(move, "replicas"))


def subject(topic: str, partition: int | None) -> str:
    return f"topic {topic}" if partition is None else f"partition {topic}-{partition}"


def moves_data(replicas: list[int], state: Any) -> bool:
    """Whether a plan entry changes a partition's replicas (not just restates them)."""
    return replicas != target_replicas(state)


def with_placeholders(target: Any) -> Iterator[tuple[str, int, list[int], Any, Any]]:
    """The replica lists of a target that hold a placeholder (a negative id, KIP-409)."""
    for entry in replica_lists(target):
        if entry[2] and min(entry[2]) < 0:
            yield entry


def state_after_plan(plan: Plan, snapshot: Snapshot
                     ) -> Iterator[tuple[str, list[list[int]], Any]]:
    """(topic, replica list of each partition, first plan entry) for every snapshot topic a
    plan touches, with the plan applied: a planned partition gets the plan's replicas, the
    others their target replicas."""
    planned: dict[str, dict[int, list[int]]] = {}
    first = {}
    for move in plan.moves:
        planned.setdefault(move.topic, {})[move.partition] = move.replicas
        first.setdefault(move.topic, move)
    for name, moves in planned.items():
        topic = snapshot.topics.get(name)
        if topic is not None:
            yield name, [moves[p.partition] if p.partition in moves else target_replicas(p)
                         for p in topic.partitions], first[name]
