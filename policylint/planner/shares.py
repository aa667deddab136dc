"""A broker's share of a cluster's replicas, as the placement (heuristic and exact) aims
for it and the report's lower bound counts it."""

from __future__ import annotations


def rack_shares(sizes: dict, forced: int, total: int) -> dict:
    """Each rack's share of ``total`` replicas, racks of ``sizes`` brokers: as many per
    broker everywhere, but never less than ``forced`` a rack (strict rack spread: one
    replica of each partition whose RF reaches the racks)."""
    level = _level([(n, forced) for n in sizes.values()], total)
    return {r: max(forced, level * n) for r, n in sizes.items()}


def _level(racks: list[tuple[int, int]], total: int) -> float:
    """The replicas per broker at which racks of (brokers, must hold) hold ``total``
    together, each at least what it must (water filling)."""
    low, high = 0.0, float(total)
    for _ in range(60):
        mid = (low + high) / 2
        if sum(max(f, mid * n) for n, f in racks) > total:
            high = mid
        else:
            low = mid
    return low
