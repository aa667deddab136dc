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
