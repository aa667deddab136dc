"""Preferred leaders: which replica goes first in each partition's list.

Moving leadership moves no data, but each change is a leader election the operator sees,
so the fewest changes that meet two goals: every topic's leaders spread over the racks
(PL403: the most and least loaded rack differ by at most one), and every broker leads
its share of partitions (the mean, floor or ceil). Each is a minimum-cost flow that
OR-Tools solves (``SimpleMinCostFlow``): leadership flows from broker to broker (rack to
rack) along the partitions that have a replica on both, a unit costs one change, and
each node's way to the sink has three bands — up to its floor free, one more at a price,
beyond at a higher price — so the flow fills every floor first and changes the fewest
leaders doing it. Nodes are brokers and racks, not partitions: a million partitions
are a few thousand nodes.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import NamedTuple

#: a unit above a node's floor, and above its ceiling: dearer than any change of leaders
_ABOVE, _BEYOND = 1_000, 1_000_000


class Leaders(NamedTuple):
    lists: list[list[int]]  # leader first, the others in their order
    changed: int  # partitions whose first replica differs from ``first``


def order(lists: list[list[int]], topics: list[str], movable: list[bool],
          brokers: dict[int, str | None], first: list[int | None]) -> Leaders:
    """Puts each movable partition's leader first: ``first`` (today's leader) where the
    goals allow, else the replica the flows choose."""
    leader = [f if f is not None and ok and f in reps else (reps[0] if reps else None)
              for reps, f, ok in zip(lists, first, movable)]
    rack = brokers
    racks = sorted({r for r in brokers.values() if r is not None})
    if racks:
        _spread_over_racks(lists, topics, movable, rack, racks, leader, Counter(leader))
    for members in _rack_groups(brokers, racks):
        _share_over_brokers(lists, movable, rack, members, leader, len(brokers))
    out, changed = [], 0
    for reps, lead, was, ok in zip(lists, leader, first, movable):
        if ok and reps and reps[0] != lead:
            reps = [lead] + [b for b in reps if b != lead]
        out.append(reps)
        changed += ok and bool(reps) and reps[0] != was
    return Leaders(out, changed)


def _rack_groups(brokers: dict, racks: list) -> list[list[int]]:
    if not racks:
        return [sorted(brokers)]
    groups = defaultdict(list)
    for b, r in sorted(brokers.items()):
        groups[r].append(b)
    return [groups[r] for r in racks]


def _spread_over_racks(lists, topics, movable, rack, racks, leader, leads: Counter) -> None:
    """Per topic, leaders over racks within one of each other; the racks that lead one more
    are those that lead fewest over the whole cluster."""
    by_topic: dict[str, list[int]] = defaultdict(list)
    for pid, t in enumerate(topics):
        by_topic[t].append(pid)
    size = Counter(rack.values())
    total = Counter()
    for pid, b in enumerate(leader):
        total[rack.get(b)] += 1
    everyone = sum(total[r] for r in racks)
    for t in sorted(by_topic):
        pids = by_topic[t]
        if not any(movable[p] for p in pids):
            continue
        # the racks furthest below their share of the cluster's leaders take the extras
        rank = {r: i for i, r in enumerate(sorted(
            racks, key=lambda r: (total[r] - everyone * size[r] / len(rack), r)))}
        index = {r: i for i, r in enumerate(racks)}
        supply = Counter(rack.get(leader[p]) for p in pids)
        led = sum(supply[r] for r in racks)
        via: dict[tuple, list[int]] = defaultdict(list)
        for p in pids:
            here = rack.get(leader[p])
            if movable[p] and here is not None:
                for r in {rack[b] for b in lists[p] if rack.get(b) is not None} - {here}:
                    via[index[here], index[r]].append(p)
        floor, _ = divmod(led, len(racks))
        flows = _solve(len(racks), [supply[r] for r in racks], via,
                       [(floor, 2 * rank[r]) for r in racks], led)
        for (a, b), n in flows:
            for p in via[a, b]:
                if n == 0:
                    break
                if rack.get(leader[p]) == racks[a]:
                    total[racks[a]] -= 1
                    total[racks[b]] += 1
                    leads[leader[p]] -= 1
                    leader[p] = _least_leading(lists[p], racks[b], rack, leads)
                    leads[leader[p]] += 1
                    n -= 1


def _least_leading(replicas: list[int], r: str, rack: dict, leads: Counter) -> int:
    return min((b for b in replicas if rack.get(b) == r), key=lambda b: (leads[b], b))


def _share_over_brokers(lists, movable, rack, members, leader, n_brokers) -> None:
    """Within one rack (so that no topic's rack counts change), each broker leads the
    rack's leaders over its brokers, floor or ceil."""
    index = {b: i for i, b in enumerate(members)}
    supply = Counter(b for b in leader if b in index)
    led = sum(supply.values())
    via: dict[tuple, list[int]] = defaultdict(list)
    for p, b in enumerate(leader):
        if movable[p] and b in index:
            for other in lists[p]:
                if other != b and other in index:
                    via[index[b], index[other]].append(p)
    floor, _ = divmod(led, len(members))
    flows = _solve(len(members), [supply[b] for b in members], via,
                   [(floor, 0)] * len(members), led)
    moved: set[int] = set()
    for (a, b), n in flows:
        for p in via[a, b]:
            if n == 0:
                break
            if p not in moved and leader[p] == members[a]:
                leader[p] = members[b]
                moved.add(p)
                n -= 1


def _solve(n: int, supply: list[int], via: dict, bands: list[tuple[int, int]],
           total: int) -> list[tuple[tuple[int, int], int]]:
    """Units moved along each arc (a, b) of ``via`` (capacity: its partitions) so that node
    i ends with at least ``bands[i][0]`` units where it can, extras where their price
    (``bands[i][1]``) is lowest, with the fewest units moved."""
    if not via or total == 0:
        return []
    import numpy as np
    from ortools.graph.python import min_cost_flow
    arcs = sorted(via)
    sink = n
    tails = [a for a, _ in arcs] + list(range(n)) * 3
    heads = [b for _, b in arcs] + [sink] * (3 * n)
    caps = [len(via[a]) for a in arcs] + [f for f, _ in bands] + [1] * n + [total] * n
    costs = [1] * len(arcs) + [0] * n + [_ABOVE + p for _, p in bands] + [_BEYOND] * n
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(
        np.array(tails, dtype=np.int32), np.array(heads, dtype=np.int32),
        np.array(caps, dtype=np.int64), np.array(costs, dtype=np.int64))
    flow.set_nodes_supplies(np.arange(n + 1, dtype=np.int32),
                            np.array(supply + [-total], dtype=np.int64))
    if flow.solve() != flow.OPTIMAL:
        return []
    moved = flow.flows(np.arange(len(arcs), dtype=np.int32))
    return [(arc, int(f)) for arc, f in zip(arcs, moved) if f]
