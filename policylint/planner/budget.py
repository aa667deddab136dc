"""A plan of at most N replica moves (``--max-moves``, Cruise Control's "light mode"): the
moves that must happen first, then the balance moves that even out the brokers most."""

from __future__ import annotations

import heapq
from collections import Counter


def within(before: list[list[int]], after: list[list[int]], changed: list[int],
           brokers: dict[int, str | None], most: int) -> tuple[list[list[int]], int]:
    """The lists of the best plan of at most ``most`` replica moves (those left out keep
    today's lists), and how many changed partitions were left out. ValueError (its
    message said to the user) when the moves that must happen are more than ``most``."""
    must, optional = [], []
    for i in changed:
        (must if _must(before[i], after[i], brokers) else optional).append(i)
    needed = sum(_moves(before[i], after[i]) for i in must)
    if needed > most:
        raise ValueError(f"--max-moves {most:,}: the plan must make {needed:,} replica moves "
                         "(replicas leaving brokers, broken rack spread, RF changes); give "
                         "at least that many")
    lists = [list(r) for r in after]
    for i in optional:  # back to today's; chosen ones below take the plan's again
        lists[i] = list(before[i])
    load = Counter(b for reps in lists for b in reps)
    budget = most - needed
    # the moves that narrow the spread of replicas over brokers most, first: each partition's
    # change scored by how much it lowers the sum of squared broker loads per replica it
    # moves, scored again when it comes up (what was taken since changed the loads: lazy
    # greedy)
    heap = [(-_worth(before[i], after[i], load), i) for i in optional]
    heapq.heapify(heap)
    taken = 0
    while heap:
        _, i = heapq.heappop(heap)
        worth, cost = _worth(before[i], after[i], load), _moves(before[i], after[i])
        if heap and cost and worth < -heap[0][0]:
            heapq.heappush(heap, (-worth, i))  # no longer the best: in its place
            continue
        if cost > budget or (cost and worth <= 0):
            continue
        load.subtract(before[i])
        load.update(after[i])
        lists[i] = list(after[i])
        budget -= cost
        taken += 1
    return lists, len(optional) - taken


def _moves(before: list[int], after: list[int]) -> int:
    return len(set(after) - set(before))


def _must(before: list[int], after: list[int], brokers: dict) -> bool:
    """A change the goal cannot do without: a replica on a broker the result may not use,
    an RF asked for, or a rack spread the change widens."""
    if len(before) != len(after) or any(b not in brokers for b in before):
        return True
    racks = lambda reps: len({brokers[b] for b in reps if brokers.get(b) is not None})  # noqa: E731
    return racks(after) > racks(before)


def _worth(before: list[int], after: list[int], load: Counter) -> float:
    """``_gain`` per replica moved (a change that moves none: taken first)."""
    cost = _moves(before, after)
    return _gain(before, after, load) / cost if cost else float("inf")


def _gain(before: list[int], after: list[int], load: Counter) -> int:
    """How much the change lowers the sum of squared loads (moving one replica from a
    broker of load a to one of load b lowers it by 2(a - b) - 2)."""
    leaving, arriving = set(before) - set(after), set(after) - set(before)
    return sum(2 * load[b] - 1 for b in leaving) - sum(2 * load[b] + 1 for b in arriving)
