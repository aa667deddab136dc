"""Views of the model that the engine builds once per run and hands to rules (``Context``
accessors). A plan of a million entries is read at C speed here, once, so that each rule
reads like its documentation; rules never build these themselves."""

from __future__ import annotations

from collections import Counter
from functools import cached_property
from itertools import compress, count, groupby, repeat
from operator import attrgetter, gt, lt, ne
from typing import Any, Callable, Iterable, Iterator

from .kafka import REMOVING, REPLICAS, isr_sizes, replica_counts
from .model import PartitionState, Plan, Ref, Snapshot, TopicSpec, TopicState, current_rf, \
    target_replicas

_TOPIC, _PARTITION, _LOG_DIRS = attrgetter("topic"), attrgetter("partition"), \
    attrgetter("log_dirs")
_ABSENT = PartitionState(-1, [], None, [], [], -1, None)  # stands in for a partition not found


def where_replicas(owner: Any, item: Any) -> Ref:
    """Where the replica list of ``item`` (a plan entry, snapshot partition, or the index of
    a manifest's explicit assignment) is written."""
    if isinstance(owner, Plan):
        return owner.where(item, "replicas")
    if isinstance(owner, TopicState):
        return owner.where_partition(item, "replicas")
    return owner.where("assignment", item)


class ReplicaList:
    """One replica list of a target and where it is."""
    __slots__ = ("topic", "partition", "replicas", "owner", "item", "verdict")

    def __init__(self, topic: str, partition: int, replicas: list[int], owner: Any,
                 item: Any, verdict: Any):
        self.topic, self.partition, self.replicas = topic, partition, replicas
        self.owner, self.item, self.verdict = owner, item, verdict

    def where(self, *rest: Any) -> Ref:
        doc, path = where_replicas(self.owner, self.item)
        return doc, path + rest


class ReplicaLists:
    """Every replica list of a target (plan entries, snapshot partitions, or a manifest's
    explicit assignment), for the rules that judge a list by itself.

    A plan of a million entries over thirty brokers holds a few thousand distinct lists:
    ``failing`` asks its verdict once per distinct list and finds the entries that hold a
    failing one at C speed.
    """

    def __init__(self, target: Any, final: bool = False):
        self.owners: list[Any] | Any = target
        if isinstance(target, Plan):
            self.items: Any = target.moves
            self.lists = list(map(REPLICAS, target.moves))
        elif isinstance(target, Snapshot):
            self.items, self.owners = [], []
            for topic in target.topics.values():
                self.items.extend(topic.partitions)
                self.owners.extend(repeat(topic, len(topic.partitions)))
            self.lists = list(map(target_replicas, self.items)) \
                if final and any(map(REMOVING, self.items)) else list(map(REPLICAS, self.items))
        elif isinstance(target, TopicSpec) and target.assignment:
            self.items, self.lists = range(len(target.assignment)), target.assignment
        else:
            self.items, self.lists = (), []
        keys = list(map(tuple, self.lists))
        #: each distinct list, numbered; and the number of each entry's list, so that each
        #: rule finds its failing entries by small ints, not by tupling every list again
        self.distinct: dict[tuple[int, ...], int] = {
            key: number for number, key in enumerate(dict.fromkeys(keys))}
        self._numbers = list(map(self.distinct.__getitem__, keys))

    def _entry(self, i: int, verdict: Any) -> ReplicaList:
        item, replicas = self.items[i], self.lists[i]
        if isinstance(self.owners, Plan):
            return ReplicaList(item.topic, item.partition, replicas, self.owners, item, verdict)
        if isinstance(self.owners, TopicSpec):
            return ReplicaList(self.owners.name, item, replicas, self.owners, item, verdict)
        owner = self.owners[i]
        return ReplicaList(owner.name, item.partition, replicas, owner, item, verdict)

    def failing(self, verdict: Callable[[tuple[int, ...]], Any]) -> Iterable[ReplicaList]:
        """Each list whose ``verdict(tuple of ids)`` is truthy, with that verdict."""
        if not self.distinct:
            return ()
        failing = {number: found for key, number in self.distinct.items()
                   if (found := verdict(key))}
        if not failing:
            return ()
        return (self._entry(i, failing[self._numbers[i]]) for i in compress(
            count(), map(failing.__contains__, self._numbers)))


class PlanView:
    """A plan's entries as columns, joined to the snapshot's partitions.

    ``states[i]`` is the snapshot's state of entry ``i``'s partition (None: not in the
    snapshot); the other columns are computed on first use.
    """

    def __init__(self, plan: Plan, snapshot: Snapshot | None):
        self.plan, self.snapshot = plan, snapshot
        moves = plan.moves
        self.topics: list[str] = list(map(_TOPIC, moves))
        self.partitions: list[int] = list(map(_PARTITION, moves))
        self.sizes: list[int] = list(map(len, map(REPLICAS, moves)))
        #: (topic, start, stop) of each run of entries of one topic (a plan lists a topic's
        #: entries together, so there are as many runs as topics)
        self.runs: list[tuple[str, int, int]] = []
        start = 0
        for name, group in groupby(self.topics):
            self.runs.append((name, start, start + len(list(group))))
            start = self.runs[-1][2]

    @cached_property
    def topic_sizes(self) -> set[tuple[str, int]]:
        """Every (topic, replica count) of an entry, and maybe pairs of no entry: each topic
        with the most common count, and the entries of other counts."""
        common = Counter(self.sizes).most_common(1)[0][0] if self.sizes else 0
        return {(topic, common) for topic in set(self.topics)}.union(
            (self.topics[i], self.sizes[i])
            for i in compress(count(), map(ne, self.sizes, repeat(common))))

    @cached_property
    def states(self) -> list[PartitionState | None]:
        if self.snapshot is None:
            return [None] * len(self.topics)
        indexes: dict[str, tuple[list[PartitionState], dict | None]] = {}
        states: list[PartitionState | None] = []
        for name, start, stop in self.runs:
            if name not in indexes:
                topic = self.snapshot.topics.get(name)
                parts = topic.partitions if topic is not None else []
                numbers = list(map(_PARTITION, parts))
                # partitions numbered 0..n-1 in order (the usual) are their own index
                indexes[name] = parts, (None if numbers == list(range(len(parts)))
                                        else dict(zip(numbers, parts)))
            parts, index = indexes[name]
            wanted = self.partitions[start:stop]
            if index is None and 0 <= min(wanted) and max(wanted) < len(parts):
                states.extend(map(parts.__getitem__, wanted))
            else:
                states.extend(map((index or dict(enumerate(parts))).get, wanted))
        return states

    @cached_property
    def _present(self) -> list[PartitionState]:
        """``states`` with a stand-in for partitions the snapshot lacks."""
        states = self.states
        return states if None not in states else [_ABSENT if s is None else s for s in states]

    @cached_property
    def isr_sizes(self) -> list[float]:
        """|ISR| of each entry's partition; infinite where unknown, never too small."""
        return isr_sizes(self._present)

    @cached_property
    def reassigning(self) -> list[int]:
        """Entries whose partition is reassigning."""
        states = self._present
        return sorted(set(compress(count(), map(attrgetter("adding"), states))).union(
            compress(count(), map(REMOVING, states))))

    @cached_property
    def uncertain(self) -> list[int]:
        """Entries whose partition the snapshot's capture could not read consistently."""
        return list(compress(count(), map(attrgetter("uncertain"), self._present)))

    def inflated(self, topic_rf: Callable[[str], int | None],
                 mixed: Callable[[str], bool]) -> list[int]:
        """Entries whose partition holds more replicas than its topic's replication factor
        (``topic_rf(topic)``) and is not reassigning: a read the snapshot cannot vouch for
        (PL204). Only the topics whose partitions hold different replica counts
        (``mixed(topic)``) are looked at: in the others none holds more than the RF."""
        reassigning, present, found = set(self.reassigning), self._present, []
        for name, start, stop in self.runs:
            if not mixed(name) or (rf := topic_rf(name)) is None:
                continue
            over = map(gt, replica_counts(present[start:stop]), repeat(rf))
            found += [i for i in compress(range(start, stop), over) if i not in reassigning]
        return sorted(found)

    @cached_property
    def lagging(self) -> list[int]:
        """Entries whose partition has fewer in-sync replicas than replicas."""
        return list(compress(count(), map(gt, replica_counts(self._present), self.isr_sizes)))

    @cached_property
    def current_rfs(self) -> list[int | None]:
        """KIP-860 current RF of each entry's partition; None where the snapshot lacks it."""
        rfs: list[int | None] = list(replica_counts(self._present))
        for i in self.reassigning:
            rfs[i] = current_rf(self._present[i])
        if self._present is not self.states:
            for i, state in enumerate(self.states):
                if state is None:
                    rfs[i] = None
        return rfs

    def resized(self) -> Iterator[int]:
        """Entries whose replica count differs from the partition's current RF, or whose
        partition the snapshot lacks."""
        return compress(count(), map(ne, self.sizes, self.current_rfs))

    def below_min_isr(self, min_isr: Callable[[str], int]) -> Iterator[tuple[int, int]]:
        """(entry, the topic's min.insync.replicas) for each entry whose partition has fewer
        in-sync replicas than that; ``min_isr(topic)`` is asked once per topic."""
        floors = {topic: min_isr(topic) for topic in set(self.topics)}
        below = map(lt, self.isr_sizes, map(floors.__getitem__, self.topics))
        return ((i, floors[self.topics[i]]) for i in compress(count(), below))

    def log_dirs_mismatched(self) -> Iterator[int]:
        """Entries whose ``log_dirs`` are given and not as many as their replicas."""
        given = list(map(_LOG_DIRS, self.plan.moves))
        absent = given.count(None)
        if absent == len(given):
            return iter(())
        lengths = map(len, given) if not absent else \
            (n if dirs is None else len(dirs) for dirs, n in zip(given, self.sizes))
        return compress(count(), map(ne, lengths, self.sizes))

    @cached_property
    def after(self) -> list[tuple[str, list[list[int]], Any]]:
        """(topic, replica list of each partition, first plan entry) for every snapshot topic
        the plan touches, with the plan applied: a planned partition gets the plan's
        replicas, the others their target replicas."""
        if self.snapshot is None:
            return []
        moves, states = self.plan.moves, self.states
        runs: dict[str, list[tuple[int, int]]] = {}  # topic -> its runs of entries
        for name, start, stop in self.runs:
            runs.setdefault(name, []).append((start, stop))
        after = []
        for name, spans in runs.items():
            topic = self.snapshot.topics.get(name)
            if topic is None:
                continue
            (start, stop), first = spans[0], moves[spans[0][0]]
            if len(spans) == 1 and states[start:stop] == topic.partitions:
                # the usual: every partition planned once, in order
                after.append((name, list(map(REPLICAS, moves[start:stop])), first))
                continue
            planned = {move.partition: move.replicas
                       for start, stop in spans for move in moves[start:stop]}
            after.append((name, [planned[p.partition] if p.partition in planned
                                 else target_replicas(p) for p in topic.partitions], first))
        return after
