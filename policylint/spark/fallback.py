"""Any snapshot rule, built-in or from a plugin, run by the local engine: each snapshot is
rebuilt from the tables on an executor and checked as ``policylint lint`` checks it.

This is the path for a plugin rule without a Spark implementation, and the yardstick the
benchmark holds the native rules against. It is one generic Python step per snapshot.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .local import check_snapshot
from .tables import KEY, RAW_FINDINGS, Fleet


def run_locally(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any,
                refused: bool = False) -> DataFrame:
    """RAW_FINDINGS of ``rules`` ((rule, options) pairs) over every snapshot of the fleet,
    under the run's ``policy``; with a PL101 for each value the schema refuses if
    ``refused``."""
    if any(rule.reads.partitions for rule, _ in rules):
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
        lambda row: check_snapshot(row.asDict(recursive=True), rules, policy, refused))
    return spark.createDataFrame(found, RAW_FINDINGS)
