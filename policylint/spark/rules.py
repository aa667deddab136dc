"""The built-in snapshot rules as native Spark SQL: column expressions, higher-order array
functions and aggregates, no Python UDF. Semantics are those of ``policylint.rules.kafka``
and messages are word for word those of the rule modules; the parity tests hold them to it.

Every rule is a column of messages (``array<string>``, null when the rule holds) over one of
three frames built once per audit, so that all rules of a level share one pass. Higher-order
functions are interpreted, not compiled, so each rule tests a cheap condition first and only
builds its message, lambdas and all, for the rows that break it.

- ``partitions``: a partition with its target replicas, current RF, reassigning flag, its
  cluster's brokers (``broker_ids``, ``rack_of``, ``racks``) and its topic's ``topic_rf``
  and ``min_isr``;
- ``topics``: per topic, ``rf_min`` (smallest current RF), ``topic_rf``, ``min_isr``,
  ``rf_shares`` and ``leader_racks``, with the cluster's ``racks`` and ``n_brokers``;
- ``clusters``: per snapshot, the brokers without a rack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from .tables import KEY, Fleet

def ids(column: str | Column) -> Column:
    """``[1, 2, 3]``, as ``fmt_ids`` writes a replica list."""
    column = F.col(column) if isinstance(column, str) else column
    return F.concat(F.lit("["), F.array_join(column.cast("array<string>"), ", "), F.lit("]"))


def plural(n: Column, word: str, many: str | None = None) -> Column:
    return F.when(n == 1, F.lit(word)).otherwise(F.lit(many or word + "s"))


def text(*parts: str | Column) -> Column:
    return F.concat(*[F.lit(p) if isinstance(p, str) else p.cast("string") for p in parts])


def when(condition: Column, message: Column) -> Column:
    """One message when ``condition`` holds, else null."""
    return F.when(condition, F.array(message))


def tp() -> Column:
    return text(F.col("topic"), "-", F.col("partition"))


# -- the frames ----------------------------------------------------------------------------

def cluster_brokers(fleet: Fleet) -> DataFrame:
    """Per snapshot: broker ids, broker -> rack, racks, broker defaults."""
    brokers = fleet.brokers.groupBy(*KEY).agg(
        F.sort_array(F.collect_list("id")).alias("broker_ids"),
        F.map_from_entries(F.collect_list(F.struct("id", "rack"))).alias("rack_of"),
        F.sort_array(F.collect_set("rack")).alias("racks"))
    return (fleet.clusters.select(*KEY, F.col("config").alias("cluster_config"))
            .join(brokers, KEY, "left")
            .select(*KEY, "cluster_config",
                    F.coalesce("broker_ids", F.array().cast("array<int>")).alias("broker_ids"),
                    F.coalesce("rack_of", F.create_map().cast("map<int,string>"))
                    .alias("rack_of"),
                    F.coalesce("racks", F.array().cast("array<string>")).alias("racks")))


def with_replica_state(partitions: DataFrame) -> DataFrame:
    """KIP-860 terms: target replicas (replicas - removing), reassigning, current RF."""
    return (partitions
            .withColumn("target", F.expr("IF(size(removing) = 0, replicas, "
                                         "filter(replicas, r -> NOT array_contains(removing, r)))"))
            .withColumn("reassigning", (F.size("adding") > 0) | (F.size("removing") > 0))
            .withColumn("current_rf", F.size("target")))


def _mode(values: str) -> Column:
    """The most common value of an int array (ties: the smallest); null when empty."""
    return F.expr(f"-array_max(transform(array_distinct({values}), "
                  f"v -> struct(size(filter({values}, x -> x = v)) AS n, -v AS neg))).neg")


def topic_frame(partitions: DataFrame, fleet: Fleet) -> DataFrame:
    """Per topic with partitions: what the topic-level rules and PL204/PL502 need."""
    per_topic = partitions.groupBy(*KEY, "topic").agg(
        F.min("current_rf").alias("rf_min"),
        F.collect_list(F.when(~F.col("reassigning"), F.size("replicas"))).alias("steady"),
        F.collect_list("current_rf").alias("rfs"),
        F.collect_list(F.expr("rack_of[try_element_at(target, 1)]")).alias("leader_racks"),
        F.first("racks").alias("racks"), F.first("broker_ids").alias("broker_ids"),
        F.first("cluster_config").alias("cluster_config"))
    min_isr = F.expr("try_cast(coalesce(try_element_at(config, 'min.insync.replicas'), "
                     "try_element_at(cluster_config, 'min.insync.replicas'), '1') AS INT)")
    shares = F.expr("array_sort(transform(array_distinct(rfs), "
                    "v -> struct(v AS rf, size(filter(rfs, x -> x = v)) AS n)))")
    return (per_topic.join(fleet.topics, KEY + ["topic"], "left")
            .select(*KEY, "topic", "rf_min", _mode("steady").alias("topic_rf"),
                    min_isr.alias("min_isr"), shares.alias("rf_shares"), "leader_racks",
                    "racks", F.size("broker_ids").alias("n_brokers")))


def partition_frame(partitions: DataFrame, topics: DataFrame) -> DataFrame:
    return partitions.join(topics.select(*KEY, "topic", "topic_rf", "min_isr"),
                           KEY + ["topic"])


def cluster_frame(fleet: Fleet) -> DataFrame:
    return fleet.brokers.groupBy(*KEY).agg(
        F.sort_array(F.collect_list(F.when(F.col("rack").isNull(), F.col("id")))).alias("no_rack"),
        F.count("*").alias("n_brokers"))


# -- partition rules -----------------------------------------------------------------------

def pl112(o: dict) -> Column:
    twice = F.expr("array_sort(filter(array_distinct(replicas), "
                   "b -> b >= 0 AND size(filter(replicas, x -> x = b)) > 1))")
    repeats = F.size(F.array_distinct("replicas")) < F.size("replicas")
    return when(repeats & (F.size(twice) > 0), text(
        "replicas ", ids("replicas"), " of ", tp(), " name ", plural(F.size(twice), "broker"),
        " ", F.array_join(twice.cast("array<string>"), ", "), " more than once"))


def pl113(o: dict) -> Column:
    return when(F.size("replicas") == 0, text("partition ", tp(), " has an empty replica list"))


def pl115(o: dict) -> Column:
    known = F.concat_ws(", ", F.slice("broker_ids", 1, 20).cast("array<string>"))
    known = F.when(F.size("broker_ids") > 20, text(known, ", ... (", F.size("broker_ids"),
                                                   " in all)")).otherwise(known)
    unknown = F.filter(F.array_except("replicas", "broker_ids"), lambda r: r >= 0)
    return F.when(F.size(F.array_except("replicas", "broker_ids")) > 0, F.transform(
        unknown, lambda broker: text(
            "broker ", broker, " in replicas ", ids("replicas"), " of ", tp(),
            " is not a broker of cluster ", F.col("cluster"), " (brokers: ", known, ")")))


def pl204(o: dict) -> Column:
    return when(F.col("topic_rf").isNotNull() & (F.size("replicas") > F.col("topic_rf"))
                & ~F.col("reassigning"), text(
        "partition ", tp(), " has ", F.size("replicas"), " replicas ", ids("replicas"),
        " but topic ", F.col("topic"), " has replication factor ", F.col("topic_rf"),
        ", and the snapshot has no adding/removing replicas: probably read during a "
        "reassignment (KIP-860)"))


def pl307(o: dict) -> Column:
    original = F.expr("IF(size(adding) > 0, "
                      "filter(replicas, r -> NOT array_contains(adding, r)), replicas)")
    return when(F.col("isr").isNotNull() & (F.size(original) > F.size("isr")), text(
        "partition ", tp(), " is under-replicated: ISR ", ids("isr"), " of replicas ",
        ids(original)))


def pl401(o: dict) -> Column:
    used = F.expr("filter(transform(target, r -> rack_of[r]), x -> x IS NOT NULL)")
    rf, n_racks = F.size("target"), F.size("racks")
    applies = (F.size("broker_ids") > 0) & (n_racks > 0)
    if o["mode"] == "strict":
        distinct = F.array_distinct(used)
        spans, wanted = F.size(distinct), F.least(rf, n_racks)
        named = F.when(spans > 0, F.array_join(F.sort_array(distinct), ", ")).otherwise("none")
        problem = text("span ", spans, " ", plural(spans, "rack"), " (", named, "); RF ", rf,
                       " with ", n_racks, " racks in the cluster needs ", wanted)
        broken = spans < wanted
    else:
        fullest = F.expr("array_max(transform(array_distinct(filter(transform(target, "
                         "r -> rack_of[r]), x -> x IS NOT NULL)), x -> struct(size(filter("
                         "transform(target, r -> rack_of[r]), y -> y = x)) AS n, x AS rack)))")
        ceiling = F.ceil(rf / n_racks)
        problem = text("put ", fullest["n"], " replicas in rack ", fullest["rack"],
                       "; with RF ", rf, " over ", n_racks,
                       " racks no rack should hold more than ", ceiling)
        broken = fullest.isNotNull() & (fullest["n"] > ceiling)
    return when(applies & broken, text("replicas ", ids("target"), " of ", tp(), " ", problem))


def _placeholders() -> Column:
    return F.array_min("replicas") < 0


def pl501(o: dict) -> Column:
    return when(F.lit(not o["_placeholders_enabled"]) & _placeholders(), text(
        "replicas ", ids("replicas"), " of ", tp(),
        " hold placeholder ids, but placeholders (KIP-409) are not enabled"))


def pl502(o: dict) -> Column:
    limit = o["max_per_partition"]
    real = F.size(F.filter("replicas", lambda r: r >= 0))
    held = F.size("replicas") - real
    needed = F.least(F.col("min_isr"), F.size("replicas"))
    too_few = real < needed
    problem = F.when(too_few, text("have ", real, " real ", plural(real, "replica"),
                                   ", fewer than min(min.insync.replicas, RF) = ", needed))
    broken = too_few
    if limit is not None:
        problem = problem.when(held > limit, text(
            "hold ", held, f" placeholders, more than max_per_partition={limit}"))
        broken = too_few | (held > limit)
    return when(F.lit(bool(o["_placeholders_enabled"])) & _placeholders() & broken,
                text("replicas ", ids("replicas"), " of ", tp(), " ", problem))


def pl503(o: dict) -> Column:
    held = F.filter("replicas", lambda r: r < 0)
    n = F.size(held)
    well_formed = ((F.size(F.array_distinct(held)) == n) & (F.array_min(held) == -n)
                   & (F.array_max(held) == -1))
    return when(_placeholders() & ~well_formed, text(
        "placeholders ", ids(held), " of ", tp(), " should be ",
        ids(F.sequence(F.lit(-1), -n, F.lit(-1)))))


def pl504(o: dict) -> Column:
    leader = F.element_at("replicas", 1)
    return when(_placeholders() & (leader < 0), text(
        "the preferred leader of ", tp(), " is placeholder ", leader, " (replicas ",
        ids("replicas"), ")"))


# -- topic rules ---------------------------------------------------------------------------

def pl203(o: dict) -> Column:
    return when(F.col("topic_rf").isNotNull() & (F.col("n_brokers") > 0)
                & (F.col("topic_rf") > F.col("n_brokers")), text(
        "topic ", F.col("topic"), ": replication factor ", F.col("topic_rf"),
        " is larger than the ", F.col("n_brokers"), " brokers of cluster ", F.col("cluster")))


def pl205(o: dict) -> Column:
    described = F.expr("array_join(transform(rf_shares, s -> concat('RF ', s.rf, ' (', s.n, "
                       "IF(s.n = 1, ' partition)', ' partitions)'))), ', ')")
    return when(F.size("rf_shares") > 1, text(
        "partitions of topic ", F.col("topic"), " have different replication factors: ",
        described))


def _min_isr_rule(broken: Callable[[Column, Column, dict], Column],
                  says: Callable[[dict], tuple]) -> Callable[[dict], Column]:
    def rule(o: dict) -> Column:
        rf, min_isr = F.col("rf_min"), F.col("min_isr")
        return when(rf.isNotNull() & min_isr.isNotNull() & broken(rf, min_isr, o), text(
            "topic ", F.col("topic"), ": min.insync.replicas=", min_isr, *says(o)))
    return rule


pl301 = _min_isr_rule(lambda rf, m, o: m > rf, lambda o: (
    " > replication factor ", F.col("rf_min"), ": every acks=all produce will fail"))
pl302 = _min_isr_rule(lambda rf, m, o: (m == rf) & (rf > 1), lambda o: (
    " equals the replication factor ", F.col("rf_min"),
    ": one broker down blocks acks=all producers"))
pl303 = _min_isr_rule(lambda rf, m, o: (rf >= 3) & (m < o["min"]), lambda o: (
    " with replication factor ", F.col("rf_min"),
    f": acknowledged writes may be lost (policy minimum is {o['min']})"))


def pl403(o: dict) -> Column:
    shares = F.expr("transform(racks, r -> struct(r AS rack, "
                    "size(filter(leader_racks, l -> l = r)) AS n))")
    counts = F.transform(shares, lambda s: s["n"])
    skew = F.array_max(counts) - F.array_min(counts)
    described = F.array_join(F.transform(shares, lambda s: F.concat(
        s["rack"], F.lit(": "), s["n"].cast("string"))), ", ")
    return when((F.size("racks") > 0) & (skew > o["max_skew"]), text(
        "preferred leaders of topic ", F.col("topic"), " are skewed across racks (", described,
        "); difference ", skew, f" > {o['max_skew']}"))


# -- cluster rules -------------------------------------------------------------------------

def pl402(o: dict) -> Column:
    n = F.size("no_rack")
    return when((n > 0) & (n < F.col("n_brokers")), text(
        "cluster ", F.col("cluster"), ": ", plural(n, "broker"), " ",
        F.array_join(F.col("no_rack").cast("array<string>"), ", "), " ",
        plural(n, "has", "have"), " no rack while others have one"))


@dataclass(frozen=True)
class NativeRule:
    level: str  # "partitions", "topics" or "clusters": the frame it reads
    messages: Callable[[dict], Column]


NATIVE: dict[str, NativeRule] = {
    **{code: NativeRule("partitions", fn) for code, fn in (
        ("PL112", pl112), ("PL113", pl113), ("PL115", pl115), ("PL204", pl204),
        ("PL307", pl307), ("PL401", pl401), ("PL501", pl501), ("PL502", pl502),
        ("PL503", pl503), ("PL504", pl504))},
    **{code: NativeRule("topics", fn) for code, fn in (
        ("PL203", pl203), ("PL205", pl205), ("PL301", pl301), ("PL302", pl302),
        ("PL303", pl303), ("PL403", pl403))},
    "PL402": NativeRule("clusters", pl402),
}


def findings(frame: DataFrame, rules: dict[str, Column], topic: bool, partition: bool
             ) -> DataFrame:
    """All rules of one frame in one pass: RAW_FINDINGS rows of their messages."""
    def tag(code: str, messages: Column) -> Column:
        return F.transform(messages, lambda m: F.struct(F.lit(code).alias("rule"),
                                                        m.alias("message")))
    # null (the common case) drops out without a lambda call
    found = F.flatten(F.array_compact(F.array(*[
        F.when(messages.isNotNull(), tag(code, messages)) for code, messages in rules.items()])))
    exploded = frame.select("*", F.explode(found).alias("found"))
    return exploded.select(
        F.col("found.rule").alias("rule"), *KEY,
        (F.col("topic") if topic else F.lit(None).cast("string")).alias("topic"),
        (F.col("partition") if partition else F.lit(None).cast("int")).alias("partition"),
        F.col("found.message").alias("message"))


def run_native(fleet: Fleet, options: dict[str, dict]) -> DataFrame:
    """RAW_FINDINGS of the native rules in ``options`` (code -> options)."""
    levels: dict[str, dict[str, Column]] = {"partitions": {}, "topics": {}, "clusters": {}}
    for code, opts in options.items():
        levels[NATIVE[code].level][code] = NATIVE[code].messages(opts)
    parts = []
    if levels["partitions"] or levels["topics"]:
        partitions = with_replica_state(fleet.partitions).join(
            F.broadcast(cluster_brokers(fleet)), KEY).persist()
        topics = topic_frame(partitions, fleet).persist()
        if levels["partitions"]:
            parts.append(findings(partition_frame(partitions, topics), levels["partitions"],
                                  True, True))
        if levels["topics"]:
            parts.append(findings(topics, levels["topics"], True, False))
    if levels["clusters"]:
        parts.append(findings(cluster_frame(fleet), levels["clusters"], False, False))
    result = parts[0]
    for more in parts[1:]:
        result = result.unionByName(more)
    return result
