"""The fewest replica moves, exactly, for a balance goal on a cluster small enough: one
minimum-cost flow.

Replicas flow from each partition, through its racks, to brokers. What makes a plan
valid are bounds on those flows: a partition has its RF; a rack holds at most
``RF - min(RF, racks) + 1`` of its replicas (strict: it spans min(RF, racks) racks) or at
most ``ceil(RF / racks)`` (even), and at least one where its RF reaches the racks
(strict); a broker holds its share within one (its rack's share as the heuristic sets it)
and at most one replica of a partition. These are two nested families of bounds (per
partition: all brokers, then each rack; per broker), so the flow's optimum is a plan: the
least number of replicas that arrive on brokers that did not hold them. Among plans of
that many moves, each topic's replicas go where the topic has fewest (a rising price for
each further replica of a topic on a broker), so topics stay spread.

Lower bounds are met by pricing their units far below any other (``_FORCED``): a flow
that does not saturate them has no plan, and the heuristic's is used.
"""

from __future__ import annotations

import math

from .flow import Arcs
from .shares import rack_shares

#: flow arcs at most (partitions x brokers, about): beyond, the heuristic alone
MAX_ARCS = 400_000


def place_exactly(lists: list[list[int]], goal) -> list[list] | None:
    """Every movable partition's replicas (``placement.Goal``) with the fewest moves, kept
    replicas in their slots; None where the cluster is too large or the flow finds no
    plan."""
    rack = goal.brokers
    racks = sorted({r for r in rack.values() if r is not None})
    if racks and any(r is None for r in rack.values()):
        return None  # brokers with and without racks: the heuristic's rules
    movable = [p for p, ok in enumerate(goal.movable) if ok]
    brokers = sorted(rack)
    if not movable or len(movable) * len(brokers) > MAX_ARCS:
        return None
    fixed = {b: 0 for b in brokers}
    for p, reps in enumerate(lists):
        if not goal.movable[p]:
            for b in reps:
                if b in fixed:
                    fixed[b] += 1
    topics = goal.topics or [p for p in range(len(lists))]
    groups = {r: [b for b in brokers if rack[b] == r] for r in racks} if racks else \
        {None: brokers}
    shares = _shares(lists, goal, groups, racks)
    replicas = sum(goal.rf[p] for p in movable)
    # prices, each dominating all of those after it: a forced unit, a move, a topic's
    # spread (2 a further replica), its leader kept (1 a partition)
    per_topic: dict = {}
    for p in movable:
        per_topic[topics[p]] = per_topic.get(topics[p], 0) + 1
    cheaper = 2 * replicas * max(per_topic.values()) + len(movable)
    move = cheaper + 1
    forced = -(move * (replicas + 1) + cheaper + 1)
    if abs(forced) * replicas * 4 > 2 ** 62:
        return None
    # nodes: 0 the source, then partitions, their racks, topic x broker, brokers, the sink
    index: dict = {}

    def node(key) -> int:
        if key not in index:
            index[key] = len(index) + 1
        return index[key]
    network = Arcs()
    arc = network.add
    lower: list[tuple[int, int]] = []  # (arc, units it must carry)
    chosen: list[tuple[int, int, int]] = []  # (arc, partition, broker)
    for p in movable:
        rf, held = goal.rf[p], set(lists[p])
        arc(0, node(("p", p)), rf, 0)
        need = min(rf, len(racks)) if racks else 0
        for r, members in groups.items():
            via = node(("p", p))
            if racks:
                via = node(("pr", p, r))
                cap = math.ceil(rf / len(racks)) if goal.rack_mode == "even" else rf - need + 1
                least = 1 if goal.rack_mode != "even" and rf >= len(racks) else 0
                if least:
                    lower.append((arc(node(("p", p)), via, least, forced), least))
                if cap > least:
                    arc(node(("p", p)), via, cap - least, 0)
            for b in members:
                if b in goal.closed and b not in held:
                    continue  # a cordoned broker takes no new replica
                chosen.append((arc(via, node(("tb", topics[p], b)), 1,
                                   move if b not in held else -(b == lists[p][0])), p, b))
    for key, n in list(index.items()):
        if key[0] == "tb":  # the j-th replica of a topic on a broker costs 2j
            for j in range(per_topic[key[1]]):
                arc(n, node(("b", key[2])), 1, 2 * j)
    for b in brokers:
        if b in goal.closed:  # keeps at most what it holds
            arc(node(("b", b)), node(("sink",)), sum(b in lists[p] for p in movable), 0)
            continue
        floor, ceil = max(shares[b][0] - fixed[b], 0), max(shares[b][1] - fixed[b], 0)
        if floor:
            lower.append((arc(node(("b", b)), node(("sink",)), floor, forced), floor))
        if ceil > floor:
            arc(node(("b", b)), node(("sink",)), ceil - floor, 0)
    supplies = [0] * (len(index) + 1)
    supplies[0], supplies[index[("sink",)]] = replicas, -replicas
    flows = network.solved(supplies, len(network.tails))
    if flows is None or any(flows[a] < units for a, units in lower):
        return None
    sets: dict[int, list[int]] = {p: [] for p in movable}
    for a, p, b in chosen:
        if flows[a]:
            sets[p].append(b)
    out = [list(reps) for reps in lists]
    for p in movable:
        new, seen = set(sets[p]), set()
        stay = [b if b in new and not (b in seen or seen.add(b)) else None
                for b in lists[p]][:goal.rf[p]]
        stay += [None] * (goal.rf[p] - len(stay))
        arriving = iter(sorted(new - set(stay)))
        out[p] = [b if b is not None else next(arriving) for b in stay]
    return out


def _shares(lists: list[list[int]], goal, groups: dict, racks: list) -> dict:
    """Each open broker's share of all replicas, (floor, ceil), as the heuristic sets it:
    what closed brokers hold stays theirs; the rest per rack (``rack_shares``)."""
    total = sum(goal.rf[p] if ok else sum(b in goal.brokers for b in reps)
                for p, (ok, reps) in enumerate(zip(goal.movable, lists)))
    kept = sum(b in goal.closed for reps in lists for b in reps)
    open_ = {r: [b for b in m if b not in goal.closed] for r, m in groups.items()}
    spread = sum(1 for rf in goal.rf if rf >= len(racks)) \
        if racks and goal.rack_mode != "even" else 0
    per_rack = rack_shares({r: len(m) for r, m in open_.items() if m}, spread,
                           max(total - kept, 0))
    each = {r: round(per_rack[r] / len(m), 6) for r, m in open_.items() if m}
    return {b: (math.floor(each[r]), math.ceil(each[r])) for r, m in open_.items() if m
            for b in m}
