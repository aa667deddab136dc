"""The normalised fleet tables. Every row is keyed by ``cluster`` and ``captured_at`` (the
snapshot's capture time as written, "" when the snapshot has none).

A team whose export job writes tables instead of snapshot files writes these four, as
Parquet or JSON Lines, in directories named after them. Schemas are explicit, never
inferred: a column of the wrong type is a quarantined row, not a silent cast.
"""

from __future__ import annotations

from dataclasses import dataclass

from pyspark.sql import DataFrame
from pyspark.sql.types import (ArrayType, BooleanType, IntegerType, MapType, StringType,
                               StructField, StructType)

KEY = ["cluster", "captured_at"]


def _key() -> list[StructField]:
    return [StructField("cluster", StringType(), False),
            StructField("captured_at", StringType(), False)]


def _ids(name: str, nullable: bool = False) -> StructField:
    return StructField(name, ArrayType(IntegerType(), False), nullable)


CLUSTERS = StructType(_key() + [
    StructField("kafka_version", StringType(), True),
    StructField("config", MapType(StringType(), StringType()), False),  # broker defaults
    StructField("source", StringType(), True),                          # file it came from
])
BROKERS = StructType(_key() + [
    StructField("id", IntegerType(), False),
    StructField("rack", StringType(), True),
])
TOPICS = StructType(_key() + [
    StructField("topic", StringType(), False),
    StructField("config", MapType(StringType(), StringType()), False),
])
PARTITIONS = StructType(_key() + [
    StructField("topic", StringType(), False),
    StructField("partition", IntegerType(), False),
    _ids("replicas"),
    _ids("isr", nullable=True),  # null: the snapshot does not say (ISR rules skip it)
    _ids("adding"),
    _ids("removing"),
    StructField("uncertain", StringType(), True),  # why a capture could not read it
])
SCHEMAS = {"clusters": CLUSTERS, "brokers": BROKERS, "topics": TOPICS,
           "partitions": PARTITIONS}

FINDINGS = StructType([
    StructField("rule", StringType(), False),
    StructField("name", StringType(), False),
    StructField("severity", StringType(), False),
    StructField("cluster", StringType(), True),
    StructField("captured_at", StringType(), True),
    StructField("topic", StringType(), True),
    StructField("partition", IntegerType(), True),
    StructField("message", StringType(), False),
    StructField("source", StringType(), True),
    StructField("suppressed", BooleanType(), False),
    StructField("justification", StringType(), True),
])
# what a rule transform returns; the audit adds name, severity, source and suppression
# (severity: one a rule raised a finding to above its default, else null)
RAW_FINDINGS = StructType([f for f in FINDINGS.fields
                           if f.name in ("rule", "cluster", "captured_at", "topic",
                                         "partition", "message")]
                          + [StructField("severity", StringType(), True)])
QUARANTINED = StructType(RAW_FINDINGS.fields + [StructField("source", StringType(), True)])


@dataclass
class Fleet:
    """The four tables of a fleet, and findings about records that could not be read."""
    clusters: DataFrame
    brokers: DataFrame
    topics: DataFrame
    partitions: DataFrame
    quarantined: DataFrame  # QUARANTINED: PL100/PL101 about files and records
