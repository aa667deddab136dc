"""Preferred leaders: which replica goes first in each partition's list.

Moving leadership moves no data, but each change is a leader election the operator sees:
the fewest changes that meet two goals. First every topic's leaders spread over the racks
(PL403: the most and least loaded rack differ by at most one), a minimum-cost flow that
OR-Tools solves per topic (``SimpleMinCostFlow``): leadership flows from rack to rack along
the partitions that have a replica in both, a unit costs one change, and each rack's way
to the sink has three bands (up to its floor free, one more at a price that is lowest for
the racks leading fewest over the cluster, beyond at a higher price), so the flow fills
every floor first and changes the fewest leaders doing it. Then, within each rack, every
broker leads its share (``_even_within_racks``), by moves that keep each topic's racks.
"""

from __future__ import annotations

from collections import Counter, defaultdict

#: a unit above a node's floor, and above its ceiling: dearer than any change of leaders
_ABOVE, _BEYOND = 1_000, 1_000_000


def order(lists: list[list[int]], topics: list[str], movable: list[bool],
          brokers: dict[int, str | None], first: list[int | None],
          balance: bool = True) -> list[list[int]]:
    """Each partition's replicas, each movable one's leader first: ``first`` (today's leader) where the
    goals allow, else the replica the flows choose. Without ``balance`` (a repair),
    brokers' shares of leaders are left as they are."""
    leader = [f if f is not None and ok and f in reps else (reps[0] if reps else None)
              for reps, f, ok in zip(lists, first, movable)]
    rack = brokers
    racks = sorted({r for r in brokers.values() if r is not None})
    if racks:
        _spread_over_racks(lists, topics, movable, rack, racks, leader, Counter(leader))
    if balance:
        _even_within_racks(lists, topics, movable, _rack_groups(brokers, racks), leader)
    return [[lead] + [b for b in reps if b != lead] if ok and reps and reps[0] != lead
            else reps for reps, lead, ok in zip(lists, leader, movable)]


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


def _even_within_racks(lists, topics, movable, groups, leader) -> None:
    """Within each rack, brokers lead floor or ceil of the rack's leaders. A leader moves
    from the broker that leads most to one that leads fewest: directly where the latter
    holds the partition, else by a swap inside one topic (o leads p, w is a replica of p
    and leads q, u is a replica of q: w leads p, u leads q), which leaves every topic's
    leaders per rack as they were."""
    leads = Counter(leader)
    led_by: dict[int, list[int]] = defaultdict(list)
    led_in: dict[tuple, list[int]] = defaultdict(list)
    for p, b in enumerate(leader):
        if movable[p]:
            led_by[b].append(p)
            led_in[topics[p], b].append(p)

    def lead(p: int, b: int) -> None:
        leads[leader[p]] -= 1
        leader[p] = b
        leads[b] += 1
        led_by[b].append(p)
        led_in[topics[p], b].append(p)

    def swap(o: int, u: int) -> bool:
        for p in led_by[o]:
            if leader[p] != o:
                continue
            if u in lists[p]:
                lead(p, u)
                return True
            for w in lists[p]:
                if w == o:
                    continue
                for q in led_in[topics[p], w]:
                    if q != p and leader[q] == w and u in lists[q]:
                        lead(p, w)
                        lead(q, u)
                        return True
        return False

    for members in groups:
        if len(members) < 2:
            continue
        while True:
            ranked = sorted(members, key=lambda b: (-leads[b], b))
            if leads[ranked[0]] - leads[ranked[-1]] <= 1:
                break
            if not any(swap(o, u) for o in ranked if leads[o] > leads[ranked[-1]] + 1
                       for u in reversed(ranked) if leads[u] < leads[o] - 1):
                break


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


def spread_by_moves(lists: list[list[int]], before: list[list[int]], topics: list[str],
                    movable: list[bool], brokers: dict[int, str | None], max_skew: int,
                    closed: frozenset = frozenset()) -> None:
    """Where no order of a topic's replicas spreads its leaders over racks (its replicas sit
    in too few racks: RF 1, say), a changed topic's leader replicas move to a broker of the
    rack that leads fewest, one partition at a time, the rack rule kept."""
    racks = sorted({r for r in brokers.values() if r is not None})
    if not racks:
        return
    load = Counter(b for reps in lists for b in reps)
    by_topic: dict[str, list[int]] = defaultdict(list)
    for p, t in enumerate(topics):
        by_topic[t].append(p)
    for t, pids in by_topic.items():
        if all(lists[p] == before[p] for p in pids):
            continue  # a topic the plan leaves as it is: not judged after it
        for _ in range(len(pids)):
            led = Counter(dict.fromkeys(racks, 0))
            led.update(brokers.get(lists[p][0]) for p in pids if lists[p])
            led.pop(None, None)
            most = max(racks, key=lambda r: (led[r], r))
            fewest = min(racks, key=lambda r: (led[r], r))
            if led[most] - led[fewest] <= max_skew:
                break
            # from the rack that leads most and has a partition that may change
            mine = next(filter(None, ([p for p in pids if movable[p] and lists[p]
                                       and brokers.get(lists[p][0]) == r]
                                      for r in sorted(racks, key=lambda r: (-led[r], r))
                                      if led[r] - led[fewest] >= 2)), [])
            there = [(p, b) for p in mine for b in lists[p] if brokers.get(b) == fewest]
            if there:  # a replica in that rack already: it leads
                p, u = there[0]
                lists[p] = [u] + [b for b in lists[p] if b != u]
                continue
            candidates = [(load[u], u, p) for p in mine for u in brokers
                          if brokers[u] == fewest and u not in closed]
            if not candidates:
                break
            _, u, p = min(candidates)
            load[lists[p][0]] -= 1
            load[u] += 1
            lists[p] = [u] + lists[p][1:]


def skewed(lists: list[list[int]], before: list[list[int]], topics: list[str],
           brokers: dict[int, str | None], max_skew: int) -> set[str]:
    """The topics the plan changes whose leaders still differ by more than ``max_skew``
    between racks (PL403 on the state after it)."""
    racks = sorted({r for r in brokers.values() if r is not None})
    if not racks:
        return set()
    led: dict[str, Counter] = defaultdict(lambda: Counter(dict.fromkeys(racks, 0)))
    changed = set()
    for t, reps, was in zip(topics, lists, before):
        counts = led[t]  # every rack counts, led or not
        if reps and brokers.get(reps[0]) is not None:
            counts[brokers[reps[0]]] += 1
        if reps != was:
            changed.add(t)
    return {t for t in changed if max(led[t].values()) - min(led[t].values()) > max_skew}
