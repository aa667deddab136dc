"""Rules decided once per shape (``Rule.spark_frame = "configs"``).

A rule that judges a topic by its config and its cluster's release, settings and brokers,
never by the topic's name or partitions (the topic-config and cluster-config rules), gives
every topic of the same shape the same verdict. A fleet's topics share a few configs, its
clusters a few settings: the audit collects the distinct shapes, runs each rule's own
``check`` on them here, in the driver, and joins the verdicts back to every topic and
cluster of that shape. No Python worker starts, and the findings are ``lint``'s by
construction.

Each cluster shape is checked as one snapshot (named by a stand-in) holding one topic per
distinct config (each named by a stand-in): the stand-ins in the messages are replaced by
the real names. Kafka's internal topics (``__``), which the rules pass over by name, keep
theirs. A finding of no topic comes from the cluster's own check, without topics.
"""

from __future__ import annotations

import uuid
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .local import check_snapshot
from .tables import KEY, Fleet

_VERDICTS = ("_cluster_shape long, _topic_shape long, rule string, partition int, "
             "message string, severity string")


def run_by_shape(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any) -> DataFrame:
    """RAW_FINDINGS of ``rules`` ((rule, options) pairs) over the fleet's topics and
    clusters, each shape checked once."""
    spark = fleet.clusters.sparkSession
    token = uuid.uuid4().hex  # stand-ins no real name (or config value) can be
    cluster_mark, topic_mark = f"policylint-cluster.{token}", f"policylint-topic.{token}"
    brokers = fleet.brokers.groupBy(*KEY).agg(
        F.array_sort(F.collect_list(F.struct("id", "rack"))).alias("brokers"))
    clusters = (fleet.clusters.join(brokers, KEY, "left")
                .withColumn("_cluster_shape", F.xxhash64(
                    F.coalesce("kafka_version", F.lit("")), _entries("config"), "brokers")))
    name = F.when(F.col("topic").startswith("__"), F.col("topic"))  # null: a stand-in
    topics = (fleet.topics.join(F.broadcast(clusters.select(*KEY, "_cluster_shape")), KEY)
              .select(*KEY, "topic", "_cluster_shape", name.alias("_name"),
                      _entries("config").alias("_config"))
              .withColumn("_topic_shape", F.xxhash64("_name", "_config")))

    shapes: dict[int, list] = {}
    for row in (topics.select("_cluster_shape", "_topic_shape", "_name", "_config")
                .dropDuplicates(["_cluster_shape", "_topic_shape"]).collect()):
        shapes.setdefault(row._cluster_shape, []).append(row)
    of_clusters, of_topics = [], []
    for c in (clusters.select("_cluster_shape", "kafka_version", "config", "brokers")
              .dropDuplicates(["_cluster_shape"]).collect()):
        snapshot = {"cluster": cluster_mark, "captured_at": "", "source": None,
                    "kafka_version": c.kafka_version, "config": c.config,
                    "brokers": [b.asDict() for b in c.brokers] if c.brokers else None}
        for found in check_snapshot({**snapshot, "topics": None}, rules, policy):
            of_clusters.append((c._cluster_shape, None, found[0], found[4], found[5],
                                found[6]))
        each = shapes.get(c._cluster_shape, [])
        stand_ins = {t._name or f"policylint.{i}.{token}": t for i, t in enumerate(each)}
        checked = [{"name": n, "config": dict(t._config), "partitions": None}
                   for n, t in stand_ins.items()]
        for found in check_snapshot({**snapshot, "topics": checked}, rules, policy):
            topic = stand_ins.get(found[3])
            if topic is not None:  # of no topic: the check without topics said it
                message = found[5].replace(found[3], topic._name or topic_mark)
                of_topics.append((c._cluster_shape, topic._topic_shape, found[0], found[4],
                                  message, found[6]))

    def named(message: Column) -> Column:
        return F.replace(F.replace(message, F.lit(topic_mark), F.col("topic")),
                         F.lit(cluster_mark), F.col("cluster"))
    return (topics.join(F.broadcast(spark.createDataFrame(of_topics, _VERDICTS)),
                        ["_cluster_shape", "_topic_shape"])
            .select("rule", *KEY, "topic", "partition", named(F.col("message")).alias("message"),
                    "severity")
            .unionByName(
                clusters.join(F.broadcast(spark.createDataFrame(of_clusters, _VERDICTS)
                                          .drop("_topic_shape")), "_cluster_shape")
                .select("rule", *KEY, F.lit(None).cast("string").alias("topic"), "partition",
                        F.replace(F.col("message"), F.lit(cluster_mark), F.col("cluster"))
                        .alias("message"), "severity")))


def _entries(config: str) -> Column:
    """A config map as its sorted (key, value) entries: what a shape is hashed on (Spark
    hashes no maps)."""
    return F.array_sort(F.map_entries(config))
