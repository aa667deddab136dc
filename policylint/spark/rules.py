"""The built-in snapshot rules as native Spark SQL: column expressions, higher-order array
functions and aggregates, no Python UDF. Semantics are those of ``policylint.rules.kafka``
and messages are word for word those of the rule modules; the parity tests hold them to it.

Every rule is a ``Verdict``: a condition and the messages (``array<string>``) of a row that
meets it, over one of the frames built once per audit, so that the rules of a level share
one pass:

- ``replica_sets``: each distinct replica list of a cluster (with ``removing``, so its
  target) and the cluster's brokers (``broker_ids``, ``rack_of``, ``racks``). Rules that
  depend on nothing else are decided here, once per list rather than once per partition,
  and only the partitions with a failing list are joined back for their messages;
- ``partitions``: a partition with its current RF, reassigning flag and its topic's
  ``topic_rf`` and ``min_isr``;
- ``topics``: per topic, ``rf_min`` (smallest current RF), ``topic_rf``, ``min_isr``,
  ``rf_shares`` and ``leader_shares`` (preferred leaders per rack), with the cluster's
  ``racks`` and ``n_brokers``;
- ``clusters``: per snapshot, the brokers without a rack.

Higher-order functions (lambdas) are interpreted, not compiled: conditions avoid them where
a plain function does, and messages are built only for the rows that break a rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
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


@dataclass(frozen=True)
class Verdict:
    broken: Column    # the row breaks the rule
    messages: Column  # array<string>: what to say about it (evaluated only where broken)


def one(broken: Column, message: Column) -> Verdict:
    return Verdict(broken, F.array(message))


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
            .withColumn("target", F.expr(
                "IF(size(removing) = 0, replicas, "
                "filter(replicas, r -> NOT array_contains(removing, r)))"))
            .withColumn("reassigning", (F.size("adding") > 0) | (F.size("removing") > 0))
            .withColumn("current_rf", F.size("target")))


def _tally(values: str) -> str:
    """SQL: (value, partitions) for each distinct ``values`` of a topic's ``groups``."""
    return (f"transform(array_distinct(filter(transform(groups, g -> g.{values}), "
            f"v -> v IS NOT NULL)), v -> struct(v AS value, aggregate(filter(groups, "
            f"g -> g.{values} = v), 0L, (n, g) -> n + g.partitions) AS n))")


def topic_frame(partitions: DataFrame, fleet: Fleet, brokers: DataFrame) -> DataFrame:
    """Per topic with partitions: what the topic-level rules and PL204/PL502 need. The
    partitions are first counted per (RF, leader rack) group, so that the per-topic
    arithmetic runs over a handful of groups, not over every partition."""
    leader = F.expr("rack_of[try_element_at(target, 1)]")
    groups = (partitions.join(brokers.select(*KEY, "rack_of"), KEY)
              .groupBy(*KEY, "topic",
                       F.when(~F.col("reassigning"), F.size("replicas")).alias("steady"),
                       "current_rf", leader.alias("leader_rack"))
              .agg(F.count("*").alias("partitions")))
    per_topic = groups.groupBy(*KEY, "topic").agg(
        F.min("current_rf").alias("rf_min"),
        F.collect_list(F.struct("steady", "current_rf", "leader_rack", "partitions"))
        .alias("groups"))
    # the most common steady RF, ties to the smallest: the largest (n, -value)
    topic_rf = F.expr(f"-array_max(transform({_tally('steady')}, "
                      "t -> struct(t.n AS n, -t.value AS neg))).neg")
    rf_shares = F.expr(f"array_sort(transform({_tally('current_rf')}, "
                       "t -> struct(t.value AS rf, t.n AS n)))")
    leaders = F.expr("transform(racks, r -> struct(r AS rack, aggregate(filter(groups, "
                     "g -> g.leader_rack = r), 0L, (n, g) -> n + g.partitions) AS n))")
    min_isr = F.expr("try_cast(coalesce(try_element_at(config, 'min.insync.replicas'), "
                     "try_element_at(cluster_config, 'min.insync.replicas'), '1') AS INT)")
    return (per_topic.join(fleet.topics, KEY + ["topic"], "left").join(brokers, KEY)
            .select(*KEY, "topic", "rf_min", topic_rf.alias("topic_rf"),
                    min_isr.alias("min_isr"), rf_shares.alias("rf_shares"),
                    leaders.alias("leader_shares"), "racks",
                    F.size("broker_ids").alias("n_brokers")))


def cluster_frame(fleet: Fleet) -> DataFrame:
    return fleet.brokers.groupBy(*KEY).agg(
        F.sort_array(F.collect_list(F.when(F.col("rack").isNull(), F.col("id"))))
        .alias("no_rack"),
        F.count("*").alias("n_brokers"))


# -- replica-set and partition rules ---------------------------------------------------

def pl112(o: dict, placeholders: bool) -> Verdict:
    twice = F.expr("array_sort(filter(array_distinct(replicas), "
                   "b -> b >= 0 AND size(filter(replicas, x -> x = b)) > 1))")
    return one(F.size(twice) > 0, text(
        "replicas ", ids("replicas"), " of ", tp(), " name ", plural(F.size(twice), "broker"),
        " ", F.array_join(twice.cast("array<string>"), ", "), " more than once"))


def pl113(o: dict, placeholders: bool) -> Verdict:
    return one(F.size("replicas") == 0, text("partition ", tp(), " has an empty replica list"))


def pl115(o: dict, placeholders: bool) -> Verdict:
    known = F.concat_ws(", ", F.slice("broker_ids", 1, 20).cast("array<string>"))
    known = F.when(F.size("broker_ids") > 20, text(known, ", ... (", F.size("broker_ids"),
                                                   " in all)")).otherwise(known)
    unknown = F.filter(F.array_except("replicas", "broker_ids"), lambda r: r >= 0)
    return Verdict(F.size(unknown) > 0, F.transform(unknown, lambda broker: text(
        "broker ", broker, " in replicas ", ids("replicas"), " of ", tp(),
        " is not a broker of cluster ", F.col("cluster"), " (brokers: ", known, ")")))


def pl204(o: dict, placeholders: bool) -> Verdict:
    return one(F.col("topic_rf").isNotNull() & (F.size("replicas") > F.col("topic_rf"))
                & ~F.col("reassigning"), text(
        "partition ", tp(), " has ", F.size("replicas"), " replicas ", ids("replicas"),
        " but topic ", F.col("topic"), " has replication factor ", F.col("topic_rf"),
        ", and the snapshot has no adding/removing replicas: probably read during a "
        "reassignment (KIP-860)"))


def pl307(o: dict, placeholders: bool) -> Verdict:
    original = F.expr("IF(size(adding) > 0, "
                      "filter(replicas, r -> NOT array_contains(adding, r)), replicas)")
    return one(F.col("isr").isNotNull() & (F.size(original) > F.size("isr")), text(
        "partition ", tp(), " is under-replicated: ISR ", ids("isr"), " of replicas ",
        ids(original)))


def pl401(o: dict, placeholders: bool) -> Verdict:
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
    return one(applies & broken, text("replicas ", ids("target"), " of ", tp(), " ", problem))


def _placeholders() -> Column:
    return F.array_min("replicas") < 0


def pl501(o: dict, placeholders: bool) -> Verdict:
    return one(F.lit(not placeholders) & _placeholders(), text(
        "replicas ", ids("replicas"), " of ", tp(),
        " hold placeholder ids, but placeholders (KIP-409) are not enabled"))


def pl502(o: dict, placeholders: bool) -> Verdict:
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
    return one(F.lit(placeholders) & _placeholders() & broken,
                text("replicas ", ids("replicas"), " of ", tp(), " ", problem))


def pl503(o: dict, placeholders: bool) -> Verdict:
    held = F.filter("replicas", lambda r: r < 0)
    n = F.size(held)
    well_formed = ((F.size(F.array_distinct(held)) == n) & (F.array_min(held) == -n)
                   & (F.array_max(held) == -1))
    return one(_placeholders() & ~well_formed, text(
        "placeholders ", ids(held), " of ", tp(), " should be ",
        ids(F.sequence(F.lit(-1), -n, F.lit(-1)))))


def pl504(o: dict, placeholders: bool) -> Verdict:
    leader = F.element_at("replicas", 1)
    return one(_placeholders() & (leader < 0), text(
        "the preferred leader of ", tp(), " is placeholder ", leader, " (replicas ",
        ids("replicas"), ")"))


# -- topic rules ---------------------------------------------------------------------------

def pl203(o: dict, placeholders: bool) -> Verdict:
    return one(F.col("topic_rf").isNotNull() & (F.col("n_brokers") > 0)
                & (F.col("topic_rf") > F.col("n_brokers")), text(
        "topic ", F.col("topic"), ": replication factor ", F.col("topic_rf"),
        " is larger than the ", F.col("n_brokers"), " brokers of cluster ", F.col("cluster")))


def pl205(o: dict, placeholders: bool) -> Verdict:
    described = F.expr("array_join(transform(rf_shares, s -> concat('RF ', s.rf, ' (', s.n, "
                       "IF(s.n = 1, ' partition)', ' partitions)'))), ', ')")
    return one(F.size("rf_shares") > 1, text(
        "partitions of topic ", F.col("topic"), " have different replication factors: ",
        described))


def _min_isr_rule(broken: Callable[[Column, Column, dict], Column],
                  says: Callable[[dict], tuple]) -> Callable[[dict, bool], Verdict]:
    def rule(o: dict, placeholders: bool) -> Verdict:
        rf, min_isr = F.col("rf_min"), F.col("min_isr")
        return one(rf.isNotNull() & min_isr.isNotNull() & broken(rf, min_isr, o), text(
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


def pl403(o: dict, placeholders: bool) -> Verdict:
    counts = F.transform("leader_shares", lambda s: s["n"])
    skew = F.array_max(counts) - F.array_min(counts)
    described = F.array_join(F.transform("leader_shares", lambda s: F.concat(
        s["rack"], F.lit(": "), s["n"].cast("string"))), ", ")
    return one((F.size("racks") > 0) & (skew > o["max_skew"]), text(
        "preferred leaders of topic ", F.col("topic"), " are skewed across racks (", described,
        "); difference ", skew, f" > {o['max_skew']}"))


# -- cluster rules -------------------------------------------------------------------------

def pl402(o: dict, placeholders: bool) -> Verdict:
    n = F.size("no_rack")
    return one((n > 0) & (n < F.col("n_brokers")), text(
        "cluster ", F.col("cluster"), ": ", plural(n, "broker"), " ",
        F.array_join(F.col("no_rack").cast("array<string>"), ", "), " ",
        plural(n, "has", "have"), " no rack while others have one"))


@dataclass(frozen=True)
class NativeRule:
    level: str  # the frame it reads: replica_sets, partitions, topics or clusters
    verdict: Callable[[dict, bool], Verdict]  # (options, placeholders enabled)


NATIVE: dict[str, NativeRule] = {
    **{code: NativeRule("replica_sets", fn) for code, fn in (
        ("PL112", pl112), ("PL113", pl113), ("PL115", pl115), ("PL401", pl401),
        ("PL501", pl501), ("PL503", pl503), ("PL504", pl504))},
    **{code: NativeRule("partitions", fn) for code, fn in (
        ("PL204", pl204), ("PL307", pl307), ("PL502", pl502))},
    **{code: NativeRule("topics", fn) for code, fn in (
        ("PL203", pl203), ("PL205", pl205), ("PL301", pl301), ("PL302", pl302),
        ("PL303", pl303), ("PL403", pl403))},
    "PL402": NativeRule("clusters", pl402),
}


def findings(frame: DataFrame, rules: dict[str, Column], topic: bool = True,
             partition: bool = True) -> DataFrame:
    """RAW_FINDINGS rows of the messages (code -> array<string> or null) of one frame."""
    def tag(code: str, messages: Column) -> Column:
        return F.transform(messages, lambda m: F.struct(F.lit(code).alias("rule"),
                                                        m.alias("message")))
    # null, the common case, drops out without a lambda call
    found = F.flatten(F.array_compact(F.array(*[
        F.when(messages.isNotNull(), tag(code, messages)) for code, messages in rules.items()])))
    exploded = frame.select("*", F.explode(found).alias("found"))
    return exploded.select(
        F.col("found.rule").alias("rule"), *KEY,
        (F.col("topic") if topic else F.lit(None).cast("string")).alias("topic"),
        (F.col("partition") if partition else F.lit(None).cast("int")).alias("partition"),
        F.col("found.message").alias("message"))


def judged(verdicts: dict[str, Verdict]) -> dict[str, Column]:
    return {code: F.when(v.broken, v.messages) for code, v in verdicts.items()}


# topics whose (topic_rf, min_isr) are sent to every executor rather than shuffled with
# the partitions: about 60 bytes each
BROADCAST_TOPICS = 500_000


def failing_replica_sets(state: DataFrame, brokers: DataFrame, rules: dict[str, Verdict]
                         ) -> DataFrame:
    """The distinct replica lists of each cluster that break a replica-set rule, with one
    ``_<code>`` flag per rule; columns are prefixed with ``_`` and ``_failing_set`` is the
    hash of replicas and removing (``_set``) that the partitions join on."""
    # cached: the conditions must run on the distinct lists; the optimizer would otherwise
    # push those that read only the list below the de-duplication, onto every partition
    sets = (state.select(*KEY, "_set", "replicas", "removing", "target")
            .dropDuplicates(KEY + ["_set", "replicas", "removing"]).join(brokers, KEY)
            .persist())
    return (sets.select(*[F.col(k).alias(f"_{k}") for k in KEY + ["replicas", "removing"]],
                        F.col("_set").alias("_failing_set"),
                        *[v.broken.alias(f"_{code}") for code, v in rules.items()])
            .where(" OR ".join(f"_{code}" for code in rules)))


def run_native(fleet: Fleet, options: dict[str, dict], placeholders: bool) -> DataFrame:
    """RAW_FINDINGS of the native rules in ``options`` (code -> options), with KIP-409
    placeholders enabled or not: one pass over the
    partitions for the replica-set and partition rules, one over topics, one over clusters."""
    levels: dict[str, dict[str, Verdict]] = {
        "replica_sets": {}, "partitions": {}, "topics": {}, "clusters": {}}
    for code, opts in options.items():
        levels[NATIVE[code].level][code] = NATIVE[code].verdict(opts, placeholders)
    brokers = F.broadcast(cluster_brokers(fleet))
    state = (with_replica_state(fleet.partitions)
             .withColumn("_set", F.xxhash64("replicas", "removing")).persist())
    parts = []
    topics = topic_frame(state, fleet, brokers).persist()
    if levels["replica_sets"] or levels["partitions"]:
        per_topic = topics.select(*KEY, "topic", "topic_rf", "min_isr")
        if topics.count() <= BROADCAST_TOPICS:  # cached anyway: the count is cheap
            per_topic = F.broadcast(per_topic)
        rows = state.join(per_topic, KEY + ["topic"])
        rules = judged(levels["partitions"])
        if levels["replica_sets"]:
            failing = failing_replica_sets(state, brokers, levels["replica_sets"])
            same = [F.col(k) == F.col(f"_{k}") for k in KEY + ["replicas", "removing"]]
            rows = (rows.join(F.broadcast(failing), [F.col("_set") == F.col("_failing_set")]
                              + same, "left")
                    .join(brokers, KEY))
            rules |= {code: F.when(F.coalesce(F.col(f"_{code}"), F.lit(False)), v.messages)
                      for code, v in levels["replica_sets"].items()}
        parts.append(findings(rows, rules))
    if levels["topics"]:
        parts.append(findings(topics, judged(levels["topics"]), partition=False))
    if levels["clusters"]:
        parts.append(findings(cluster_frame(fleet), judged(levels["clusters"]), False, False))
    return reduce(DataFrame.unionByName, parts)
