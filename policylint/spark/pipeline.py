"""``policylint audit``: the pipeline end to end, on the engine the fleet's size calls for,
with what it is doing on stderr."""

from __future__ import annotations

import os
import sys
import time

from ..model import SEVERITY_RANK
from ..policy import load as load_policy
from ..registry import check_selectors
from .local import FINDING_COLUMNS, audit_locally, snapshot_files, summarize, write_table
from .report import Overview, render

#: snapshot files up to this many bytes in all are audited in-process. Measured by
#: ``make bench-spark`` on two cores: Spark local[*] never caught up (158 MiB: in-process
#: 31 s, Spark 89 s; Spark's cost per MiB is the higher), so memory decides: the
#: in-process engine peaks at ~15x the files' size (2.3 GB for 158 MiB), and 256 MiB keeps
#: it within the 4 GB a Spark driver is given
LOCAL_LIMIT = 256 * 2**20
SUMMARY_COLUMNS = ("cluster", "captured_at", "rule", "severity", "findings")


def say(message: str) -> None:
    print(f"policylint: {message}", file=sys.stderr, flush=True)


def choose_engine(engine: str, source: str, input_format: str,
                  master: str | None) -> tuple[str, str]:
    """(local or spark, why)."""
    if engine != "auto":
        return engine, "as asked (--engine)"
    if master or "PYSPARK_GATEWAY_PORT" in os.environ:
        return "spark", "a Spark master was given"
    if input_format != "files":
        return "spark", f"{input_format} tables are read by Spark"
    if "://" in source:
        return "spark", f"{source.split('://')[0]}:// paths are read by Spark"
    size = sum(os.path.getsize(f) for f in snapshot_files(source))
    if size > LOCAL_LIMIT:
        return "spark", f"{size / 2**20:,.0f} MiB of snapshots, over the in-process limit " \
                        f"of {LOCAL_LIMIT // 2**20} MiB"
    return "local", f"{size / 2**10:,.0f} KiB of snapshots, within the in-process limit of " \
                    f"{LOCAL_LIMIT // 2**20} MiB; --engine spark for Spark"


def run_audit(source: str, output: str, *, input_format: str = "files", fmt: str = "parquet",
              master: str | None = None, policy: str | None = None,
              select: list[str] | None = None, ignore: list[str] | None = None,
              report: str | None = None, engine: str, why: str,
              fail_on: str | None = None, verbose: bool = False) -> int:
    """Runs the audit on ``engine`` (local, spark or spark-generic), chosen by
    ``choose_engine`` for the reason ``why``; returns the exit status (1: a finding at or
    above ``fail_on``)."""
    chosen = load_policy(policy)
    check_selectors((select or []) + (ignore or []), chosen.custom_rules)
    started = time.perf_counter()
    say(f"engine: {engine}: {why}")
    if engine == "local":
        findings, captures = audit_locally(source, chosen, select, ignore)
        _a_fleet(captures, source)
        write_table(findings, f"{output}/findings", fmt, FINDING_COLUMNS, by_cluster=True)
        summary = summarize(findings)
        write_table(summary, f"{output}/summary", fmt, SUMMARY_COLUMNS, by_cluster=False)
        recent = findings
    else:
        recent, captures = _on_spark(source, output, input_format, fmt, master, chosen,
                                    select, ignore, engine, verbose)
    overview = Overview(recent, captures)
    print(overview.console())
    if report:
        from ..reporters import write
        write(report, render(overview, policy=policy or "(default)", inputs=source,
                             engine=engine))
        say(f"report written to {report}")
    say(f"done in {time.perf_counter() - started:.1f} s")
    if fail_on is None:
        return 0
    floor = SEVERITY_RANK[fail_on]
    return int(any(SEVERITY_RANK[r["severity"]] >= floor for r in overview.latest))


def _a_fleet(captures: dict, source: str) -> None:
    """InputError, before anything is written, for an input that holds no snapshot: topic
    declarations and plans are lint's, not the audit's."""
    if not captures:
        from ..sources import InputError
        raise InputError(f"{source} holds no ClusterSnapshot (every file there was skipped): "
                         "audit reads a fleet's snapshots (policylint snapshot -o FILE); lint "
                         "topic declarations and plans with policylint lint")


def _on_spark(source, output, input_format, fmt, master, chosen, select, ignore, engine,
              verbose):
    """The findings of each cluster's two latest captures, and each cluster's captures."""
    from . import io
    from .audit import audit, read, recent_findings, session, summarize as summarize_frame
    stage = say if verbose else (lambda _: None)
    say(f"starting Spark ({master or 'local[*]'})")
    spark = session(master, verbose=verbose)
    stage(f"reading {'snapshot files' if input_format == 'files' else input_format} from "
          f"{source}")
    fleet = read(spark, source, input_format)
    if input_format == "files" and not fleet.clusters.take(1):
        _a_fleet({}, source)
    findings = audit(fleet, chosen, select, ignore,
                     engine="fallback" if engine == "spark-generic" else "native",
                     stage=lambda s: stage(f"rules {s}")).persist()
    stage(f"writing findings to {output}/findings ({fmt}, partitioned by cluster)")
    io.write_findings(findings, output, fmt)
    io.write_summary(summarize_frame(findings), SUMMARY_COLUMNS[:4], output, fmt)
    captures: dict[str, list[str]] = {}
    for row in fleet.clusters.select("cluster", "captured_at").distinct().collect():
        captures.setdefault(row.cluster, []).append(row.captured_at)
    return recent_findings(findings), captures
