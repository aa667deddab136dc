"""Kafka semantics shared by several rules (the terms of RULES.md), in one place."""

from __future__ import annotations

from collections import Counter
from itertools import compress, count, groupby, repeat
from math import inf
from operator import gt, itemgetter, ne
from typing import Any, Callable, Iterator

from ..model import (ClusterProfile, PartitionState, Plan, Snapshot, TopicSpec, TopicState,
                     current_rf, is_reassigning, target_replicas)

# fields of a Move, and of a PartitionState
_TOPIC, _PARTITION, _REPLICAS = map(itemgetter, range(3))
_NUMBER, _STATE_REPLICAS, _ISR, _ADDING, _REMOVING = map(itemgetter, range(5))


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
    parts = topic.partitions
    if any(map(_ADDING, parts)) or any(map(_REMOVING, parts)):
        parts = [p for p in parts if not is_reassigning(p)]
    counts = Counter(replica_counts(parts))
    if not counts:
        return None
    best = max(counts.values())
    return min(rf for rf, n in counts.items() if n == best)


def smallest_rf(topic: TopicState) -> int | None:
    return min(current_rfs(topic.partitions), default=None)


# Snapshot partitions a topic at a time, at C speed in the usual case: no reassignment.

def replica_counts(parts: list[PartitionState]) -> Iterator[int]:
    """|replicas| of each partition."""
    return map(len, map(_STATE_REPLICAS, parts))


def current_rfs(parts: list[PartitionState]) -> Iterator[int]:
    """KIP-860 current RF of each partition."""
    return map(current_rf, parts) if any(map(_REMOVING, parts)) else replica_counts(parts)


def final_lists(parts: list[PartitionState]) -> list[list[int]]:
    """Target replicas of each partition."""
    return list(map(target_replicas if any(map(_REMOVING, parts)) else _STATE_REPLICAS,
                    parts))


def isr_sizes(parts: list[PartitionState]) -> list[float]:
    """|ISR| of each partition; infinite where unknown, so that it is never too small."""
    isrs = list(map(_ISR, parts))
    return list(map(len, isrs)) if None not in isrs else \
        [inf if isr is None else len(isr) for isr in isrs]


def lagging(parts: list[PartitionState]) -> list[PartitionState]:
    """Partitions with fewer in-sync replicas than replicas (where the ISR is known)."""
    return list(compress(parts, map(gt, replica_counts(parts), isr_sizes(parts))))


def rack_counts(replicas: list[int], racks: dict[int, str | None]) -> Counter:
    """Replicas per rack; placeholders, unknown brokers and brokers without rack don't count."""
    return Counter(rack for rack in map(racks.get, replicas) if rack is not None)


def where_replicas(owner: Any, item: Any) -> tuple:
    if isinstance(owner, Plan):
        return owner.where(item, "replicas")
    if isinstance(owner, TopicState):
        return owner.where_partition(item, "replicas")
    return owner.where("assignment", item)


class ReplicaLists:
    """Every replica list of a target (plan entries, snapshot partitions, a manifest's
    explicit assignment), for the rules that judge a list by itself.

    A plan of a million entries over thirty brokers holds a few thousand distinct lists:
    ``failing`` asks its verdict once per distinct list and finds the entries that hold a
    failing one at C speed. Build it through ``ctx.shared`` so that rules share it.
    """

    def __init__(self, target: Any, final: bool = False):
        self.owners: list[Any] | Any = target
        if isinstance(target, Plan):
            self.items: Any = target.moves
            self.lists = list(map(_REPLICAS, target.moves))
        elif isinstance(target, Snapshot):
            self.items, self.owners = [], []
            for topic in target.topics.values():
                self.items.extend(topic.partitions)
                self.owners.extend(repeat(topic, len(topic.partitions)))
            self.lists = final_lists(self.items) if final else \
                list(map(_STATE_REPLICAS, self.items))
        elif isinstance(target, TopicSpec) and target.assignment:
            self.items, self.lists = range(len(target.assignment)), target.assignment
        else:
            self.items, self.lists = (), []
        self.distinct = set(map(tuple, self.lists))

    def entry(self, i: int) -> tuple[str, int, list[int], Any, Any]:
        """(topic, partition, replicas, owner, item) of list ``i``; ``where_replicas(owner,
        item)`` locates it."""
        item, replicas = self.items[i], self.lists[i]
        if isinstance(self.owners, Plan):
            return item.topic, item.partition, replicas, self.owners, item
        if isinstance(self.owners, TopicSpec):
            return self.owners.name, item, replicas, self.owners, item
        return self.owners[i].name, item.partition, replicas, self.owners[i], item

    def failing(self, verdict: Callable[[tuple[int, ...]], Any]
                ) -> Iterator[tuple[str, int, list[int], Any, Any, Any]]:
        """``entry(i) + (verdict,)`` for each list whose verdict is truthy."""
        verdicts = {key: verdict(key) for key in self.distinct}
        failing = {key: found for key, found in verdicts.items() if found}
        if not failing:
            return
        for i in compress(count(), map(failing.__contains__, map(tuple, self.lists))):
            yield self.entry(i) + (failing[tuple(self.lists[i])],)


def lists_failing(target: Any, ctx: Any, verdict: Callable[[tuple[int, ...]], Any],
                  final: bool = False) -> Iterator[tuple[str, int, list[int], Any, Any, Any]]:
    """(topic, partition, replicas, owner, item, verdict) of each replica list of a target
    for which ``verdict(tuple of ids)`` is truthy (see ReplicaLists)."""
    final = final and isinstance(target, Snapshot)  # only snapshots have two kinds of lists
    return ctx.shared(ReplicaLists, target, final).failing(verdict)


class PlanColumns:
    """A plan's entries as columns, built at C speed once per run (``ctx.shared``)."""

    def __init__(self, plan: Plan):
        self.topics = list(map(_TOPIC, plan.moves))
        self.partitions = list(map(_PARTITION, plan.moves))
        self.sizes = list(map(len, map(_REPLICAS, plan.moves)))
        #: (topic, start, stop) of each run of entries of one topic (a plan lists a topic's
        #: entries together, so there are as many runs as topics)
        self.runs: list[tuple[str, int, int]] = []
        start = 0
        for name, group in groupby(self.topics):
            self.runs.append((name, start, start + len(list(group))))
            start = self.runs[-1][2]
        #: every (topic, replica count) of an entry, and maybe pairs of no entry: each topic
        #: with the most common count, and the entries of other counts
        common = Counter(self.sizes).most_common(1)[0][0] if self.sizes else 0
        self.topic_sizes = {(topic, common) for topic in set(self.topics)}.union(
            (self.topics[i], self.sizes[i])
            for i in compress(count(), map(ne, self.sizes, repeat(common))))


class StateColumns:
    """Facts about the snapshot states a plan's entries are joined to (``ctx.states``),
    computed at C speed once per run (``ctx.shared``)."""

    _ABSENT = PartitionState(-1, [], None, [], [], -1)  # stands in for a partition not found

    def __init__(self, states: list[PartitionState | None]):
        missing = None in states
        if missing:
            states = [self._ABSENT if s is None else s for s in states]
        sizes = list(replica_counts(states))
        #: |ISR| of each state; infinite where unknown, so that it is never too small
        self.isr_sizes = isr_sizes(states)
        #: entries whose partition is reassigning
        self.reassigning = sorted(set(compress(count(), map(_ADDING, states))).union(
            compress(count(), map(_REMOVING, states))))
        #: entries whose partition has fewer in-sync replicas than replicas
        self.lagging = list(compress(count(), map(gt, sizes, self.isr_sizes)))
        #: KIP-860 current RF of each state; None where the snapshot has no partition
        self.current_rfs: list[int | None] = sizes
        for i in self.reassigning:
            sizes[i] = current_rf(states[i])
        if missing:
            for i, state in enumerate(states):
                if state is self._ABSENT:
                    sizes[i] = None


def join_states(columns: PlanColumns, snapshot: Snapshot | None
                ) -> list[PartitionState | None]:
    """The snapshot's state of each plan entry's partition (None: not in the snapshot)."""
    if snapshot is None:
        return [None] * len(columns.topics)
    indexes: dict[str, tuple[list[PartitionState], dict | None]] = {}
    states: list[PartitionState | None] = []
    for name, start, stop in columns.runs:
        if name not in indexes:
            topic = snapshot.topics.get(name)
            parts = topic.partitions if topic is not None else []
            numbers = list(map(_NUMBER, parts))
            # partitions numbered 0..n-1 in order (the usual) are their own index
            indexes[name] = parts, (None if numbers == list(range(len(parts)))
                                    else dict(zip(numbers, parts)))
        parts, index = indexes[name]
        wanted = columns.partitions[start:stop]
        if index is None and 0 <= min(wanted) and max(wanted) < len(parts):
            states.extend(map(parts.__getitem__, wanted))
        else:
            states.extend(map((index or dict(enumerate(parts))).get, wanted))
    return states


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
        columns = ctx.shared(PlanColumns, target)
        verdicts = {}
        for topic, rf in columns.topic_sizes:
            min_isr = ctx.min_isr(topic)
            if predicate(rf, min_isr):
                verdicts[topic, rf] = min_isr
        if not verdicts:
            return
        for i in compress(count(), map(verdicts.__contains__, zip(columns.topics,
                                                                   columns.sizes))):
            move, rf = target.moves[i], columns.sizes[i]
            yield (move.topic, move.partition, rf, verdicts[move.topic, rf],
                   target.where(move, "replicas"))


def subject(topic: str, partition: int | None) -> str:
    return f"topic {topic}" if partition is None else f"partition {topic}-{partition}"


def moves_data(replicas: list[int], state: Any) -> bool:
    """Whether a plan entry changes a partition's replicas (not just restates them)."""
    return replicas != target_replicas(state)


def with_placeholders(target: Any, ctx: Any
                      ) -> Iterator[tuple[str, int, list[int], Any, Any, Any]]:
    """The replica lists of a target that hold a placeholder (a negative id, KIP-409)."""
    return lists_failing(target, ctx, _holds_placeholder)


def _holds_placeholder(replicas: tuple[int, ...]) -> bool:
    return bool(replicas) and min(replicas) < 0


def after_plan(plan: Plan, ctx: Any) -> list[tuple[str, list[list[int]], Any]]:
    """(topic, replica list of each partition, first plan entry) for every snapshot topic a
    plan touches, with the plan applied: a planned partition gets the plan's replicas, the
    others their target replicas. Computed once per run."""
    return ctx.shared(_after_plan, plan, ctx.shared(PlanColumns, plan), ctx.states(plan),
                      ctx.snapshot)


def _after_plan(plan: Plan, columns: PlanColumns, states: list[PartitionState | None],
                snapshot: Snapshot) -> list[tuple[str, list[list[int]], Any]]:
    runs: dict[str, list[tuple[int, int]]] = {}  # topic -> its runs of entries
    for name, start, stop in columns.runs:
        runs.setdefault(name, []).append((start, stop))
    after = []
    for name, spans in runs.items():
        topic = snapshot.topics.get(name)
        if topic is None:
            continue
        (start, stop), first = spans[0], plan.moves[spans[0][0]]
        if len(spans) == 1 and states[start:stop] == topic.partitions:
            # the usual: every partition planned once, in order
            after.append((name, list(map(_REPLICAS, plan.moves[start:stop])), first))
            continue
        planned = {move.partition: move.replicas
                   for start, stop in spans for move in plan.moves[start:stop]}
        after.append((name, [planned[p.partition] if p.partition in planned
                             else target_replicas(p) for p in topic.partitions], first))
    return after
