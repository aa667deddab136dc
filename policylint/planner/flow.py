"""Minimum-cost flows (OR-Tools), as the planner solves its exact parts: leaders
(``leaders``) and, on clusters small enough, the replicas themselves (``exact``)."""

from __future__ import annotations


def solved(tails: list[int], heads: list[int], caps: list[int], costs: list[int],
           supplies: list[int], first: int) -> list[int] | None:
    """The flow on each of the ``first`` arcs of a minimum-cost flow (OR-Tools), node ``i``
    supplying ``supplies[i]``; None when it has no optimum."""
    import numpy as np
    from ortools.graph.python import min_cost_flow
    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(
        np.array(tails, dtype=np.int32), np.array(heads, dtype=np.int32),
        np.array(caps, dtype=np.int64), np.array(costs, dtype=np.int64))
    flow.set_nodes_supplies(np.arange(len(supplies), dtype=np.int32),
                            np.array(supplies, dtype=np.int64))
    if flow.solve() != flow.OPTIMAL:
        return None
    return flow.flows(np.arange(first, dtype=np.int32)).tolist()


class Arcs:
    """A flow network's arcs as ``solved`` takes them: ``add`` returns an arc's index."""

    def __init__(self) -> None:
        self.tails: list[int] = []
        self.heads: list[int] = []
        self.caps: list[int] = []
        self.costs: list[int] = []

    def add(self, tail: int, head: int, cap: int, cost: int) -> int:
        self.tails.append(tail)
        self.heads.append(head)
        self.caps.append(cap)
        self.costs.append(cost)
        return len(self.tails) - 1

    def solved(self, supplies: list[int], first: int) -> list[int] | None:
        return solved(self.tails, self.heads, self.caps, self.costs, supplies, first)
