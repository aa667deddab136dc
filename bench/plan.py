"""`make bench-plan`: policylint plan against Kafka's --generate placement and the lower
bound, on the scenarios of the planner's issue, side by side.

For each scenario: replicas moved, leaders changed, partitions whose racks break PL401
(strict), the most replicas one broker receives, and the time. Kafka's placement is
bench/kafka_placer.py (Kafka 4.x's StripedReplicaPlacer, as --generate uses it). The lower
bound: the replicas that must arrive for the result to hold each broker's share (within
one, the share of a rack fixed where every partition needs a replica in it) and for
every partition to span min(RF, racks) racks, whichever is larger.

    python bench/plan.py            # the small scenarios and 1,000,000 partitions
    python bench/plan.py --small    # the small scenarios only
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
from kafka_placer import generate  # noqa: E402

from policylint.planner import Request, make, read_snapshot  # noqa: E402
from policylint.planner.report import figures  # noqa: E402


def racks_of(n: int, racks: int, start: int = 1) -> dict[int, str]:
    return {b: f"r{(b - start) % racks:02d}" for b in range(start, start + n)}


def snapshot(path: str, brokers: dict, assignment: dict) -> None:
    topics: dict[str, list] = {}
    for (t, p), reps in sorted(assignment.items()):
        topics.setdefault(t, []).append({"partition": p, "replicas": reps, "isr": reps})
    with open(path, "w") as out:
        json.dump({"kind": "ClusterSnapshot", "version": 1, "cluster": "bench",
                   "brokers": [{"id": b, "rack": r} for b, r in sorted(brokers.items())],
                   "topics": [{"name": t, "partitions": ps} for t, ps in topics.items()]},
                  out)


def lower_bound(before: dict, brokers: dict) -> int:
    """The planner's own bound (what its report prints), of these partitions."""
    from policylint.planner.report import lower_bound as bound
    return bound(list(before.values()), brokers)


def topic_spread(assignment: dict, brokers: dict) -> float:
    """Per topic, the most minus the fewest of its replicas on a broker, averaged over
    topics: how evenly each topic's traffic is spread."""
    per: dict[str, Counter] = {}
    for (topic, _), reps in assignment.items():
        per.setdefault(topic, Counter()).update(reps)
    return sum(max(c[b] for b in brokers) - min(c[b] for b in brokers)
               for c in per.values()) / max(len(per), 1)


def judge(before: dict, after: dict, brokers: dict) -> dict:
    racks = len(set(brokers.values()) - {None})
    inbound = Counter(b for k in before for b in set(after[k]) - set(before[k]))
    return {"moved": sum(inbound.values()), "spread": topic_spread(after, brokers),
            "leaders": sum(1 for k in before if before[k][0] != after[k][0]),
            "racks": sum(1 for reps in after.values()
                         if racks and len({brokers.get(b) for b in reps} - {None}) <
                         min(len(reps), racks)),
            "inbound": max(inbound.values(), default=0)}


def scenario(name: str, brokers_before: dict, brokers_after: dict, topics: dict,
             request: Request, start: dict | None = None, seed: int = 1) -> None:
    before = start or generate(topics, brokers_before, seed)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "snapshot.json")
        snapshot(path, {**brokers_before, **brokers_after}, before)
        t = time.perf_counter()
        snap = read_snapshot(path)
        decode = time.perf_counter() - t
        t = time.perf_counter()
        made = make(snap, request)
        took = time.perf_counter() - t
    after = {k: made.after[i] for i, k in enumerate(made.keys)}
    ours = judge(before, after, brokers_after)
    ours["time"] = took
    assert figures(made)["replicas_moved"] == ours["moved"]
    t = time.perf_counter()
    kafka_after = generate(topics, brokers_after, seed + 1)
    kafka = judge(before, kafka_after, brokers_after)
    kafka["time"] = time.perf_counter() - t
    bound = lower_bound(before, brokers_after)
    per_broker = Counter(b for reps in after.values() for b in reps)
    leads = Counter(reps[0] for reps in after.values())
    print(f"\n{name}: {len(before):,} partitions, {len(brokers_after)} brokers "
          f"(snapshot decoded in {decode:.2f} s)")
    print(f"  {'':<22}{'moved':>10}{'leaders':>10}{'racks broken':>14}{'max inbound':>13}"
          f"{'per-topic spread':>18}{'time':>9}")
    print(f"  {'lower bound':<22}{bound:>10,}")
    print(f"  {'before the plan':<22}{'':>47}{topic_spread(before, brokers_after):>18.2f}")
    for label, row in (("policylint plan", ours), ("kafka --generate", kafka)):
        print(f"  {label:<22}{row['moved']:>10,}{row['leaders']:>10,}{row['racks']:>14,}"
              f"{row['inbound']:>13,}{row['spread']:>18.2f}{row['time']:>8.2f}s")
    def spread(counts: Counter) -> str:
        return f"{min(counts[b] for b in brokers_after)}-{max(counts[b] for b in brokers_after)}"
    print(f"  policylint: {ours['moved'] / max(bound, 1):.3f}x the bound; replicas per broker "
          f"{spread(per_broker)}, leaders per broker {spread(leads)}")


def main() -> None:
    small = {f"topic-{i:03d}": (12, 3) for i in range(200)}
    six = racks_of(6, 3)
    scenario("add 3 brokers to 6", six, {**six, **racks_of(3, 3, 7)}, small, Request())
    nine = racks_of(9, 3)
    scenario("remove 1 of 9", nine, {b: r for b, r in nine.items() if b != 9}, small,
             Request(remove=frozenset({9})))
    scenario("replace broker 5 by 10", nine, {**{b: r for b, r in nine.items() if b != 5},
                                              10: nine[5]}, small,
             Request(replace={5: 10}, racks={10: nine[5]}))
    unaware = generate(small, dict.fromkeys(nine), 3)
    scenario("fix racks of a rack-unaware placement", nine, nine, small, Request(),
             start=unaware)
    if "--small" in sys.argv:
        return
    big = {f"topic-{i:05d}": (100, 3) for i in range(10_000)}
    all_ = racks_of(1000, 20)
    first = {b: r for b, r in all_.items() if b <= 980}
    scenario("1,000,000 partitions: add 20 brokers to 980 (20 racks)", first, all_, big,
             Request())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2
    print(f"  peak memory of the bench process: {peak:.2f} GB")


if __name__ == "__main__":
    main()
