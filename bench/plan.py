"""`make bench-plan`: policylint plan against Kafka's --generate placement, Yelp's
kafka-utils and the lower bound, on the scenarios of the planner's issue, side by side.

For each scenario: replicas moved, leaders changed, partitions whose racks break PL401
(strict), the most replicas one broker receives, the per-topic spread and the time.
Kafka's placement is bench/kafka_placer.py (Kafka 4.x's StripedReplicaPlacer, as
--generate uses it). kafka-utils 4.1.0 (its partition-count balancer, ``decommission`` and
``replace-broker``) runs in a virtualenv of its own under bench/out
(bench/kafka_utils_plan.py); where it cannot be installed its rows say so. The lower
bound: the replicas that must arrive for the result to hold each broker's share (within
one, the share of a rack fixed where every partition needs a replica in it) and for
every partition to span min(RF, racks) racks, whichever is larger.

    python bench/plan.py            # the small scenarios and 1,000,000 partitions
    python bench/plan.py --small    # the small scenarios only
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from kafka_placer import generate  # noqa: E402

from policylint.planner import Request, make, read_snapshot  # noqa: E402
from policylint.planner.report import figures  # noqa: E402


KAFKA_UTILS = "kafka-utils==4.1.0"
PEER_ENV = Path(__file__).parent / "out" / "kafka-utils-env"


#: how long kafka-utils may take on one scenario (it is pure Python: a million partitions
#: take it far longer)
PEER_SECONDS = 120


def kafka_utils(before: dict, brokers: dict, command: dict) -> tuple[dict, float] | str:
    """kafka-utils' proposed assignment of ``before`` over ``brokers`` (every broker it is
    told of, those leaving included) and its time; or why it did not give one."""
    python = PEER_ENV / "bin" / "python"
    if not python.exists():
        made = subprocess.run([sys.executable, "-m", "venv", str(PEER_ENV)])
        made = made.returncode == 0 and subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", KAFKA_UTILS]).returncode == 0
        if not made:
            return f"{KAFKA_UTILS} could not be installed"
    scenario = {"assignment": [[t, p, reps] for (t, p), reps in before.items()],
                "brokers": {str(b): r for b, r in brokers.items()}, **command}
    try:
        done = subprocess.run([str(python), str(Path(__file__).parent / "kafka_utils_plan.py")],
                              input=json.dumps(scenario), capture_output=True, text=True,
                              timeout=PEER_SECONDS)
    except subprocess.TimeoutExpired:
        return f"did not finish in {PEER_SECONDS} s"
    if done.returncode != 0:
        return f"kafka-utils failed: {(done.stderr.strip().splitlines() or ['?'])[-1]}"
    found = json.loads(done.stdout)
    after = dict(before)
    after.update({(t, p): reps for t, p, reps in found["assignment"]})
    return after, found["time"]


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
    held = Counter(b for reps in after.values() for b in reps)
    led = Counter(reps[0] for reps in after.values())
    return {"moved": sum(inbound.values()), "spread": topic_spread(after, brokers),
            "held": f"{min(held[b] for b in brokers)}-{max(held[b] for b in brokers)}",
            "led": f"{min(led[b] for b in brokers)}-{max(led[b] for b in brokers)}",
            "leaders": sum(1 for k in before if before[k][0] != after[k][0]),
            "racks": sum(1 for reps in after.values()
                         if racks and len({brokers.get(b) for b in reps} - {None}) <
                         min(len(reps), racks)),
            "inbound": max(inbound.values(), default=0)}


def scenario(name: str, brokers_before: dict, brokers_after: dict, topics: dict,
             request: Request, start: dict | None = None, seed: int = 1,
             peer: dict | None = None) -> None:
    """One scenario: policylint's plan, Kafka's --generate and kafka-utils (``peer``: its
    command, rebalance unless said) from the same assignment."""
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
    rows = [("policylint plan", ours), ("kafka --generate", kafka)]
    peer_run = kafka_utils(before, {**brokers_before, **brokers_after},
                           peer or {"command": "rebalance"})
    if isinstance(peer_run, str):
        rows.append(("kafka-utils 4.1.0", peer_run))
    else:
        rows.append(("kafka-utils 4.1.0", {**judge(before, peer_run[0], brokers_after),
                                          "time": peer_run[1]}))
    bound = lower_bound(before, brokers_after)
    print(f"\n{name}: {len(before):,} partitions, {len(brokers_after)} brokers "
          f"(snapshot decoded in {decode:.2f} s)")
    print(f"  {'':<20}{'moved':>10}{'leaders':>10}{'racks broken':>14}{'max inbound':>13}"
          f"{'per-topic spread':>18}{'replicas/broker':>17}{'leaders/broker':>16}{'time':>9}")
    print(f"  {'lower bound':<20}{bound:>10,}")
    start = judge(before, before, brokers_after)
    print(f"  {'before the plan':<20}{'':>47}{start['spread']:>18.2f}{start['held']:>17}"
          f"{start['led']:>16}")
    for label, row in rows:
        if isinstance(row, str):
            print(f"  {label:<20}{row}")
            continue
        print(f"  {label:<20}{row['moved']:>10,}{row['leaders']:>10,}{row['racks']:>14,}"
              f"{row['inbound']:>13,}{row['spread']:>18.2f}{row['held']:>17}{row['led']:>16}"
              f"{row['time']:>8.2f}s")
    print(f"  policylint: {ours['moved'] / max(bound, 1):.3f}x the bound")


def skewed(topics: dict, brokers: dict, hot: set, share: float, seed: int) -> dict:
    """A rack-aware assignment with ``share`` of each rack's replicas on its hot broker."""
    rng = random.Random(seed)
    by_rack: dict[str, list] = {}
    for b, rack in sorted(brokers.items()):
        by_rack.setdefault(rack, []).append(b)
    racks = sorted(by_rack)
    found = {}
    for topic, (count, rf) in topics.items():
        for p in range(count):
            chosen = []
            for rack in (racks[(p + i) % len(racks)] for i in range(rf)):
                hot_ones = [b for b in by_rack[rack] if b in hot]
                others = [b for b in by_rack[rack] if b not in hot]
                chosen.append(rng.choice(hot_ones) if hot_ones and rng.random() < share
                              else rng.choice(others))
            found[(topic, p)] = chosen
    return found


def main() -> None:
    small = {f"topic-{i:03d}": (12, 3) for i in range(200)}
    six = racks_of(6, 3)
    scenario("add 3 brokers to 6", six, {**six, **racks_of(3, 3, 7)}, small, Request())
    nine = racks_of(9, 3)
    scenario("remove 1 of 9", nine, {b: r for b, r in nine.items() if b != 9}, small,
             Request(remove=frozenset({9})),
             peer={"command": "decommission", "brokers_out": [9]})
    scenario("replace broker 5 by 10", nine, {**{b: r for b, r in nine.items() if b != 5},
                                              10: nine[5]}, small,
             Request(replace={5: 10}, racks={10: nine[5]}),
             peer={"command": "replace", "source": 5, "dest": 10})
    unaware = generate(small, dict.fromkeys(nine), 3)
    scenario("fix racks of a rack-unaware placement", nine, nine, small, Request(),
             start=unaware)
    scenario("skewed: 60% of replicas on 3 of 9 brokers", nine, nine, small, Request(),
             start=skewed(small, nine, {1, 2, 3}, 0.6, 5))
    eight = {b: "abcd"[(b - 1) // 2] for b in range(1, 9)}  # racks of 2 brokers
    uneven = {**eight, 9: "c", 10: "d"}  # then 2, 2, 3, 3
    scenario("uneven racks: add brokers to 2 of 4 racks (2,2,3,3)", eight, uneven, small,
             Request())
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
