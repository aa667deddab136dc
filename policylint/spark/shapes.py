"""Rules whose own ``check`` decides in the driver, on what Spark narrows the fleet to.

**Once per shape** (``Reads.spark_frame = "configs"``).

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

**On suspects** (``Reads.spark_frame = "names"``). A rule that judges topics by their names
or partition counts (PL701-PL703) gives, as its Spark form, a condition over the rows of the
``names`` frame (``cluster``, ``captured_at``, ``topic``, ``twins``: how many topics of its
snapshot share its metric name, ``.`` read as ``_``; and ``partitions``, their count, for a
rule that reads partitions) that every topic it may report meets. Spark picks those,
a few of a fleet; the rule's ``check`` judges them, per snapshot, in the driver. The
condition must also pick every topic a verdict reads: PL702's collisions read the twins,
which are picked together.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from functools import reduce
from typing import Any

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from .io import in_driver
from .local import check_snapshot
from .tables import KEY, RAW_FINDINGS, Fleet

_VERDICTS = ("_cluster_shape long, _topic_shape long, rule string, partition int, "
             "message string, severity string")


def run_by_shape(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any,
                 refused: bool = False) -> DataFrame:
    """RAW_FINDINGS of ``rules`` ((rule, options) pairs) over the fleet's topics and
    clusters, each shape checked once; with a PL101 for each value the schema refuses if
    ``refused``."""
    spark = fleet.clusters.sparkSession
    token = uuid.uuid4().hex  # stand-ins no real name (or config value) can be
    cluster_mark, topic_mark = f"policylint-cluster.{token}", f"policylint-topic.{token}"
    clusters = in_driver(fleet.clusters.join(_brokers(fleet), KEY, "left")
                         .withColumn("_cluster_shape", F.xxhash64(
                             F.coalesce("kafka_version", F.lit("")), _entries("config"),
                             "brokers")))
    name = F.when(F.col("topic").startswith("__"), F.col("topic"))  # null: a stand-in
    topics = (fleet.topics.join(F.broadcast(clusters.select(*KEY, "_cluster_shape")), KEY)
              .select(*KEY, "topic", "_cluster_shape", name.alias("_name"),
                      _entries("config").alias("_config"))
              .withColumn("_topic_shape", F.xxhash64("_name", "_config")))

    shapes = defaultdict(list)
    for row in (topics.select("_cluster_shape", "_topic_shape", "_name", "_config")
                .dropDuplicates(["_cluster_shape", "_topic_shape"]).collect()):
        shapes[row._cluster_shape].append(row)
    of_clusters, of_topics = [], []
    for c in (clusters.select("_cluster_shape", "kafka_version", "config", "brokers")
              .dropDuplicates(["_cluster_shape"]).collect()):
        snapshot = {"cluster": cluster_mark, "captured_at": "", "source": None,
                    "kafka_version": c.kafka_version, "config": c.config,
                    "brokers": [b.asDict() for b in c.brokers] if c.brokers else None}
        for found in check_snapshot({**snapshot, "topics": None}, rules, policy, refused):
            of_clusters.append((c._cluster_shape, None, found[0], found[4], found[5],
                                found[6]))
        each = shapes.get(c._cluster_shape, [])
        stand_ins = {t._name or f"policylint.{i}.{token}": t for i, t in enumerate(each)}
        checked = [{"name": n, "config": dict(t._config), "partitions": None}
                   for n, t in stand_ins.items()]
        for found in check_snapshot({**snapshot, "topics": checked}, rules, policy,
                                    refused):
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
            .select("rule", *KEY, "topic", "partition",
                    named(F.col("message")).alias("message"), "severity")
            .unionByName(
                clusters.join(F.broadcast(spark.createDataFrame(of_clusters, _VERDICTS)
                                          .drop("_topic_shape")), "_cluster_shape")
                .select("rule", *KEY, F.lit(None).cast("string").alias("topic"), "partition",
                        F.replace(F.col("message"), F.lit(cluster_mark), F.col("cluster"))
                        .alias("message"), "severity")))


def _brokers(fleet: Fleet) -> DataFrame:
    """Per snapshot, its brokers as (id, rack) in order: part of a cluster's shape."""
    return fleet.brokers.groupBy(*KEY).agg(
        F.array_sort(F.collect_list(F.struct("id", "rack"))).alias("brokers"))


def _entries(config: str) -> Column:
    """A config map as its sorted (key, value) entries: what a shape is hashed on (Spark
    hashes no maps)."""
    return F.array_sort(F.map_entries(config))


def run_on_suspects(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any) -> DataFrame:
    """RAW_FINDINGS of ``rules`` ((rule, options) pairs of the ``names`` frame): each
    snapshot's suspects, picked by the rules' Spark forms, judged by their ``check`` (with
    their partitions for a rule that reads them, as the generic path gives them)."""
    parts = [_on_suspects(fleet, some, policy, reads) for reads in (True, False)
             if (some := [(r, o) for r, o in rules if r.reads.partitions == reads])]
    return reduce(DataFrame.unionByName, parts)


def _on_suspects(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any,
                 with_partitions: bool) -> DataFrame:
    spark = fleet.clusters.sparkSession
    topics = fleet.topics
    if with_partitions:  # a topic of the partitions table alone is a topic too
        counts = fleet.partitions.groupBy(*KEY, "topic").agg(F.count("*").alias("partitions"))
        topics = topics.join(counts, KEY + ["topic"], "full").fillna(0, ["partitions"])
    metric = F.replace(F.col("topic"), F.lit("."), F.lit("_"))
    names = topics.withColumn("twins", F.count("*").over(Window.partitionBy(*KEY, metric)))
    suspect = reduce(Column.__or__, [rule.spark(options, policy) for rule, options in rules])
    picked = names.where(suspect).select(*KEY, "topic", "config").collect()
    if not picked:
        return spark.createDataFrame([], RAW_FINDINGS)
    parts = defaultdict(list)
    if with_partitions:
        keys = spark.createDataFrame([(t.cluster, t.captured_at, t.topic) for t in picked],
                                     "cluster string, captured_at string, topic string")
        for p in fleet.partitions.join(F.broadcast(keys), KEY + ["topic"],
                                       "left_semi").collect():
            parts[(p.cluster, p.captured_at, p.topic)].append(p.asDict())
    suspects = defaultdict(list)
    for t in picked:
        suspects[(t.cluster, t.captured_at)].append(
            {"name": t.topic, "config": t.config,
             "partitions": parts.get((t.cluster, t.captured_at, t.topic))})
    wanted = spark.createDataFrame(list(suspects), "cluster string, captured_at string")
    found = []
    for c in (fleet.clusters.join(F.broadcast(wanted), KEY, "left_semi")
              .join(_brokers(fleet), KEY, "left").collect()):
        snapshot = {**c.asDict(recursive=True), "topics": suspects[(c.cluster, c.captured_at)]}
        found.extend(check_snapshot(snapshot, rules, policy))  # refusals: the shapes' say
    return spark.createDataFrame(found, RAW_FINDINGS)
