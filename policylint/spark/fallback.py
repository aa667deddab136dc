"""Any snapshot rule, built-in or from a plugin, run by the local engine: each snapshot is
rebuilt from the tables on an executor and checked as ``policylint lint`` checks it.

This is the path for a plugin rule without a Spark implementation, and the yardstick the
benchmark holds the native rules against. It is one generic Python step per snapshot.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .tables import KEY, RAW_FINDINGS, Fleet


def run_locally(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any) -> DataFrame:
    """RAW_FINDINGS of ``rules`` ((rule, options) pairs) over every snapshot of the fleet,
    under the run's ``policy``."""
    if any(rule.reads_partitions for rule, _ in rules):
        partition = F.struct("partition", "replicas", "isr", "adding", "removing", "uncertain")
        parts = fleet.partitions.groupBy(*KEY, "topic").agg(
            F.collect_list(partition).alias("partitions"))
        with_parts = fleet.topics.join(parts, KEY + ["topic"], "full")
    else:  # the rules read topics and brokers only: a fleet's rows are mostly partitions
        with_parts = fleet.topics.withColumn("partitions", F.lit(None))
    topics = with_parts.groupBy(*KEY).agg(F.collect_list(F.struct(
        F.col("topic").alias("name"), "config", "partitions")).alias("topics"))
    brokers = fleet.brokers.groupBy(*KEY).agg(
        F.collect_list(F.struct("id", "rack")).alias("brokers"))
    snapshots = (fleet.clusters.join(brokers, KEY, "left").join(topics, KEY, "left"))
    spark = fleet.clusters.sparkSession
    found = snapshots.rdd.flatMap(
        lambda row: _check(row.asDict(recursive=True), rules, policy))
    return spark.createDataFrame(found, RAW_FINDINGS)


def _check(row: dict, rules: list[tuple[Any, dict]], policy: Any) -> Iterator[tuple]:
    from ..engine import Context
    from ..sources import SourceFile, parse, snapshot

    data = {"kind": "ClusterSnapshot", "version": 1, "cluster": row["cluster"],
            "brokers": [{"id": b["id"], "rack": b["rack"]} for b in row["brokers"] or ()],
            "config": row["config"] or {},
            **({"kafka_version": row["kafka_version"]} if row["kafka_version"] else {}),
            "topics": [{"name": t["name"], "config": t["config"] or {},
                        "partitions": [_partition(p) for p in t["partitions"] or ()]}
                       for t in row["topics"] or ()]}
    doc = parse(SourceFile(row.get("source") or row["cluster"], json.dumps(data), "json"))[0]
    snap = snapshot.snapshot(doc)
    ctx = Context(policy=policy, profile=snap.profile, snapshot=snap)
    for rule, options in rules:
        for kind, target in (("snapshot", snap), ("profile", snap.profile)):
            if kind in rule.targets:
                for f in rule.check(target, ctx, options):
                    yield (rule.code, row["cluster"], row["captured_at"], f.topic, f.partition,
                           f.message, f.severity if f.severity != rule.severity else None)


def _partition(p: dict) -> dict:
    out = {"partition": p["partition"], "replicas": p["replicas"],
           "adding": p["adding"] or [], "removing": p["removing"] or []}
    if p["isr"] is not None:
        out["isr"] = p["isr"]
    if p["uncertain"]:
        out["uncertain"] = p["uncertain"]
    return out
