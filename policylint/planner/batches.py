"""A plan split into batches that run one after another, and the throttle each needs.

``kafka-reassign-partitions.sh --execute --throttle RATE`` sets the throttles itself:
``leader.replication.throttled.replicas`` (partition:broker of the replicas that send)
and ``follower.replication.throttled.replicas`` (those that receive) on each topic,
``leader/follower.replication.throttled.rate`` on each broker; ``--verify`` removes them.
A batch names them so the operator knows what the tool will set and for how long.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Batch:
    entries: list[int] = field(default_factory=list)  # partition indices of the plan
    inbound: Counter = field(default_factory=Counter)  # replicas each broker receives
    data: int = 0  # bytes that move (0 where sizes are unknown)
    #: a partition's replicas as this batch leaves them, where that is not yet the plan's
    #: (one replica at a time)
    steps: dict[int, list[int]] = field(default_factory=dict)


def one_at_a_time(made, sizes: list[int] | None) -> list[Batch]:
    """Batches in which no partition gains more than one new replica: batch k makes the
    k-th of each partition's new replicas (in the slot of one that leaves), the last batch
    of a partition its final list (its leader order too)."""
    batches: list[Batch] = []
    for i in made.changed:
        before, after = made.before[i], made.after[i]
        arriving = [b for b in after if b not in before]
        leaving = [b for b in before if b not in after]
        current = list(before)
        for k, broker in enumerate(arriving or [None]):
            if broker is not None:
                if leaving:
                    current[current.index(leaving.pop(0))] = broker
                else:
                    current.append(broker)
            last = k == max(len(arriving), 1) - 1
            if last:  # the plan's own list: what is still to leave goes, the order is set
                current = list(after)
            while len(batches) <= k:
                batches.append(Batch())
            batch = batches[k]
            batch.entries.append(i)
            if not last:
                batch.steps[i] = list(current)
            if broker is not None:
                batch.inbound[broker] += 1
                batch.data += sizes[i] if sizes else 0
    return batches


def split(made, max_per_broker: int | None, batch_size: int | None,
          sizes: list[int] | None) -> list[Batch]:
    """The plan's entries in batches, first fit: no broker receives more than
    ``max_per_broker`` replicas in one batch, no batch has more than ``batch_size``
    entries. A leader-only change moves no data and goes in the first batch with room."""
    batches: list[Batch] = []
    for i in made.changed:
        arriving = [b for b in made.after[i] if b not in made.before[i]]
        size = sizes[i] if sizes else 0
        for batch in batches:
            if batch_size and len(batch.entries) >= batch_size:
                continue
            if max_per_broker and any(batch.inbound[b] >= max_per_broker for b in arriving):
                continue
            break
        else:
            batch = Batch()
            batches.append(batch)
        batch.entries.append(i)
        batch.inbound.update(arriving)
        batch.data += size * len(arriving)
    return batches


def throttled(made, batch: Batch) -> dict[str, dict[str, str]]:
    """Per topic, the throttled-replica configs the tool sets for ``batch``."""
    leader: dict[str, list[str]] = {}
    follower: dict[str, list[str]] = {}
    for i in batch.entries:
        topic, partition = made.keys[i]
        arriving = [b for b in made.after[i] if b not in made.before[i]]
        if not arriving:
            continue
        leader.setdefault(topic, []).extend(f"{partition}:{b}" for b in made.before[i])
        follower.setdefault(topic, []).extend(f"{partition}:{b}" for b in arriving)
    return {t: {"leader.replication.throttled.replicas": ",".join(leader[t]),
                "follower.replication.throttled.replicas": ",".join(follower[t])}
            for t in sorted(leader)}
