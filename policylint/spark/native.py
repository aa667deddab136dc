"""The frames the Spark forms of rules read, and the run of those forms over a fleet.

A rule's Spark form (``Rule.spark``) is a ``Verdict`` over the rows of one frame
(``Reads.spark_frame``); the frames are built once per audit, so that the rules of a frame
share one pass:

- ``replica_sets``: each distinct replica list of a cluster (with ``removing``, so its
  ``target``) and the cluster's brokers (``broker_ids``, ``rack_of``, ``racks``). Rules that
  depend on nothing else are decided here, once per list rather than once per partition,
  and only the partitions with a failing list are joined back for their messages;
- ``partitions``: a partition (``topic``, ``partition``, ``replicas``, ``isr``, ``adding``,
  ``removing``, ``target``, ``reassigning``, ``current_rf``) with its topic's ``topic_rf``
  and ``min_isr``;
- ``topics``: per topic, ``rf_min`` (smallest current RF), ``topic_rf``, ``min_isr`` (and
  ``min_isr_default``: it is Kafka's built-in 1, nothing sets it; ``min_isr_inherited``:
  the cluster's broker default), the cluster's ``kafka_version``,
  ``rf_shares`` and ``leader_shares`` (preferred leaders per rack), with the cluster's
  ``racks`` and ``n_brokers``;
- ``clusters``: per snapshot, ``no_rack`` (brokers without a rack) and ``n_brokers``.

Every row also has ``cluster`` and ``captured_at``. Higher-order functions (lambdas) are
interpreted, not compiled: conditions avoid them where a plain function does, and messages
are built only for the rows that break a rule.
"""

from __future__ import annotations

from functools import reduce
from typing import Any, Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .expr import Verdict
from .io import in_driver
from .tables import KEY, Fleet


def cluster_brokers(fleet: Fleet) -> DataFrame:
    """Per snapshot: broker ids, broker -> rack, racks, broker defaults."""
    brokers = fleet.brokers.groupBy(*KEY).agg(
        F.sort_array(F.collect_list("id")).alias("broker_ids"),
        F.map_from_entries(F.collect_list(F.struct("id", "rack"))).alias("rack_of"),
        F.sort_array(F.collect_set("rack")).alias("racks"))
    return (fleet.clusters.select(*KEY, F.col("config").alias("cluster_config"),
                                  "kafka_version")
            .join(brokers, KEY, "left")
            .select(*KEY, "cluster_config", "kafka_version",
                    F.coalesce("broker_ids", F.array().cast("array<int>")).alias("broker_ids"),
                    F.coalesce("rack_of", F.create_map().cast("map<int,string>"))
                    .alias("rack_of"),
                    F.coalesce("racks", F.array().cast("array<string>")).alias("racks")))


def _target() -> Column:
    """KIP-860's target replicas: replicas - removing."""
    return F.expr("IF(size(removing) = 0, replicas, "
                  "filter(replicas, r -> NOT array_contains(removing, r)))")


def with_replica_state(partitions: DataFrame) -> DataFrame:
    """KIP-860 terms: target replicas (replicas - removing), reassigning, current RF."""
    return (partitions
            .withColumn("target", _target())
            .withColumn("reassigning", (F.size("adding") > 0) | (F.size("removing") > 0))
            .withColumn("current_rf", F.size("target")))


def join_on(rows: DataFrame, table: DataFrame, on: list[str], how: str = "inner",
            broadcast: bool = True) -> DataFrame:
    """``rows.join(table, on, how)``, keyed by one 64-bit hash of the ``on`` columns, which
    are compared only where it matched: as join keys of their own, Spark builds and hashes a
    row of them all (strings, arrays) for every row, which took twice as long on the
    partitions. ``table`` is sent to every executor if ``broadcast``."""
    keyed = table.select(F.xxhash64(*on).alias("_hash"), *[F.col(c).alias(f"_{c}") for c in on],
                         *[c for c in table.columns if c not in on])
    same = reduce(Column.__and__, [F.col(c) == F.col(f"_{c}") for c in on])
    # in coalesce, the comparison is a condition on the matched rows, not a join key
    return (rows.join(F.broadcast(keyed) if broadcast else keyed,
                      (F.xxhash64(*on) == F.col("_hash")) & F.coalesce(same, F.lit(False)), how)
            .drop("_hash", *[f"_{c}" for c in on]))


def topic_frame(partitions: DataFrame, fleet: Fleet, brokers: DataFrame,
                n_racks: int) -> DataFrame:
    """Per topic with partitions: what the topic-level rules and PL204/PL502 need. The
    partitions are counted per (steady RF, current RF) group, with their preferred leaders
    per rack, and each topic's few groups summed into its figures: one aggregation of the
    partitions, and lambdas only over a topic's groups (a handful), never over its
    partitions. ``n_racks``: the most racks a cluster of the fleet has."""
    # the leader's rack as its place in ``racks`` (1-based), counted in one column per place
    # (grouping on it made three times the groups); grouped on past RACK_COLUMNS racks
    # (racks named after hosts), where the columns would cost more
    racks_at = F.expr("transform_values(rack_of, (_, rack) -> "
                      "CAST(array_position(racks, rack) AS INT))")
    rack = F.expr("rack_at[try_element_at(target, 1)]")
    by_place = n_racks <= RACK_COLUMNS
    groups = (join_on(partitions, brokers.select(*KEY, racks_at.alias("rack_at")), KEY)
              .groupBy(*KEY, "topic",
                       F.when(~F.col("reassigning"), F.size("replicas")).alias("steady"),
                       F.col("current_rf").alias("rf"),
                       (F.lit(None) if by_place else rack).cast("int").alias("rack"))
              .agg(F.count("*").alias("n"), F.array(*[
                  F.count(F.when(rack == place, 1))
                  for place in range(1, n_racks + 1 if by_place else 1)
              ]).cast("array<bigint>").alias("leaders")))
    per_topic = groups.groupBy(*KEY, "topic").agg(
        F.min("rf").alias("rf_min"),
        F.collect_list(F.struct("steady", "rf", "rack", "n", "leaders")).alias("groups"))

    def share(field: str, value: str) -> str:
        """How many partitions of the topic's groups have ``field`` = ``value``."""
        return f"aggregate(filter(groups, g -> g.{field} = {value}), 0L, (a, g) -> a + g.n)"
    # the most common steady RF, ties to the smallest: the largest (n, -RF)
    topic_rf = F.expr(f"-array_max(transform(array_distinct(filter(transform(groups, "
                      f"g -> g.steady), s -> s IS NOT NULL)), "
                      f"s -> struct({share('steady', 's')} AS n, -s AS neg))).neg")
    rf_shares = F.expr(f"array_sort(transform(array_distinct(transform(groups, g -> g.rf)), "
                       f"r -> struct(r AS rf, {share('rf', 'r')} AS n)))")
    leaders_at = "aggregate(groups, 0L, (a, g) -> a + g.leaders[i])" if by_place \
        else share("rack", "i + 1")
    leaders = F.expr(f"transform(racks, (r, i) -> struct(r AS rack, {leaders_at} AS n))")
    min_isr = F.expr("try_cast(coalesce(topic_min_isr, "
                     "try_element_at(cluster_config, 'min.insync.replicas'), '1') AS INT)")
    min_isr_default = F.expr("topic_min_isr IS NULL AND "
                             "try_element_at(cluster_config, 'min.insync.replicas') IS NULL")
    min_isr_inherited = F.expr("topic_min_isr IS NULL AND try_cast(try_element_at("
                               "cluster_config, 'min.insync.replicas') AS INT) IS NOT NULL")
    # of a topic's config, only its min.insync.replicas is shuffled to its figures
    configs = fleet.topics.select(*KEY, "topic", F.expr(
        "try_element_at(config, 'min.insync.replicas')").alias("topic_min_isr"))
    return (per_topic.join(configs, KEY + ["topic"], "left").join(brokers, KEY)
            .select(*KEY, "topic", "rf_min", topic_rf.alias("topic_rf"),
                    min_isr.alias("min_isr"), min_isr_default.alias("min_isr_default"),
                    min_isr_inherited.alias("min_isr_inherited"), "kafka_version",
                    rf_shares.alias("rf_shares"), leaders.alias("leader_shares"), "racks",
                    F.size("broker_ids").alias("n_brokers")))


def cluster_frame(fleet: Fleet) -> DataFrame:
    return fleet.brokers.groupBy(*KEY).agg(
        F.sort_array(F.collect_list(F.when(F.col("rack").isNull(), F.col("id"))))
        .alias("no_rack"),
        F.count("*").alias("n_brokers"))


def findings(frame: DataFrame, verdicts: dict[str, Verdict], topic: bool = True,
             partition: bool = True,
             joined: Callable[[DataFrame], DataFrame] = lambda rows: rows) -> DataFrame:
    """RAW_FINDINGS rows of the verdicts (code -> Verdict) on one frame. Most rows break
    nothing: the others alone are ``joined`` to what only the messages read, and build
    them."""
    def tag(code: str, messages: Column) -> Column:
        return F.transform(messages, lambda m: F.struct(F.lit(code).alias("rule"),
                                                        m.alias("message")))
    # null, the common case, drops out without a lambda call
    found = F.flatten(F.array_compact(F.array(*[
        F.when(v.broken, tag(code, v.messages)) for code, v in verdicts.items()])))
    broken = reduce(Column.__or__, [v.broken for v in verdicts.values()])
    exploded = joined(frame.where(broken)).select("*", F.explode(found).alias("found"))
    return exploded.select(
        F.col("found.rule").alias("rule"), *KEY,
        (F.col("topic") if topic else F.lit(None).cast("string")).alias("topic"),
        (F.col("partition") if partition else F.lit(None).cast("int")).alias("partition"),
        F.col("found.message").alias("message"), F.lit(None).cast("string").alias("severity"))


# the most racks a fleet's clusters may have for the leaders per rack to be counted in
# columns (``topic_frame``)
RACK_COLUMNS = 16
# topics whose (topic_rf, min_isr) are sent to every executor rather than shuffled with
# the partitions: about 60 bytes each
BROADCAST_TOPICS = 500_000


def failing_replica_sets(state: DataFrame, brokers: DataFrame, rules: dict[str, Verdict]
                         ) -> DataFrame:
    """The distinct replica lists (with ``removing``) of each cluster that break a
    replica-set rule, with one ``_<code>`` flag per rule."""
    # The lists are de-duplicated on their columns alone, so that Spark hashes them: an
    # aggregate that also carried an array (the target) would sort every partition. Not
    # cached: the rules' flags are computed, not filtered on, so none is pushed below the
    # de-duplication, and building Spark's cache of these few rows takes seconds.
    sets = (state.select(*KEY, "replicas", "removing").distinct()
            .withColumn("target", _target()).join(brokers, KEY))
    return (sets.select(*KEY, "replicas", "removing",
                        *[v.broken.alias(f"_{code}") for code, v in rules.items()])
            .where(" OR ".join(f"_{code}" for code in rules)))


def run_native(fleet: Fleet, rules: list[tuple[Any, dict]], policy: Any) -> DataFrame:
    """RAW_FINDINGS of the Spark forms of ``rules`` ((rule, options) pairs) under
    ``policy``: one pass over the partitions for the replica-set and partition rules, one
    over topics, one over clusters."""
    levels: dict[str, dict[str, Verdict]] = {
        "replica_sets": {}, "partitions": {}, "topics": {}, "clusters": {}}
    for rule, options in rules:
        levels[rule.reads.spark_frame][rule.code] = rule.spark(options, policy)
    held = in_driver(cluster_brokers(fleet))
    # a projection of the driver's rows starts no job, where an aggregate would
    n_racks = max((row[0] for row in held.select(F.size("racks")).collect()), default=0)
    brokers = F.broadcast(held)
    # not cached: each pass computes these few columns again faster than it would read
    # them back from Spark's in-memory cache, which stores arrays row by row
    state = with_replica_state(fleet.partitions)
    parts = []
    topics = topic_frame(state, fleet, brokers, n_racks).persist()
    if levels["replica_sets"] or levels["partitions"]:
        per_topic = topics.select(*KEY, "topic", "topic_rf", "min_isr")
        # cached anyway: the count is cheap
        rows = join_on(state, per_topic, KEY + ["topic"],
                       broadcast=topics.count() <= BROADCAST_TOPICS)
        verdicts = dict(levels["partitions"])
        if levels["replica_sets"]:
            failing = failing_replica_sets(state, brokers, levels["replica_sets"])
            rows = join_on(rows, failing, KEY + ["replicas", "removing"], "left")
            verdicts |= {code: Verdict(F.coalesce(F.col(f"_{code}"), F.lit(False)), v.messages)
                         for code, v in levels["replica_sets"].items()}
        # the brokers (known ids, racks) are read by the replica-set rules' messages alone
        parts.append(findings(rows, verdicts, joined=lambda broken: broken.join(brokers, KEY)))
    if levels["topics"]:
        parts.append(findings(topics, levels["topics"], partition=False))
    if levels["clusters"]:
        parts.append(findings(cluster_frame(fleet), levels["clusters"], False, False))
    return reduce(DataFrame.unionByName, parts)
