"""Synthetic fleets of ClusterSnapshots with every kind of problem the snapshot rules find:
racks missing or unbalanced, under-replicated and reassigning partitions, replica sets
inflated by a describe during a reassignment, placeholders, unknown brokers, odd topic and
cluster configs (unknown, removed, invalid, broker-level keys), names Kafka refuses or whose
metric names collide, and an internal topic.
Used by the benchmark and by the Spark parity tests."""

from __future__ import annotations

import json
import random
from pathlib import Path


def snapshot(rng: random.Random, cluster: str, captured_at: str, topics: int,
             partitions: int) -> dict:
    racks = rng.choice([["a", "b", "c"], ["a", "b"], ["z"], []])
    n_brokers = rng.choice([3, 4, 6])
    brokers = [{"id": b, "rack": racks[b % len(racks)] if racks and rng.random() > 0.05
                else None} for b in range(1, n_brokers + 1)]
    config = {"min.insync.replicas": rng.choice(["1", "2", "2", "3"]),
              "default.replication.factor": rng.choice(["3", "3", "5"])}
    if rng.random() < 0.2:
        config["unclean.leader.election.enable"] = "true"
    out = []
    for t in range(topics):
        rf = rng.choice([1, 2, 3, 3, 3, 4, 7])
        parts = []
        for p in range(rng.randint(0, partitions)):
            replicas = rng.sample(range(1, n_brokers + 1), min(rf, n_brokers))
            entry: dict = {"partition": p, "replicas": replicas}
            roll = rng.random()
            if roll < 0.05:    # reassigning: one replica added, one leaving
                new = rng.randint(1, n_brokers + 1)
                entry["replicas"] = replicas + [new]
                entry["adding"], entry["removing"] = [new], replicas[:1]
            elif roll < 0.08:  # a describe during a reassignment
                entry["replicas"] = replicas + [rng.randint(1, n_brokers + 2)]
            elif roll < 0.10:  # placeholders, well-formed or not
                entry["replicas"] = replicas[:-1] + rng.choice([[-1], [-2], [-1, -2], [-1, -1]])
                if rng.random() < 0.3:
                    entry["replicas"].reverse()
            elif roll < 0.11:
                entry["replicas"] = replicas + replicas[:1]  # a broker twice
            elif roll < 0.115:
                entry["replicas"] = []
            if rng.random() < 0.9:
                isr = entry["replicas"][:]
                if rng.random() < 0.1 and len(isr) > 1:
                    isr = isr[:-1]
                entry["isr"] = [r for r in isr if r >= 0]
            parts.append(entry)
        topic = {"name": NAMES.get(t) or f"topic-{t:04d}", "partitions": parts}
        if rng.random() < 0.5:
            topic["config"] = {"min.insync.replicas": rng.choice(["1", "2", "3", 2, "4"])}
            if rng.random() < 0.4:
                topic["config"].update(rng.choice(ODD_CONFIGS))
        if t in NAMES and rng.random() < 0.5:
            continue  # the odd names come and go between captures
        out.append(topic)
    if rng.random() < 0.5:
        out.append({"name": "__consumer_offsets", "config": {"cleanup.policy": "compact"},
                    "partitions": []})
    return {"kind": "ClusterSnapshot", "version": 1, "cluster": cluster,
            "captured_at": captured_at, "kafka_version": rng.choice(["3.9.0", "4.1.0", "4.2.0"]),
            "brokers": brokers, "config": config, "topics": out}


# topic configs Kafka refuses or ignores: an unknown key, a removed one, a broker-level one,
# invalid values, a segment too small, an unclean leader election, a value Kafka 4 dropped
ODD_CONFIGS = [{"retention.msx": "1000"}, {"message.format.version": "2.8"},
               {"log.retention.hours": "1"}, {"cleanup.policy": "compact,dlete"},
               {"retention.ms": "-7"}, {"segment.bytes": "1000"},
               {"unclean.leader.election.enable": "true"},
               {"min.compaction.lag.ms": "9", "max.compaction.lag.ms": "8"},
               {"message.timestamp.difference.max.ms": "1000"}]
# names Kafka refuses or whose metric names collide (topic_0001 and topic.0001)
NAMES = {1: "topic_0001", 2: "topic.0001", 3: "topic 0003!"}


def write_fleet(root: Path, clusters: int, captures: int, topics: int, partitions: int,
                seed: int = 7) -> list[Path]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for c in range(clusters):
        for h in range(captures):
            data = snapshot(rng, f"cluster-{c:03d}", f"2026-11-21T{h:02d}:00:00Z", topics,
                            partitions)
            path = root / f"cluster-{c:03d}" / f"{h:02d}.json"
            path.parent.mkdir(exist_ok=True)
            path.write_text(json.dumps(data))
            paths.append(path)
    return paths
