"""The fleet audit: read the fleet, run the snapshot rules, apply the policy, write.

A rule with a Spark form (``Rule.spark``) runs as Spark SQL (``native``); a rule of the
``configs`` or ``names`` frame runs its ``check`` in the driver, once per distinct topic
config and cluster or on the topics Spark picks (``shapes``); any other rule that applies
to snapshots runs its ``check`` through ``fallback``, built-ins and plugins alike. The
policy is compiled once, as for ``policylint lint``: enabled rules, severities, options,
exemptions.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from functools import reduce
from typing import Callable

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import StringType, StructField, StructType

from ..policy import CompiledPolicy, Policy
from . import io
from .fallback import run_locally
from .local import FINDING_COLUMNS, ORDER, audit_rules
from .native import run_native
from .report import capture_order
from .shapes import run_by_shape, run_on_suspects
from .tables import KEY, Fleet

QUIET_LOG = os.path.join(os.path.dirname(__file__), "log4j2.properties")
# The JIT's quick tier only: an audit's JVM lives seconds to minutes, and with every tier
# the optimising compiler took half the CPU of a run on two cores, competing with the rules
# it compiled (a 1M-row audit: 33 s -> 26 s; 10M: 67 s -> 60 s).
# That tier alone reserves 48 MiB of code cache, which a long session of many plans (the
# parity tests; spark-submit) filled: "Out of space in CodeCache for adapters" killed the
# JVM. The size every tier reserves is kept (reserved, not committed until used).
QUICK_JIT = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"


def session(master: str | None = None, app: str = "policylint audit",
            verbose: bool = False) -> SparkSession:
    """A Spark session: ``master`` if given; under spark-submit, the one it set up; else
    an embedded ``local[*]`` bound to 127.0.0.1. Quiet unless ``verbose``: warnings and
    errors only, from the JVM's first line. A progress bar only on a terminal, verbose or
    not: in a CI log its redrawn lines hide the audit's own."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if not verbose:  # PySpark's notice of pandas 3 (OR-Tools' dependency): not the audit's
        import warnings
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                                FutureWarning)
    builder = SparkSession.builder.appName(app)
    quiet = [] if verbose else [f"-Dlog4j2.configurationFile=file:{QUIET_LOG}"]
    # defaults, not extraJavaOptions: a user's own driver options are kept, and come later
    builder = builder.config("spark.driver.defaultJavaOptions", " ".join([QUICK_JIT, *quiet]))
    builder = builder.config("spark.ui.showConsoleProgress", str(sys.stderr.isatty()).lower())
    if master or "PYSPARK_GATEWAY_PORT" not in os.environ:
        builder = (builder.master(master or "local[*]")
                   .config("spark.driver.memory", os.environ.get("POLICYLINT_DRIVER_MEMORY",
                                                                 "4g"))
                   .config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.ui.enabled", "false"))
    spark = builder.getOrCreate()
    # the rules' semantics, whatever the cluster's defaults: a bad number is null, not a
    # failed job; a broker listed twice keeps its last rack, as in policylint lint
    spark.conf.set("spark.sql.ansi.enabled", "false")
    spark.conf.set("spark.sql.mapKeyDedupPolicy", "LAST_WIN")
    # the findings are cached before they are written; let adaptive execution still merge
    # the many small shuffle partitions of the rules
    spark.conf.set("spark.sql.optimizer.canChangeCachedPlanOutputPartitioning", "true")
    # size estimates of cached plans can be far off: broadcast only what the rules say is
    # small (brokers per cluster, failing replica lists, topics up to a count)
    spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
    return spark


def read(spark: SparkSession, path: str, input_format: str = "files") -> Fleet:
    if input_format == "files":
        return io.read_snapshot_files(spark, path)
    return io.read_tables(spark, path, input_format)


def audit(fleet: Fleet, policy: Policy, select: list[str] | None = None,
          ignore: list[str] | None = None, today: dt.date | None = None,
          engine: str = "native", stage: Callable[[str], None] = lambda _: None
          ) -> DataFrame:
    """The findings (``tables.FINDINGS``). ``engine="fallback"`` runs every rule through
    the generic Python path (for comparison)."""
    compiled, checked = audit_rules(policy, select, ignore, today)
    by_frame: dict[str | None, list] = {}
    for r in checked:
        frame = r.reads.spark_frame if engine == "native" else None
        by_frame.setdefault(frame, []).append((r, compiled.options[r.code]))
    shaped, named = by_frame.pop("configs", []), by_frame.pop("names", [])
    local = by_frame.pop(None, [])
    native = [pair for pairs in by_frame.values() for pair in pairs]
    parts: list[DataFrame] = []
    if native:
        stage(f"{', '.join(r.code for r, _ in native)}: Spark SQL")
        parts.append(run_native(fleet, native, policy))
    # a value of a table's rows that the snapshot's schema refuses is a PL101 (if on), said
    # once: by the shapes' check, else by the first generic pass
    refused = "PL101" in compiled.rules
    if shaped:
        stage(f"{', '.join(r.code for r, _ in shaped)}: once per distinct topic config and "
              "cluster, in this process")
        parts.append(run_by_shape(fleet, shaped, policy, refused))
        refused = False
    if named:
        stage(f"{', '.join(r.code for r, _ in named)}: the topics Spark picks as suspects, "
              "in this process")
        parts.append(run_on_suspects(fleet, named, policy))
    for reads in (True, False):  # rules that need no partitions are run without them
        some = [(r, o) for r, o in local if r.reads.partitions == reads]
        if some:
            stage(f"{', '.join(r.code for r, _ in some)}: the generic Python path, one "
                  "snapshot at a time" + ("" if reads else ", without its partitions"))
            parts.append(run_locally(fleet, some, policy, refused))
            refused = False
    raw = reduce(DataFrame.unionByName, parts) if parts else None
    sources = fleet.clusters.select(*KEY, "source")
    found = raw.join(F.broadcast(sources), KEY, "left") if raw is not None else None
    quarantined = fleet.quarantined.where(F.col("rule").isin(
        sorted(compiled.rules.keys() & {"PL100", "PL101"})))
    found = quarantined if found is None else found.unionByName(quarantined)
    return _apply_policy(found, compiled)


def recent_findings(findings: DataFrame) -> list[dict]:
    """The findings of each cluster's two latest captures (what the report and the console
    summary read), in the order the engines write them. The few captures are chosen here,
    and the findings sorted by Arrow as the local engine sorts them (nulls first, strings
    by code point): a sort in Spark costs a sampling job and a shuffle."""
    latest: dict[str | None, list[str | None]] = {}
    for cluster, captured_at in findings.select("cluster", "captured_at").distinct().collect():
        latest.setdefault(cluster, []).append(captured_at)
    pairs = [(cluster, at) for cluster, times in latest.items()
             for at in capture_order(times)[-2:]]
    recent = findings.sparkSession.createDataFrame(pairs, "cluster string, captured_at string")
    same = findings["cluster"].eqNullSafe(recent["cluster"]) & \
        findings["captured_at"].eqNullSafe(recent["captured_at"])
    # through Arrow (pyarrow is in the spark extra): a third of the time of Row objects
    table = findings.join(F.broadcast(recent), same, "left_semi").select(*FINDING_COLUMNS)
    return table.toArrow().sort_by([(c, "ascending", "at_start") for c in ORDER]).to_pylist()


def summarize(findings: DataFrame) -> DataFrame:
    """Counts per cluster, capture time, rule and severity (suppressed findings left out)."""
    return (findings.where(~F.col("suppressed"))
            .groupBy("cluster", "captured_at", "rule", "severity")
            .agg(F.count("*").alias("findings")))


_EXEMPT = StructType([StructField(name, StringType(), False)
                      for name in ("rule", "topic", "justification")])


def _apply_policy(found: DataFrame, policy: CompiledPolicy) -> DataFrame:
    """Names, severities and exemptions as ``policylint lint`` applies them: exemptions
    are decided by the policy itself, once per distinct (rule, topic) of a finding."""
    names = F.create_map(*[F.lit(x) for r in policy.rules.values() for x in (r.code, r.name)])
    severities = F.create_map(*[F.lit(x) for item in policy.severities.items() for x in item])
    exempted = sorted({e.rule for e in policy.exemptions})
    if exempted:
        found = found.persist()
        pairs = (found.where(F.col("rule").isin(exempted) & F.col("topic").isNotNull())
                 .select("rule", "topic").distinct().collect())
        rows = [(rule, topic, exemption.reason) for rule, topic in pairs
                if (exemption := policy.exemption(rule, topic)) is not None]
        spark = found.sparkSession
        found = found.join(F.broadcast(spark.createDataFrame(rows, _EXEMPT)),
                           ["rule", "topic"], "left")
    else:
        found = found.withColumn("justification", F.lit(None).cast("string"))
    fixed = F.col("rule").isin(sorted(policy.fixed)) if policy.fixed else F.lit(False)
    severity = F.when(fixed | F.col("severity").isNull(), severities[F.col("rule")]) \
        .otherwise(F.col("severity"))
    return found.select(
        "rule", names[F.col("rule")].alias("name"), severity.alias("severity"),
        "cluster", "captured_at", "topic", "partition", "message", "source",
        F.col("justification").isNotNull().alias("suppressed"), "justification")
