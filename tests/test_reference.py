"""The partition-level and topic-level rules against a plain reading of RULES.md.

Each reference below is the catalogue's sentence written as directly as Python allows, with
no view, memo or fast path; generated fleets (random brokers, racks, reassignments, ISRs,
configs and plans) must give exactly the (rule, topic, partition) findings it gives. Two
readings the project took are written in too: a plan entry that restates a partition's
current replicas moves nothing (PL304, PL305), and a list that repeats a broker, or a plan
entry with a placeholder, is left to PL112/PL505 rather than judged for rack spread.
"""

import json
import math
import random
from collections import Counter

import pytest

from policylint.linter import lint

from conftest import BUILT_IN


def fleet(rng: random.Random) -> tuple[dict, dict]:
    brokers = list(range(1, rng.randint(3, 8)))
    n_racks = rng.randint(1, 3)

    def replicas(rf: int) -> list[int]:
        return [rng.choice([99, -1]) if rng.random() < 0.08 else rng.choice(brokers)
                for _ in range(rf)]
    topics = []
    for t in range(rng.randint(1, 4)):
        parts = []
        for p in range(rng.randint(1, 6)):
            part = {"partition": p, "replicas": replicas(rng.randint(1, 4))}
            if rng.random() < 0.8:
                part["isr"] = part["replicas"][:rng.randint(0, len(part["replicas"]))]
            if rng.random() < 0.3 and len(part["replicas"]) > 1:
                if rng.random() < 0.7:
                    part["adding"] = part["replicas"][-1:]
                if rng.random() < 0.7:
                    part["removing"] = part["replicas"][:1]
            parts.append(part)
        config = {"min.insync.replicas": str(rng.randint(1, 3))} if rng.random() < 0.7 else {}
        topics.append({"name": f"t{t}", "partitions": parts, "config": config})
    snapshot = {"kind": "ClusterSnapshot", "version": 1, "cluster": "c",
                "brokers": [{"id": b, "rack": "abc"[b % n_racks]} for b in brokers],
                "config": {"min.insync.replicas": str(rng.randint(1, 2))}, "topics": topics}
    entries = {(f"t{rng.randint(0, 4)}", rng.randint(0, 6)) for _ in range(rng.randint(1, 6))}
    plan = [{"topic": t, "partition": p, "replicas": replicas(rng.randint(1, 4))}
            for t, p in sorted(entries)]
    return snapshot, {"version": 1, "partitions": plan}


def reference(snapshot: dict, plan: dict, mode: str) -> set[tuple]:
    found = set()
    rack = {b["id"]: b["rack"] for b in snapshot["brokers"]}
    racks = set(rack.values())
    state = {(t["name"], p["partition"]): (t, p) for t in snapshot["topics"]
             for p in t["partitions"]}

    def min_isr(topic: dict | None) -> int:
        config = topic["config"] if topic else {}
        return int(config.get("min.insync.replicas")
                   or snapshot["config"].get("min.insync.replicas") or 1)

    def target(p: dict) -> list[int]:
        return [r for r in p["replicas"] if r not in p.get("removing", [])]

    def reassigning(p: dict) -> bool:
        return bool(p.get("adding") or p.get("removing"))

    def current_rf(p: dict) -> int:
        return len(target(p)) if reassigning(p) else len(p["replicas"])

    def lagging(p: dict) -> bool:
        return "isr" in p and len([r for r in p["replicas"] if r not in p.get("adding", [])]) \
            > len(p["isr"])

    def leader_skew(lists: list[list[int]]) -> int:
        leaders = Counter(dict.fromkeys(racks, 0))
        leaders.update(rack[lst[0]] for lst in lists if lst and lst[0] in rack)
        return max(leaders.values()) - min(leaders.values())

    def spread_broken(replicas: list[int], in_plan: bool) -> bool:
        real = [r for r in replicas if r >= 0]
        if len(set(real)) != len(real) or (in_plan and len(real) != len(replicas)):
            return False
        counts = Counter(rack[r] for r in real if r in rack)
        if mode == "strict":
            return len(counts) < min(len(replicas), len(racks))
        return max(counts.values(), default=0) > math.ceil(len(replicas) / len(racks))

    def judge_list(key: tuple, replicas: list[int], spread: list[int], in_plan: bool) -> None:
        brokers = [r for r in replicas if r >= 0]  # placeholders are no brokers (PL503's)
        if len(set(brokers)) != len(brokers):
            found.add(("PL112", *key))
        if any(r >= 0 and r not in rack for r in replicas):
            found.add(("PL115", *key))
        if spread_broken(spread, in_plan):
            found.add(("PL401", *key))

    for topic in snapshot["topics"]:
        name, parts = topic["name"], topic["partitions"]
        for p in parts:
            judge_list((name, p["partition"]), p["replicas"], target(p), False)
            if lagging(p):
                found.add(("PL307", name, p["partition"]))
        smallest, floor = min(map(current_rf, parts)), min_isr(topic)
        if floor > smallest:
            found.add(("PL301", name, None))
        if floor == smallest > 1:
            found.add(("PL302", name, None))
        if smallest >= 3 and floor < 2:
            found.add(("PL303", name, None))
        if len(set(map(current_rf, parts))) > 1:
            found.add(("PL205", name, None))
        steady = Counter(len(p["replicas"]) for p in parts if not reassigning(p))
        if steady:
            rf = min(n for n, k in steady.items() if k == max(steady.values()))
            found |= {("PL204", name, p["partition"]) for p in parts
                      if not reassigning(p) and len(p["replicas"]) > rf}
        if leader_skew([target(p) for p in parts]) > 1:
            found.add(("PL403", name, None))
    planned = {(m["topic"], m["partition"]): m["replicas"] for m in plan["partitions"]}
    for (name, number), replicas in planned.items():
        key, topic = (name, number), next((t for t in snapshot["topics"]
                                           if t["name"] == name), None)
        judge_list(key, replicas, replicas, True)
        rf, floor = len(replicas), min_isr(topic)
        # a plan cannot set minISR: an entry breaks PL301/PL302 only where its replica
        # count makes it so, from a current RF that did not (unknown here: unchecked)
        now = current_rf(state[key][1]) if key in state else None
        if floor > rf and now is not None and not floor > now:
            found.add(("PL301", *key))
        if floor == rf > 1 and now is not None and not floor == now:
            found.add(("PL302", *key))
        if key not in state:
            found.add(("PL116", *key))
            continue
        p = state[key][1]
        if rf != current_rf(p):
            found.add(("PL201", *key))
        if reassigning(p):
            found.add(("PL306", *key))
            if rf == len(p["replicas"]) != len(target(p)):
                found.add(("PL204", *key))
        if replicas != target(p) and "isr" in p:  # an entry that moves the partition
            if lagging(p):
                found.add(("PL305", *key))
            if len(p["isr"]) < floor:
                found.add(("PL304", *key))
    # any other partition of the cluster reassigning: the tool refuses the whole plan
    if any(reassigning(p) and (t["name"], p["partition"]) not in planned
           for t in snapshot["topics"] for p in t["partitions"]):
        found.add(("PL306", None, None))
    for topic in snapshot["topics"]:
        if any(name == topic["name"] for name, _ in planned):
            after = [planned.get((topic["name"], p["partition"]), target(p))
                     for p in topic["partitions"]]
            if len(set(map(len, after))) > 1:
                found.add(("PL205", topic["name"], None))
            if leader_skew(after) > 1:
                found.add(("PL403", topic["name"], None))
    return found


CODES = {"PL112", "PL115", "PL116", "PL201", "PL204", "PL205", "PL301", "PL302", "PL303",
         "PL304", "PL305", "PL306", "PL307", "PL401", "PL403"}


@pytest.mark.parametrize("seed", range(300))
def test_rules_find_what_the_catalogue_says(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = random.Random(seed)
    snapshot, plan = fleet(rng)
    mode = rng.choice(["strict", "even"])
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot))
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    (tmp_path / "policy.yaml").write_text(f"rules:\n  rack-spread: {{mode: {mode}}}\n")
    found = set()
    for linted, cluster in (("plan.json", "snapshot.json"), ("snapshot.json", None)):
        result = lint([linted], cluster=cluster, policy="policy.yaml", select=BUILT_IN)
        found |= {(f.rule, f.topic, f.partition) for f in result.findings
                  if f.rule in CODES and f.file == linted}
    assert found == reference(snapshot, plan, mode)


def manifests(rng: random.Random) -> tuple[dict, list[dict]]:
    """A Strimzi Kafka (its broker defaults sometimes unset) and topics whose RF and minISR
    are given as numbers, as text, as -1 or not at all."""
    defaults = {key: value for key, value in (
        ("default.replication.factor", rng.randint(1, 4)),
        ("min.insync.replicas", rng.choice([1, 2, 3, "2"]))) if rng.random() < 0.6}
    kafka = {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "Kafka",
             "metadata": {"name": "c"},
             "spec": {"kafka": {"replicas": rng.randint(1, 5), "config": defaults}}}
    topics = []
    for i in range(rng.randint(1, 6)):
        spec = {"partitions": 3}
        if (rf := rng.choice([None, -1, 1, 2, 3, 4, 5])) is not None:
            spec["replicas"] = rf
        if rng.random() < 0.7:
            spec["config"] = {"min.insync.replicas": rng.choice([1, 2, 3, 4, "2", "3"])}
        topics.append({"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaTopic",
                       "metadata": {"name": f"t{i}", "labels": {"strimzi.io/cluster": "c"}},
                       "spec": spec})
    return kafka, topics


def manifest_reference(kafka: dict, topics: list[dict]) -> set[tuple]:
    """(rule, topic, subjects): a topic's own finding (no subjects), or one finding of the
    cluster (topic None) when every topic that inherits the value breaks the rule; when only
    some of them do, each of those keeps its own finding (RULES.md, one cause)."""
    own, inherited, defaults = set(), {}, kafka["spec"]["kafka"]["config"]
    brokers = kafka["spec"]["kafka"]["replicas"]
    heirs = set()  # the topics that inherit the cluster's min.insync.replicas
    for topic in topics:
        name, spec = topic["metadata"]["name"], topic["spec"]
        if spec.get("replicas") == -1:
            continue  # Strimzi's CRD refuses -1 (PL101): the RF is unknown, not judged
        rf = spec.get("replicas", int(defaults.get("default.replication.factor", 1)))
        stated = (spec.get("config") or {}).get("min.insync.replicas")
        floor = int(stated or defaults.get("min.insync.replicas") or 1)
        if not stated:
            heirs.add(name)
        for code, broken, by_topic in (
                ("PL301", floor > rf, stated), ("PL302", floor == rf > 1, stated),
                ("PL303", rf >= 3 and floor < 2, stated),
                ("PL203", rf > brokers, "replicas" in spec),
                ("PL209", rf < 2 <= brokers, "replicas" in spec)):
            if broken and by_topic:
                own.add((code, name, ()))
            elif broken:
                inherited.setdefault(code, set()).add(name)
    for code in ("PL301", "PL302", "PL303"):  # the minISR some heirs meet: theirs to change
        if code in inherited and inherited[code] != heirs:
            own |= {(code, name, ()) for name in inherited.pop(code)}
    return own | {(code, None, tuple(sorted(names))) for code, names in inherited.items()}


@pytest.mark.parametrize("seed", range(100))
def test_manifest_rules_find_what_the_catalogue_says(seed, tmp_path, monkeypatch):
    """RF as declared, else the cluster's default, else Kafka's 1 (a -1, which Strimzi
    refuses, is not judged); minISR the topic's, else the cluster's, else 1, numbers or
    text. A value topics inherit from the cluster is one finding for all of them."""
    monkeypatch.chdir(tmp_path)
    kafka, topics = manifests(random.Random(seed))
    for document in [kafka] + topics:  # JSON is YAML
        (tmp_path / f"{document['metadata']['name']}-{document['kind']}.yaml").write_text(
            json.dumps(document))
    found = {(f.rule, f.topic, tuple(sorted(s["topic"] for s in f.subjects)))
             for f in lint(["."], select=BUILT_IN).findings
             if f.rule in {"PL203", "PL209", "PL301", "PL302", "PL303"}}
    assert found == manifest_reference(kafka, topics)
