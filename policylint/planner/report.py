"""What a plan does, in figures and per broker, as ``policylint plan`` prints it."""

from __future__ import annotations

from collections import Counter

from ..words import amount, count
from .shares import rack_shares


def moved(before: list[int], after: list[int]) -> int:
    """Replicas that arrive on a broker that did not hold the partition."""
    return len(set(after) - set(before))


def figures(made, sizes: list[int] | None = None) -> dict:
    """Replicas moved, leaders changed, bytes to move, the largest inbound of a broker."""
    inbound: Counter = Counter()
    data = 0
    for i in made.changed:
        arriving = set(made.after[i]) - set(made.before[i])
        inbound.update(arriving)
        data += (sizes[i] if sizes else 0) * len(arriving)
    return {"partitions": len(made.changed), "replicas_moved": sum(inbound.values()),
            "leaders_changed": made.leaders_changed, "bytes_moved": data if sizes else None,
            "max_inbound": max(inbound.values(), default=0)}


def _per_broker(lists: list[list[int]], sizes: list[int] | None) -> tuple[Counter, ...]:
    replicas, leaders, data = Counter(), Counter(), Counter()
    for i, reps in enumerate(lists):
        replicas.update(reps)
        if reps:
            leaders[reps[0]] += 1
        if sizes:
            for b in reps:
                data[b] += sizes[i]
    return replicas, leaders, data


def text(made, what: str, sizes: list[int] | None, batches: list, throttle: int | None) -> str:
    f = figures(made, sizes)
    lines = [f"policylint plan: {what}",
             f"  {count(f['partitions'], 'partition')} of {len(made.keys):,} change: "
             f"{count(f['replicas_moved'], 'replica')} move, "
             f"{count(f['leaders_changed'], 'preferred leader')} change"
             + (f", {amount(f['bytes_moved'])} to copy" if sizes else
                " (sizes unknown: give --log-dirs for the data to move)")]
    bound = lower_bound(made.before, made.brokers, made.balance)
    if f["replicas_moved"] or bound:
        gap = f["replicas_moved"] - bound
        lines.append(f"  at least {count(bound, 'replica move')} are needed (a lower bound); "
                     + ("this plan makes no more" if gap <= 0 else
                        f"this plan makes {gap:,} more ({f['replicas_moved'] / max(bound, 1):.3f}"
                        "x the bound)"))
    before = _per_broker(made.before, sizes)
    after = _per_broker(made.after, sizes)
    brokers = sorted(set(made.brokers) | set(before[0]) - {b for b in before[0] if b < 0})
    racks = {b: made.brokers.get(b) for b in brokers}
    header = f"  {'broker':>8}  {'rack':<10} {'replicas':>15} {'leaders':>13}" + \
        (f" {'data':>23} {'receives':>10} {'sends':>10}" if sizes else "")
    receives, sends = Counter(), Counter()
    for i in made.changed if sizes else ():
        arriving = set(made.after[i]) - set(made.before[i])
        receives.update({b: sizes[i] for b in arriving})
        if arriving and made.before[i]:  # the leader today sends each new replica its copy
            sends[made.before[i][0]] += sizes[i] * len(arriving)
    lines.append(header)
    for b in brokers:
        row = f"  {b:>8}  {str(racks[b] if racks[b] is not None else '-')[:10]:<10} " \
              f"{before[0][b]:>6} -> {after[0][b]:<6} {before[1][b]:>5} -> {after[1][b]:<5}"
        if sizes:
            row += f" {amount(before[2][b]):>10} -> {amount(after[2][b]):<10}" \
                   f" {amount(receives[b]):>10} {amount(sends[b]):>10}"
        if b not in made.brokers:
            row += "  (leaves)"
        lines.append(row.rstrip())
    for why, n in sorted(made.left.items()):
        lines.append(f"  left as they are: {count(n, 'partition')} {why}")
    for i, why in sorted(made.stuck.items()):
        t, p = made.keys[i]
        lines.append(f"  not placed: {t}-{p}: {why}")
    if len(batches) > 1 or throttle:
        for k, batch in enumerate(batches, 1):
            most = max(batch.inbound.values(), default=0)
            line = f"  batch {k}: {count(len(batch.entries), 'partition')}, at most " \
                   f"{count(most, 'replica')} into one broker"
            if sizes:
                line += f", {amount(batch.data)} to copy"
                if throttle and batch.data:
                    busiest = max(_sides(made, batch, sizes), default=0)
                    line += f", about {busiest / throttle / 60:.0f} min at {amount(throttle)}/s"
            lines.append(line)
    return "\n".join(lines) + "\n"


def _sides(made, batch, sizes) -> list[int]:
    """The bytes each broker receives and each sends in ``batch``: Kafka throttles both, the
    followers that fetch (follower rate) and the leaders they fetch from (leader rate), so
    the busiest of either side sets the batch's time."""
    receives, sends = Counter(), Counter()
    for i in batch.entries:
        new = set(made.after[i]) - set(made.before[i])
        receives.update({b: sizes[i] for b in new})
        if new and made.before[i]:
            sends[made.before[i][0]] += sizes[i] * len(new)
    return [*receives.values(), *sends.values()]


def lower_bound(before: list[list[int]], brokers: dict[int, str | None],
                balance: bool = True) -> int:
    """Replica moves no plan of this goal can do with fewer: those that must leave brokers
    the result may not use or racks the rule does not allow, and (balancing) the replicas
    the brokers below their share must receive."""
    racks = sorted(set(brokers.values()) - {None})
    k = len(racks)
    members: dict = {}
    for b, r in brokers.items():
        members.setdefault(r, []).append(b)
    must = 0
    for reps in before:
        here = [b for b in reps if b in brokers]
        must += len(reps) - len(here)
        if k:
            must += max(0, min(len(reps), k) - len({brokers[b] for b in here}) -
                        (len(reps) - len(here)))
    if not balance:
        return must
    load = Counter(b for reps in before for b in reps if b in brokers)
    # each broker's share as the placement sets it (whole replicas, floored)
    groups = members if k else {None: list(brokers)}
    forced = sum(1 for reps in before if len(reps) >= k) if k else 0
    shares = rack_shares({r: len(m) for r, m in groups.items()}, forced,
                         sum(len(r) for r in before))
    return max(must, sum(max(0, int(shares[r]) // len(m) - load[b])
                         for r, m in groups.items() for b in m))
