"""``--fix`` on a plan: the fewest replicas of its entries changed so that it passes.

The plan's entries are the partitions that may change, starting from the replicas they
name; every other partition of the snapshot stays as it is and counts towards the brokers'
loads. The same placement as ``policylint plan`` keeps what is valid and fills what is not
(an unknown or cordoned broker, a placeholder, a broker named twice, a rack the rule
refuses, an RF the policy does not allow changed back to the current one), without
balancing; leaders are ordered again only where a topic's racks ask (PL403). A plan with an
entry it cannot place (an RF larger than the brokers) is left as it is, with the reason, and
so is a plan whose repair would undo what it was written for: replicas put back on a broker
it drains, or taken off every broker it brings in.
"""

from __future__ import annotations

from typing import NamedTuple

from ..model import Plan, target_replicas


class Repair(NamedTuple):
    lists: dict[int, list[int]]  # move index -> its replicas once fixed (only those that change)
    problem: str | None = None  # why the plan is left as it is


def repair(plan: Plan, ctx) -> Repair:
    profile = ctx.profile
    if profile is None or not profile.brokers:
        return Repair({}, "its cluster's brokers are not among the inputs")
    try:
        import ortools  # noqa: F401  (leaders are ordered by its flows)
    except ImportError:
        return Repair({}, "fixing a plan needs OR-Tools: pip install 'policylint[plan]'")
    from .leaders import order, spread_by_moves
    from .placement import Goal, place
    brokers = profile.brokers
    snapshot = ctx.snapshot
    keys: list[tuple[str, int]] = []
    lists: list[list[int]] = []
    index: dict[tuple[str, int], int] = {}
    if snapshot is not None:
        for topic in snapshot.topics.values():
            for p in topic.partitions:
                index[topic.name, p.partition] = len(keys)
                keys.append((topic.name, p.partition))
                lists.append(target_replicas(p))
    movable = [False] * len(keys)
    rf = [len(r) for r in lists]
    first: list[int | None] = [r[0] if r else None for r in lists]
    entry_of: dict[int, int] = {}  # partition index -> move index
    today = list(lists)  # who holds each partition now
    for i, move in enumerate(plan.moves):
        key = (move.topic, move.partition)
        if key in index and movable[index[key]]:
            continue  # named twice (PL111): the first entry is the one repaired
        if key not in index:
            index[key] = len(keys)
            keys.append(key)
            lists.append([])
            today.append([])
            rf.append(0)
            first.append(None)
            movable.append(False)
        pid = index[key]
        current, _ = ctx.entry_rf(plan, i)
        wanted = len(move.replicas)
        rf[pid] = wanted if current is None or ctx.allows_rf_change(move.topic) else current
        lists[pid] = list(move.replicas)
        first[pid] = move.replicas[0] if move.replicas and move.replicas[0] >= 0 else None
        movable[pid] = True
        entry_of[pid] = i
    closed = frozenset(b for b in brokers if profile.fully_cordoned(b))
    rules = ctx.policy.rules
    holders = [held if ok else () for held, ok in zip(today, movable)]
    goal = Goal(brokers, movable, rf, balance=False,
                rack_mode=rules.get("PL401", {}).get("mode", "strict"), closed=closed,
                holders=holders)
    placed = place(lists, goal)
    if placed.stuck:
        pid, why = min(placed.stuck.items())
        topic, partition = keys[pid]
        return Repair({}, f"{topic}-{partition}: {why}")
    topics = [k[0] for k in keys]
    touched = {topics[pid] for pid in entry_of if placed.lists[pid] != lists[pid]}
    if snapshot is not None:  # the topics whose leaders PL403 judges after the plan
        touched |= {topics[pid] for pid in entry_of}
    lead_movable = [ok and t in touched for ok, t in zip(movable, topics)]
    ordered = order(placed.lists, topics, lead_movable, brokers, first, balance=False)
    if snapshot is not None:
        named = [None if pid in entry_of else r for pid, r in enumerate(lists)]
        spread_by_moves(ordered, named, topics, lead_movable, brokers,
                        rules.get("PL403", {}).get("max_skew", 1), closed)
    fixed = {entry_of[pid]: ordered[pid] for pid in entry_of if ordered[pid] != lists[pid]}
    if snapshot is not None:
        undone = _undone(today, lists, ordered, set(entry_of))
        if undone:
            return Repair({}, undone)
    return Repair(fixed)


def _undone(today: list[list[int]], planned: list[list[int]], fixed: list[list[int]],
            named: set[int]) -> str | None:
    """What the fixed plan would undo of the plan as written (None: nothing): brokers it
    drains (moves of the same RF take every replica off them) getting replicas back,
    brokers it brings in (they hold none today) left with none."""
    def holders(lists, chosen):
        return {b for pid, r in enumerate(lists) if (pid in named) == chosen for b in r
                if b >= 0}
    kept = holders(today, False)  # the partitions the plan does not name
    before, after = kept | holders(today, True), kept | holders(planned, True)
    fixed_ = kept | holders(fixed, True)
    moved_off = {b for pid in named if len(planned[pid]) == len(today[pid])
                 for b in set(today[pid]) - set(planned[pid])}  # a move, not an RF change
    back = sorted((before - after) & moved_off & fixed_)
    if back:
        return (f"its only fix puts replicas back on broker {', '.join(map(str, back))}, "
                "which the plan drains")
    gone = sorted((after - before) - fixed_)
    if gone:
        return (f"its only fix moves every replica off broker {', '.join(map(str, gone))}, "
                "which the plan brings in (lint it with --add ID:RACK for brokers that join)")
    return None
