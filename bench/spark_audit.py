"""Benchmark of ``policylint audit`` on Spark: generates fleets as normalised Parquet tables
(with Spark itself, so 10M rows take seconds), audits them and prints the figures.

    python bench/spark_audit.py [--rows 100000 1000000 10000000] [--clusters 100]
        [--fallback-rows 1000000] [--master local[2]] [--crossover 16 64 160]

Figures, each run as a user runs it (a new ``policylint audit`` process and Spark session,
the tables read from their files, findings written as Parquet): the demo's in-process
audit; wall time and rows/s of the native audit at each size, beside a bare session's start;
Spark's own floor at each size, measured in the same run (one aggregation per topic joined
back to every partition, which any plan of the rules does at least), and the audit against
it: at the largest size, at the smallest (the fixed cost of a run) and per further million
rows; the built-in rules left on the generic Python path, and native against that path on
the same rules; the in-process engine against Spark ``local[*]`` on snapshot files of
growing size (where the in-process limit belongs).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pyspark.sql import functions as F

sys.path.insert(0, str(Path(__file__).parent.parent))
sys.path.insert(0, str(Path(__file__).parent))

from policylint.registry import all_rules  # noqa: E402
from policylint.spark.audit import session  # noqa: E402

OUT = Path(__file__).parent / "out" / "spark"
BROKERS = 12


def generate(spark, root: Path, rows: int, clusters: int) -> None:
    """``rows`` partitions over ``clusters`` clusters, 100 partitions a topic, 12 brokers in
    3 racks a cluster; about 1% of partitions are reassigning, under-replicated or inflated."""
    key = [F.format_string("cluster-%03d", F.col("c")).alias("cluster"),
           F.lit("2026-11-21T10:00:00Z").alias("captured_at")]
    ids = spark.range(rows).select(
        (F.col("id") % clusters).alias("c"), (F.col("id") / clusters).cast("long").alias("n"),
        F.rand(7).alias("roll"))
    b = F.col("n") % BROKERS
    replicas = F.array(*[((b + 4 * i + (F.col("n") / 7).cast("int") % 4) % BROKERS + 1)
                         .cast("int") for i in range(3)])
    partitions = ids.select(
        *key, F.format_string("topic-%06d", (F.col("n") / 100).cast("long")).alias("topic"),
        (F.col("n") % 100).cast("int").alias("partition"),
        F.when(F.col("roll") < 0.003, F.concat(replicas, F.array(F.lit(BROKERS))))
         .otherwise(replicas).alias("replicas"),
        F.when(F.col("roll") < 0.01, F.slice(replicas, 1, 2)).otherwise(replicas).alias("isr"),
        F.when(F.col("roll") > 0.995, F.array(F.lit(BROKERS).cast("int")))
         .otherwise(F.array().cast("array<int>")).alias("adding"),
        F.when(F.col("roll") > 0.995, F.slice(replicas, 1, 1))
         .otherwise(F.array().cast("array<int>")).alias("removing"))
    partitions.write.mode("overwrite").parquet(str(root / "partitions"))
    topics = (spark.read.parquet(str(root / "partitions")).select("cluster", "captured_at",
                                                                  "topic").distinct()
              .withColumn("config", F.create_map(F.lit("min.insync.replicas"), F.lit("2"))))
    topics.write.mode("overwrite").parquet(str(root / "topics"))
    per_cluster = spark.range(clusters).select(F.col("id").alias("c"))
    per_cluster.select(*key, F.lit("4.1.0").alias("kafka_version"),
                       F.create_map(F.lit("min.insync.replicas"), F.lit("2")).alias("config"),
                       F.lit(None).cast("string").alias("source")) \
        .write.mode("overwrite").parquet(str(root / "clusters"))
    per_cluster.crossJoin(spark.range(1, BROKERS + 1).select(F.col("id").cast("int"))) \
        .select(*key, "id", F.element_at(F.array(*map(F.lit, ["a", "b", "c"])),
                                         (F.col("id") % 3 + 1).cast("int")).alias("rack")) \
        .write.mode("overwrite").parquet(str(root / "brokers"))


def seconds(*argv: str) -> float:
    """Wall seconds of a new Python process running ``argv``, its output dropped."""
    started = time.perf_counter()
    subprocess.run([sys.executable, *argv], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def timed_audit(root: Path, engine: str, master: str = "local[2]") -> float:
    """``policylint audit`` as a user runs it: a new process and Spark session, the tables
    read from their files, findings and summary written; wall seconds."""
    out = root.parent / f"findings-{root.name}-{engine}"
    took = seconds("-m", "policylint", "audit", str(root), "--input-format", "parquet",
                   "--output", str(out), "--engine", engine, "--master", master)
    shutil.rmtree(out, ignore_errors=True)
    return took


def session_seconds(master: str) -> float:
    """A bare Spark session started and stopped, in a new process: the floor of any run."""
    return seconds("-c", f"from policylint.spark.audit import session; session({master!r}).stop()")


def floor_seconds(root: Path, master: str) -> float:
    """Spark's floor for the rules, in a new process: a session reads the partitions and
    makes two passes over them, one aggregation per topic joined back to every partition
    (as PL204 judges each partition by its topic's RF), nothing written. Any plan of the
    rules does at least this much."""
    return seconds(__file__, "--floor-of", str(root), "--master", master)


def _floor(root: str, master: str) -> None:
    from policylint.spark.tables import PARTITIONS
    spark = session(master)
    key = ["cluster", "captured_at", "topic"]
    rows = spark.read.schema(PARTITIONS).parquet(f"{root}/partitions")
    per_topic = rows.groupBy(*key).agg(F.min(F.size("replicas")).alias("rf"))
    # a condition no row meets, which Spark cannot know without the join
    (rows.join(F.broadcast(per_topic), key).where(F.size("replicas") > F.col("rf") + 9)
     .write.format("noop").mode("overwrite").save())


def main() -> None:
    parser = argparse.ArgumentParser()
    # 100k rows too: a run that small is all fixed cost, which the larger ones are measured past
    parser.add_argument("--rows", type=int, nargs="+",
                        default=[100_000, 1_000_000, 10_000_000])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--fallback-rows", type=int, default=1_000_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--crossover", type=int, nargs="*", default=[16, 64, 160],
                        help="snapshot-file sizes (MiB) to run both engines on")
    parser.add_argument("--floor-of", help=argparse.SUPPRESS)  # floor_seconds' own process
    args = parser.parse_args()
    if args.floor_of:
        _floor(args.floor_of, args.master)
        return
    demo = Path(__file__).parents[1] / "examples" / "fleet" / "snapshots"
    took = seconds("-m", "policylint", "audit", str(demo), "--output", str(OUT / "demo"),
                   "--report", str(OUT / "demo.html"))
    print(f"the demo's audit (example fleet, --engine auto = local, report): {took:.2f} s "
          "(target < 10 s)")
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    for rows in sorted(set(args.rows + [args.fallback_rows])):
        root = OUT / f"rows-{rows}"
        if not (root / "partitions").exists():
            t = time.perf_counter()
            generate(spark, root, rows, args.clusters)
            print(f"generated {rows:,} partition rows in {time.perf_counter() - t:.1f} s")
    spark.stop()
    bare = session_seconds(args.master)
    print(f"end to end, as a user runs it ({args.master}, new process and session, Parquet "
          f"tables in, findings out); a bare session alone: {bare:.1f} s")
    times = {}
    for rows in sorted(set(args.rows)):
        times[rows] = timed_audit(OUT / f"rows-{rows}", "spark", args.master)
        print(f"  native audit, {rows:>11,} rows, {args.clusters} clusters: "
              f"{times[rows]:7.1f} s = {rows / times[rows]:,.0f} rows/s "
              f"({rows / max(times[rows] - bare, 0.1):,.0f} rows/s past the session start; "
              "target >= 600,000 at 10M)")
    sizes = sorted(times)
    if len(sizes) > 1:
        # from 1M where measured (the span), else from the smallest size
        small, large = (1_000_000 if 1_000_000 in sizes[:-1] else sizes[0]), sizes[-1]
        growth = times[large] / times[small]
        print(f"  scaling {small:,} -> {large:,} rows ({large / small:.0f}x): time "
              f"x{growth:.2f} ({'linear or better' if growth <= large / small else 'worse'})")
    floors = {rows: floor_seconds(OUT / f"rows-{rows}", args.master) for rows in sizes}
    print("  Spark's floor (one aggregation per topic joined back to every partition, nothing "
          "written), measured in this run: " + ", ".join(
              f"{rows:,} rows {floors[rows]:.1f} s" for rows in sizes))
    print("  the audit against the floor (target <= 2x each):")
    for rows in (sizes[-1], sizes[0]):
        print(f"    {rows:>11,} rows, {args.clusters} clusters: {times[rows]:.1f} s = "
              f"{times[rows] / floors[rows]:.1f}x the floor ({floors[rows]:.1f} s)")
    if len(sizes) > 1:
        first, large = sizes[0], sizes[-1]
        ours = (times[large] - times[first]) / (large - first) * 1e6
        theirs = (floors[large] - floors[first]) / (large - first) * 1e6
        print(f"    each further million rows: {ours:.2f} s against the floor's {theirs:.2f} s "
              f"= {ours / theirs:.1f}x")
    generic = sorted(code for code, rule in all_rules().items()
                     if code.startswith("PL") and {"snapshot", "profile"} & set(rule.reads.targets)
                     and rule.reads.spark_frame is None)
    print(f"    built-in rules on the generic Python path: {', '.join(generic) or 'none'}")
    rows = args.fallback_rows
    native = times.get(rows) or timed_audit(OUT / f"rows-{rows}", "spark", args.master)
    generic_seconds = timed_audit(OUT / f"rows-{rows}", "spark-generic", args.master)
    print(f"  the same rules through the generic Python path, {rows:,} rows: "
          f"{generic_seconds:.1f} s; native is {generic_seconds / native:.1f}x faster")
    if args.crossover:
        crossover(args.crossover)


def crossover(sizes_mib: list[int]) -> None:
    """The in-process engine against Spark ``local[*]`` on snapshot files of growing size,
    each as a user runs it: where Spark starts to win is what the in-process limit
    (``pipeline.LOCAL_LIMIT``) should be."""
    from fleet import write_fleet
    from policylint.spark.pipeline import LOCAL_LIMIT
    print(f"in-process engine against Spark local[*] on snapshot files (--engine local / "
          f"spark; the limit today: {LOCAL_LIMIT // 2**20} MiB):")
    for mib in sizes_mib:
        root = OUT / f"files-{mib}"
        if not root.exists():  # ~0.34 MiB a capture of 60 topics, 100 partitions each
            write_fleet(root, clusters=max(1, round(mib / 0.34)), captures=1, topics=60,
                        partitions=200)
        size = sum(f.stat().st_size for f in root.rglob("*.json")) / 2**20
        took = {}
        for engine in ("local", "spark"):
            out = OUT / f"files-{mib}-{engine}"
            took[engine] = seconds("-m", "policylint", "audit", str(root), "--output", str(out),
                                   "--engine", engine)
            shutil.rmtree(out, ignore_errors=True)
        faster = "in-process" if took["local"] <= took["spark"] else "Spark"
        print(f"  {size:6.1f} MiB: in-process {took['local']:.1f} s, Spark {took['spark']:.1f} s"
              f" ({faster} faster)")


if __name__ == "__main__":
    main()
