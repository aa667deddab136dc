"""The fleet audit: read the fleet, run the snapshot rules, apply the policy, write.

Rules with a native implementation (``rules.NATIVE``) run as Spark SQL; any other rule
that applies to snapshots (a plugin's) runs through ``fallback``. The policy applies
exactly as in ``policylint lint``: enabled rules, severities, options, exemptions.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
from functools import reduce
from typing import Callable

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from ..engine import selected_rules
from ..policy import Policy
from . import io
from .fallback import run_locally
from .rules import NATIVE, run_native
from .tables import KEY, Fleet

SNAPSHOT_TARGETS = {"snapshot", "profile"}


def session(master: str | None = None, app: str = "policylint audit") -> SparkSession:
    """A Spark session: ``master`` if given; under spark-submit, the one it set up; else
    an embedded ``local[*]`` bound to 127.0.0.1."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app)
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
    the local engine (for comparison)."""
    today = today or dt.date.today()
    rules = [r for r in selected_rules(policy, select, ignore)
             if SNAPSHOT_TARGETS & set(r.targets) or r.code in ("PL100", "PL101")]
    options = {r.code: policy.options(r) for r in rules}
    native: dict[str, dict] = {}
    local: dict[str, dict] = {}
    for rule in rules:
        if rule.code in ("PL100", "PL101"):
            continue
        if engine == "native" and rule.code in NATIVE:
            stage(f"{rule.code} {rule.name}: Spark SQL")
            native[rule.code] = options[rule.code]
        else:
            local[rule.code] = options[rule.code]
    parts: list[DataFrame] = []
    if native:
        parts.append(run_native(fleet, native, policy.placeholders_enabled))
    if local:
        stage(f"{', '.join(local)}: the generic Python path, one snapshot at a time")
        parts.append(run_locally(fleet, local, policy.placeholders_enabled))
    raw = reduce(DataFrame.unionByName, parts) if parts else None
    sources = fleet.clusters.select(*KEY, "source")
    found = raw.join(F.broadcast(sources), KEY, "left") if raw is not None else None
    codes = {r.code for r in rules}
    quarantined = fleet.quarantined.where(F.col("rule").isin(sorted(codes & {"PL100",
                                                                                "PL101"})))
    found = quarantined if found is None else found.unionByName(quarantined)
    return _apply_policy(found, rules, policy, today)


def summarize(findings: DataFrame) -> DataFrame:
    """Counts per cluster, capture time, rule and severity (suppressed findings left out)."""
    return (findings.where(~F.col("suppressed"))
            .groupBy("cluster", "captured_at", "rule", "severity")
            .agg(F.count("*").alias("findings")))


def _apply_policy(found: DataFrame, rules, policy: Policy, today: dt.date) -> DataFrame:
    names = F.create_map(*[F.lit(x) for r in rules for x in (r.code, r.name)])
    severities = F.create_map(*[F.lit(x) for r in rules for x in (r.code, policy.severity(r))])
    reason: Column = F.lit(None).cast("string")
    for ex in reversed([e for e in policy.exemptions
                        if e.expires is None or e.expires >= today]):
        covered = (F.col("rule") == ex.rule) & F.col("topic").isNotNull() & reduce(
            Column.__or__, [F.col("topic").rlike(glob_regex(g)) for g in ex.topics])
        reason = F.when(covered, F.lit(ex.reason)).otherwise(reason)
    return found.select(
        "rule", names[F.col("rule")].alias("name"), severities[F.col("rule")].alias("severity"),
        "cluster", "captured_at", "topic", "partition", "message", "source",
        reason.isNotNull().alias("suppressed"), reason.alias("justification"))


def glob_regex(glob: str) -> str:
    """A topic glob (fnmatch: ``*``, ``?``, ``[...]``) as an anchored Java regex."""
    out, i = ["^"], 0
    while i < len(glob):
        c = glob[i]
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and glob.find("]", i + 2) > 0:  # a class holds one character at least
            end = glob.find("]", i + 2)
            body = glob[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out) + "$"
