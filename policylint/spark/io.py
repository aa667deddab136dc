"""Every read and write of the fleet audit.

Snapshot files are read by Spark (``binaryFile``, recursively, any Hadoop file system) and
parsed on the executors by policylint's own sources, so a snapshot means exactly what it
means to ``policylint lint``. Parsing is Python, once per file; the rules that follow are not.
"""

from __future__ import annotations

from functools import reduce
from typing import Sequence

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, DataFrameWriter, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (ArrayType, BooleanType, DataType, MapType, NumericType,
                               StringType, StructField, StructType)

from .local import ORDER, SNAPSHOT_FILES, TABLES as _TABLES, snapshot_rows
from .tables import QUARANTINED, SCHEMAS, Fleet

_WIDE = StructType([StructField("table", StringType(), False)] + [
    StructField(name, SCHEMAS.get(name, QUARANTINED), True) for name in _TABLES])


def read_snapshot_files(spark: SparkSession, path: str) -> Fleet:
    files = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
             .load(path).where(F.col("path").rlike(SNAPSHOT_FILES)).select("path", "content"))
    rows = files.rdd.flatMap(lambda row: [_wide(*pair) for pair in
                                          snapshot_rows(row.path, bytes(row.content))])
    wide = spark.createDataFrame(rows, _WIDE).persist()
    return Fleet(*(wide.where(F.col("table") == name).select(f"{name}.*") for name in _TABLES))


def _wide(table: str, values: tuple) -> tuple:
    """A row of ``_WIDE``: its table's name, and its values in that table's column."""
    return (table,) + tuple(values if t == table else None for t in _TABLES)


def read_tables(spark: SparkSession, path: str, fmt: str) -> Fleet:
    """The four normalised tables under ``path`` (``path/brokers`` ...), as Parquet or JSON
    Lines. A JSON line that does not parse, or a row missing a required column, is
    quarantined as PL101 naming the file and the record."""
    tables, bad = {}, []
    for name, schema in SCHEMAS.items():
        where = f"{path.rstrip('/')}/{name}"
        if fmt == "parquet":
            df = _parquet(spark, where, schema)
            # a broken row's file alone is named, so the filter goes into the scan
            corrupt, source = None, F.input_file_name()
        else:
            # text is parsed once; Parquet is read again faster than Spark's in-memory cache
            # of array columns is read. A row's file is named before it is cached: the cache
            # knows no file
            df = (_read(spark.read.schema(StructType(schema.fields + [
                StructField("_corrupt", StringType(), True)]))
                .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", "_corrupt")
                .json, where).withColumn("_source", F.input_file_name()).cache())
            corrupt, source = F.col("_corrupt"), F.col("_source")
        broken = reduce(Column.__or__, [F.col(f.name).isNull() for f in schema.fields
                                        if not f.nullable], F.lit(False))
        record = F.substring(F.to_json(F.struct(*[F.col(f.name) for f in schema.fields])),
                             1, 300)
        if corrupt is not None:
            broken = broken | corrupt.isNotNull()
            record = F.coalesce(F.substring(corrupt, 1, 300), record)
        bad.append(df.where(broken).select(
            F.lit("PL101").alias("rule"), F.col("cluster"), F.col("captured_at"),
            F.lit(None).cast("string").alias("topic"), F.lit(None).cast("int").alias("partition"),
            F.concat(F.lit(f"{name} record with a missing or malformed column: "),
                     record).alias("message"),
            F.lit(None).cast("string").alias("severity"), source.alias("source")))
        tables[name] = df.where(~broken).select(*[f.name for f in schema.fields])
    quarantined = reduce(DataFrame.unionByName, bad)
    return Fleet(tables["clusters"], tables["brokers"], tables["topics"],
                 tables["partitions"], quarantined)


def _parquet(spark: SparkSession, where: str, schema: StructType) -> DataFrame:
    """The Parquet table at ``where`` in ``schema``'s types, whatever widths its writer chose
    (pandas writes 64-bit integers): a value that does not fit is null, and its row
    quarantined. A column of another kind altogether is exit 2 naming it."""
    from ..sources import InputError
    try:
        found = spark.read.parquet(where)
    except AnalysisException as exc:
        if exc.getCondition() != "UNABLE_TO_INFER_SCHEMA":
            raise _input_error(exc) from None
        return spark.read.schema(schema).parquet(where)  # no file: an empty table
    have = {f.name: f.dataType for f in found.schema.fields}
    for f in schema.fields:
        if f.name in have and not _castable(have[f.name], f.dataType):
            raise InputError(f"{where}: column {f.name} is {have[f.name].simpleString()}, "
                             f"policylint reads {f.dataType.simpleString()}")
    return found.select(*[_as(f, have.get(f.name)) for f in schema.fields])


def _as(field: StructField, have: DataType | None) -> Column:
    """The column ``field`` from one of type ``have`` (None: absent, so null). A list with
    an id that does not fit is null whole: no rule reads a list with a hole in it."""
    column, want = F.col(field.name), field.dataType
    if have is None:
        return F.lit(None).cast(want).alias(field.name)
    if have.simpleString() == want.simpleString():
        return column
    # try_cast: a value that does not fit is null (a plain cast wraps 2**40 round to 0)
    if isinstance(want, ArrayType):  # Spark casts to a list that may hold nulls only
        cast = column.try_cast(ArrayType(want.elementType, True))
        return F.when(~F.exists(cast, lambda x: x.isNull()), cast).alias(field.name)
    return column.try_cast(want).alias(field.name)


def _castable(have: DataType, want: DataType) -> bool:
    """Whether Spark casts ``have`` to ``want`` value by value."""
    if isinstance(want, ArrayType):
        return isinstance(have, ArrayType) and _castable(have.elementType, want.elementType)
    if isinstance(want, MapType):
        return isinstance(have, MapType) and _castable(have.keyType, want.keyType) and \
            _castable(have.valueType, want.valueType)
    scalar = (NumericType, StringType, BooleanType)
    return isinstance(have, scalar) and isinstance(want, scalar)


def _read(reader, where: str) -> DataFrame:
    """``reader(where)``; a path that does not exist is exit 2 naming it."""
    try:
        return reader(where)
    except AnalysisException as exc:
        raise _input_error(exc) from None


def _input_error(exc: AnalysisException) -> Exception:
    """Spark's reason as exit 2: its first line, without the error class and SQL state."""
    from ..sources import InputError
    line = str(exc).splitlines()[0]
    return InputError(line.split("] ", 1)[-1].split(" SQLSTATE")[0])


#: a frame of at most this many rows is held by the driver (``in_driver``)
DRIVER_ROWS = 100_000


def in_driver(df: DataFrame, most: int = DRIVER_ROWS) -> DataFrame:
    """``df`` computed once and held by the driver, when it has at most ``most`` rows (a
    cluster's brokers, its settings): every broadcast of a table read from files is a Spark
    job of its own, while one of the driver's rows starts none. A larger ``df`` is returned
    as it is."""
    spark, java = df.sparkSession, getattr(df, "_jdf", None)
    if java is None:  # Spark Connect: no JVM in this process to hold the rows
        return df
    rows = java.limit(most + 1).collectAsList()  # Java rows: never through Python
    if rows.size() > most:
        return df
    return DataFrame(spark._jsparkSession.createDataFrame(rows, java.schema()), spark)


def write_tables(fleet: Fleet, path: str, fmt: str = "parquet") -> None:
    """Writes the normalised tables (what ``read_tables`` reads)."""
    for name in SCHEMAS:
        _save(getattr(fleet, name).write.mode("overwrite"), fmt, path, name)


def write_findings(findings: DataFrame, path: str, fmt: str) -> None:
    """Findings partitioned by cluster, as Parquet or JSON lines: one file per cluster
    rather than one per cluster and rule task, written by as many tasks as Spark runs at
    once (adaptive execution would merge a few findings into one task, which then opens
    every cluster's file in turn)."""
    tasks = findings.sparkSession.sparkContext.defaultParallelism
    _save(findings.repartition(tasks, "cluster").sortWithinPartitions(*ORDER)
          .write.mode("overwrite").partitionBy("cluster"), fmt, path, "findings")


def write_summary(summary: DataFrame, order: Sequence[str], path: str, fmt: str) -> None:
    """The summary in one file, sorted by ``order``: its few rows are gathered into one task
    and sorted there, where a global sort would cost a sampling job and a shuffle."""
    _save(summary.coalesce(1).sortWithinPartitions(*order).write.mode("overwrite"), fmt,
          path, "summary")


# Local files are written without Hadoop's checksum files (``.name.crc`` beside each one),
# which nothing reads back: 0.15-0.3 s less per hundred files. Other file systems are
# untouched.
_LOCAL_FILES = {"fs.file.impl": "org.apache.hadoop.fs.RawLocalFileSystem",
                "fs.file.impl.disable.cache": "true"}


def _save(writer: DataFrameWriter, fmt: str, path: str, name: str) -> None:
    writer = writer.options(**_LOCAL_FILES)
    (writer.parquet if fmt == "parquet" else writer.json)(f"{path.rstrip('/')}/{name}")
