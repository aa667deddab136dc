"""Benchmark of ``policylint audit`` on Spark: generates fleets as normalised Parquet tables
(with Spark itself, so 10M rows take seconds), audits them and prints the figures.

    python bench/spark_audit.py [--rows 1000000 10000000] [--clusters 100]
        [--fallback-rows 1000000] [--files 200000]

Figures: wall time and rows/s of the native audit at each size (findings written as
Parquet), how time grows with size, native vs the generic Python path on the same rules,
and the rate of reading snapshot files (parsing is Python, once per file).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from pyspark.sql import functions as F

sys.path.insert(0, str(Path(__file__).parent.parent))
sys.path.insert(0, str(Path(__file__).parent))

from policylint.policy import load as load_policy  # noqa: E402
from policylint.spark import io  # noqa: E402
from policylint.spark.audit import audit, read, session  # noqa: E402

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


def timed_audit(spark, root: Path, engine: str, select=None) -> float:
    started = time.perf_counter()
    findings = audit(read(spark, str(root), "parquet"), load_policy(None), select=select,
                     engine=engine)
    io.write_findings(findings, str(root.parent / f"findings-{root.name}-{engine}"), "parquet")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--fallback-rows", type=int, default=10_000_000)
    parser.add_argument("--files", type=int, default=200_000,
                        help="partition rows in the snapshot files of the read benchmark")
    args = parser.parse_args()
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    cores = spark.sparkContext.defaultParallelism
    print(f"Spark {spark.version}, {spark.sparkContext.master}, {cores} cores")
    times = {}
    for rows in sorted(set(args.rows + [args.fallback_rows])):
        root = OUT / f"rows-{rows}"
        if not (root / "partitions").exists():
            t = time.perf_counter()
            generate(spark, root, rows, args.clusters)
            print(f"generated {rows:,} partition rows in {time.perf_counter() - t:.1f} s")
        timed_audit(spark, root, "native")  # warm the JVM once per size
        times[rows] = timed_audit(spark, root, "native")
        print(f"native audit, {rows:>11,} rows, {args.clusters} clusters: "
              f"{times[rows]:7.1f} s = {rows / times[rows]:,.0f} rows/s")
    sizes = sorted(times)
    if len(sizes) > 1:
        small, large = sizes[0], sizes[-1]
        growth = times[large] / times[small]
        print(f"scaling {small:,} -> {large:,} rows ({large / small:.0f}x): time x{growth:.2f}"
              f" ({'sub-linear' if growth <= large / small else 'super-linear'})")
    root = OUT / f"rows-{args.fallback_rows}"
    native = times[args.fallback_rows]
    fallback = timed_audit(spark, root, "fallback")
    print(f"same rules through the generic Python path, {args.fallback_rows:,} rows: "
          f"{fallback:.1f} s; native is {fallback / native:.1f}x faster")
    files = OUT / "files"
    if not files.exists():
        from fleet import write_fleet
        write_fleet(files, clusters=20, captures=1, topics=args.files // 20 // 50,
                    partitions=100)
    rows = read(spark, str(files)).partitions.count()
    started = time.perf_counter()
    findings = audit(read(spark, str(files)), load_policy(None))
    io.write_findings(findings, str(OUT / "findings-files"), "parquet")
    took = time.perf_counter() - started
    print(f"audit from snapshot files (parsed in Python on the executors), {rows:,} rows: "
          f"{took:.1f} s = {rows / took:,.0f} rows/s")
    spark.stop()
    shutil.rmtree(OUT / "findings-files", ignore_errors=True)


if __name__ == "__main__":
    main()
