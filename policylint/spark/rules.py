"""The built-in snapshot rules as native Spark SQL: column expressions, higher-order array
functions and joins, no Python UDF. Each rule is ``(Audit, options) -> DataFrame`` of
``RAW_FINDINGS`` and says, word for word, what the rule module of the same code says; the
parity tests hold the two to it. Semantics are those of ``policylint.rules.kafka``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Callable

from pyspark.sql import Column, DataFrame, Window
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


def _int(expr: str) -> Column:
    return F.expr(f"try_cast({expr} AS INT)")


class Audit:
    """The fleet with the derived columns the rules share, computed once."""

    def __init__(self, fleet: Fleet):
        self.fleet = fleet

    @cached_property
    def clusters(self) -> DataFrame:
        """Per snapshot: broker ids, broker -> rack, racks, the broker defaults."""
        brokers = self.fleet.brokers.groupBy(*KEY).agg(
            F.sort_array(F.collect_list("id")).alias("broker_ids"),
            F.map_from_entries(F.collect_list(F.struct("id", "rack"))).alias("rack_of"),
            F.sort_array(F.collect_set("rack")).alias("racks"))
        return (self.fleet.clusters.select(*KEY, F.col("config").alias("cluster_config"))
                .join(brokers, KEY, "left")
                .select(*KEY, "cluster_config",
                        F.coalesce("broker_ids", F.array().cast("array<int>")).alias("broker_ids"),
                        F.coalesce("rack_of", F.create_map().cast("map<int,string>"))
                        .alias("rack_of"),
                        F.coalesce("racks", F.array().cast("array<string>")).alias("racks")))

    @cached_property
    def partitions(self) -> DataFrame:
        """Partitions with their target replicas, current RF and the cluster's brokers."""
        return (self.fleet.partitions
                .withColumn("target", F.expr(
                    "filter(replicas, r -> NOT array_contains(removing, r))"))
                .withColumn("reassigning", (F.size("adding") > 0) | (F.size("removing") > 0))
                .withColumn("current_rf", F.size("target"))
                .join(F.broadcast(self.clusters), KEY))

    @cached_property
    def topic_rf(self) -> DataFrame:
        """The topic RF of a snapshot: the most common RF among non-reassigning partitions
        (ties: the smallest)."""
        counts = (self.partitions.where(~F.col("reassigning"))
                  .groupBy(*KEY, "topic", F.size("replicas").alias("rf")).count())
        best = Window.partitionBy(*KEY, "topic").orderBy(F.desc("count"), "rf")
        return (counts.withColumn("rank", F.row_number().over(best)).where("rank = 1")
                .select(*KEY, "topic", "rf"))

    @cached_property
    def min_isr(self) -> DataFrame:
        """Per topic: the smallest current RF and the effective min.insync.replicas."""
        smallest = self.partitions.groupBy(*KEY, "topic").agg(F.min("current_rf").alias("rf"))
        return (smallest.join(self.fleet.topics, KEY + ["topic"], "left")
                .join(self.clusters, KEY)
                .select(*KEY, "topic", "rf", _int(
                    "coalesce(try_element_at(config, 'min.insync.replicas'), "
                    "try_element_at(cluster_config, 'min.insync.replicas'), '1')")
                        .alias("min_isr")))

    @cached_property
    def placeholders(self) -> DataFrame:
        """Partitions whose replicas hold a placeholder (a negative id, KIP-409)."""
        return self.partitions.where(F.array_min("replicas") < 0)


def finding(df: DataFrame, rule: str, message: Column, topic: bool = True,
            partition: bool = True) -> DataFrame:
    return df.select(
        F.lit(rule).alias("rule"), *KEY,
        (F.col("topic") if topic else F.lit(None).cast("string")).alias("topic"),
        (F.col("partition") if partition else F.lit(None).cast("int")).alias("partition"),
        message.alias("message"))


def tp() -> Column:
    return text(F.col("topic"), "-", F.col("partition"))


def pl112(a: Audit, options: dict) -> DataFrame:
    twice = F.expr("array_sort(filter(array_distinct(replicas), "
                   "b -> b >= 0 AND size(filter(replicas, x -> x = b)) > 1))")
    found = a.partitions.withColumn("twice", twice).where(F.size("twice") > 0)
    return finding(found, "PL112", text(
        "replicas ", ids("replicas"), " of ", tp(), " name ", plural(F.size("twice"), "broker"),
        " ", F.array_join(F.col("twice").cast("array<string>"), ", "), " more than once"))


def pl113(a: Audit, options: dict) -> DataFrame:
    return finding(a.partitions.where(F.size("replicas") == 0), "PL113", text(
        "partition ", tp(), " has an empty replica list"))


def pl115(a: Audit, options: dict) -> DataFrame:
    known = F.concat_ws(", ", F.slice("broker_ids", 1, 20).cast("array<string>"))
    known = F.when(F.size("broker_ids") > 20, text(known, ", ... (", F.size("broker_ids"),
                                                   " in all)")).otherwise(known)
    unknown = (a.partitions
               .withColumn("broker", F.explode(F.expr(
                   "filter(array_distinct(replicas), "
                   "r -> r >= 0 AND NOT array_contains(broker_ids, r))"))))
    return finding(unknown, "PL115", text(
        "broker ", F.col("broker"), " in replicas ", ids("replicas"), " of ", tp(),
        " is not a broker of cluster ", F.col("cluster"), " (brokers: ", known, ")"))


def pl203(a: Audit, options: dict) -> DataFrame:
    brokers = F.size("broker_ids")
    found = a.topic_rf.join(a.clusters, KEY).where((brokers > 0) & (F.col("rf") > brokers))
    return finding(found, "PL203", text(
        "topic ", F.col("topic"), ": replication factor ", F.col("rf"), " is larger than the ",
        brokers, " brokers of cluster ", F.col("cluster")), partition=False)


def pl204(a: Audit, options: dict) -> DataFrame:
    found = (a.partitions.join(a.topic_rf, KEY + ["topic"])
             .where((F.size("replicas") > F.col("rf")) & ~F.col("reassigning")))
    return finding(found, "PL204", text(
        "partition ", tp(), " has ", F.size("replicas"), " replicas ", ids("replicas"),
        " but topic ", F.col("topic"), " has replication factor ", F.col("rf"),
        ", and the snapshot has no adding/removing replicas: probably read during a "
        "reassignment (KIP-860)"))


def pl205(a: Audit, options: dict) -> DataFrame:
    shares = (a.partitions.groupBy(*KEY, "topic", "current_rf").count()
              .groupBy(*KEY, "topic")
              .agg(F.sort_array(F.collect_list(F.struct("current_rf", "count"))).alias("rfs"))
              .where(F.size("rfs") > 1))
    described = F.expr("array_join(transform(rfs, s -> concat('RF ', s.current_rf, ' (', "
                       "s.count, IF(s.count = 1, ' partition)', ' partitions)'))), ', ')")
    return finding(shares, "PL205", text(
        "partitions of topic ", F.col("topic"), " have different replication factors: ",
        described), partition=False)


def _min_isr_rule(rule: str, when: Callable[[Column, Column], Column],
                  says: Callable[[dict], tuple]) -> Callable[[Audit, dict], DataFrame]:
    def check(a: Audit, options: dict) -> DataFrame:
        rf, min_isr = F.col("rf"), F.col("min_isr")
        found = a.min_isr.where(rf.isNotNull() & min_isr.isNotNull() & when(rf, min_isr, options))
        return finding(found, rule, text("topic ", F.col("topic"), ": min.insync.replicas=",
                                         min_isr, *says(options)), partition=False)
    check.__name__ = rule.lower()
    return check


pl301 = _min_isr_rule(
    "PL301", lambda rf, m, o: m > rf,
    lambda o: (" > replication factor ", F.col("rf"), ": every acks=all produce will fail"))
pl302 = _min_isr_rule(
    "PL302", lambda rf, m, o: (m == rf) & (rf > 1),
    lambda o: (" equals the replication factor ", F.col("rf"),
               ": one broker down blocks acks=all producers"))
pl303 = _min_isr_rule(
    "PL303", lambda rf, m, o: (rf >= 3) & (m < o["min"]),
    lambda o: (" with replication factor ", F.col("rf"),
               f": acknowledged writes may be lost (policy minimum is {o['min']})"))


def pl307(a: Audit, options: dict) -> DataFrame:
    original = F.expr("IF(size(adding) > 0, "
                      "filter(replicas, r -> NOT array_contains(adding, r)), replicas)")
    found = (a.partitions.where(F.col("isr").isNotNull()).withColumn("original", original)
             .where(F.size("original") > F.size("isr")))
    return finding(found, "PL307", text(
        "partition ", tp(), " is under-replicated: ISR ", ids("isr"), " of replicas ",
        ids("original")))


def pl401(a: Audit, options: dict) -> DataFrame:
    racks = F.expr("filter(transform(target, r -> rack_of[r]), x -> x IS NOT NULL)")
    parts = (a.partitions.where((F.size("broker_ids") > 0) & (F.size("racks") > 0))
             .withColumn("used", racks)
             .withColumn("rf", F.size("target")).withColumn("n_racks", F.size("racks")))
    if options["mode"] == "strict":
        spans = F.size(F.array_distinct("used"))
        wanted = F.least(F.col("rf"), F.col("n_racks"))
        named = F.array_join(F.sort_array(F.array_distinct("used")), ", ")
        problem = text("span ", spans, " ", plural(spans, "rack"), " (",
                       F.when(spans > 0, named).otherwise("none"), "); RF ", F.col("rf"),
                       " with ", F.col("n_racks"), " racks in the cluster needs ", wanted)
        found = parts.where(spans < wanted)
    else:
        ceiling = F.ceil(F.col("rf") / F.col("n_racks"))
        fullest = F.expr("array_max(transform(array_distinct(used), "
                         "x -> struct(size(filter(used, y -> y = x)) AS n, x AS rack)))")
        parts = parts.withColumn("fullest", fullest)
        problem = text("put ", F.col("fullest.n"), " replicas in rack ", F.col("fullest.rack"),
                       "; with RF ", F.col("rf"), " over ", F.col("n_racks"),
                       " racks no rack should hold more than ", ceiling)
        found = parts.where(F.col("fullest").isNotNull() & (F.col("fullest.n") > ceiling))
    return finding(found, "PL401", text("replicas ", ids("target"), " of ", tp(), " ",
                                        problem))


def pl402(a: Audit, options: dict) -> DataFrame:
    missing = (a.fleet.brokers.groupBy(*KEY).agg(
        F.sort_array(F.collect_list(F.when(F.col("rack").isNull(), F.col("id")))).alias("ids"),
        F.count("*").alias("n_brokers"))
        .where((F.size("ids") > 0) & (F.size("ids") < F.col("n_brokers"))))
    n = F.size("ids")
    return finding(missing, "PL402", text(
        "cluster ", F.col("cluster"), ": ", plural(n, "broker"), " ",
        F.array_join(F.col("ids").cast("array<string>"), ", "), " ", plural(n, "has", "have"),
        " no rack while others have one"), topic=False, partition=False)


def pl403(a: Audit, options: dict) -> DataFrame:
    leaders = (a.partitions.where(F.size("racks") > 0)
               .withColumn("leader_rack", F.expr("rack_of[try_element_at(target, 1)]"))
               .groupBy(*KEY, "topic", "racks")
               .agg(F.collect_list("leader_rack").alias("leaders")))
    shares = leaders.withColumn("shares", F.expr(
        "transform(racks, r -> struct(r AS rack, size(filter(leaders, l -> l = r)) AS n))"))
    spread = shares.withColumn("skew", F.expr(
        "array_max(transform(shares, s -> s.n)) - array_min(transform(shares, s -> s.n))"))
    max_skew = options["max_skew"]
    found = spread.where(F.col("skew") > max_skew)
    described = F.expr("array_join(transform(shares, s -> concat(s.rack, ': ', s.n)), ', ')")
    return finding(found, "PL403", text(
        "preferred leaders of topic ", F.col("topic"), " are skewed across racks (", described,
        "); difference ", F.col("skew"), f" > {max_skew}"), partition=False)


def pl501(a: Audit, options: dict) -> DataFrame:
    found = a.placeholders.where(F.lit(not options["_placeholders_enabled"]))
    return finding(found, "PL501", text(
        "replicas ", ids("replicas"), " of ", tp(),
        " hold placeholder ids, but placeholders (KIP-409) are not enabled"))


def pl502(a: Audit, options: dict) -> DataFrame:
    limit = options["max_per_partition"]
    real = F.size(F.filter("replicas", lambda r: r >= 0))
    held = F.size("replicas") - real
    parts = (a.placeholders.where(F.lit(bool(options["_placeholders_enabled"])))
             .join(a.min_isr.select(*KEY, "topic", "min_isr"), KEY + ["topic"])
             .withColumn("real", real).withColumn("held", held)
             .withColumn("needed", F.least("min_isr", F.size("replicas"))))
    too_few = F.col("real") < F.col("needed")
    problem = F.when(too_few, text(
        "have ", F.col("real"), " real ", plural(F.col("real"), "replica"),
        ", fewer than min(min.insync.replicas, RF) = ", F.col("needed")))
    condition = too_few
    if limit is not None:
        over = F.col("held") > limit
        problem = problem.when(over, text("hold ", F.col("held"),
                                          f" placeholders, more than max_per_partition={limit}"))
        condition = too_few | over
    return finding(parts.where(condition), "PL502",
                   text("replicas ", ids("replicas"), " of ", tp(), " ", problem))


def pl503(a: Audit, options: dict) -> DataFrame:
    parts = a.placeholders.withColumn("held", F.filter("replicas", lambda r: r < 0))
    n = F.size("held")
    well_formed = ((F.size(F.array_distinct("held")) == n) & (F.array_min("held") == -n)
                   & (F.array_max("held") == -1))
    return finding(parts.where(~well_formed), "PL503", text(
        "placeholders ", ids("held"), " of ", tp(), " should be ",
        ids(F.sequence(F.lit(-1), -n, F.lit(-1)))))


def pl504(a: Audit, options: dict) -> DataFrame:
    leader = F.element_at("replicas", 1)
    return finding(a.placeholders.where(leader < 0), "PL504", text(
        "the preferred leader of ", tp(), " is placeholder ", leader, " (replicas ",
        ids("replicas"), ")"))


NATIVE: dict[str, Callable[[Audit, dict], DataFrame]] = {
    "PL112": pl112, "PL113": pl113, "PL115": pl115, "PL203": pl203, "PL204": pl204, "PL205": pl205, "PL301": pl301,
    "PL302": pl302, "PL303": pl303, "PL307": pl307, "PL401": pl401, "PL402": pl402,
    "PL403": pl403, "PL501": pl501, "PL502": pl502, "PL503": pl503, "PL504": pl504,
}
