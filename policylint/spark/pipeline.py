"""``policylint audit``: the pipeline end to end, with what it is doing on stderr."""

from __future__ import annotations

import sys
import time

from ..model import SEVERITY_RANK
from ..policy import load as load_policy
from ..registry import check_selectors
from . import io
from .audit import audit, read, session, summarize


def say(message: str) -> None:
    print(f"policylint: {message}", file=sys.stderr, flush=True)


def run_audit(source: str, output: str, *, input_format: str = "files", fmt: str = "parquet",
              master: str | None = None, policy: str | None = None,
              select: list[str] | None = None, ignore: list[str] | None = None,
              report: str | None = None, engine: str = "native",
              fail_on: str | None = None) -> int:
    """Runs the audit; returns the exit status (1: a finding at or above ``fail_on``)."""
    chosen = load_policy(policy)
    check_selectors((select or []) + (ignore or []))
    started = time.perf_counter()
    say(f"starting Spark ({master or 'local[*]'})")
    spark = session(master)
    say(f"reading {'snapshot files' if input_format == 'files' else input_format + ' tables'}"
        f" from {source}")
    fleet = read(spark, source, input_format)
    findings = audit(fleet, chosen, select, ignore, engine=engine,
                     stage=lambda s: say(f"rules {s}")).persist()
    say(f"writing findings to {output}/findings ({fmt}, partitioned by cluster)")
    io.write_findings(findings, output, fmt)
    summary = summarize(findings).orderBy("cluster", "captured_at", "rule", "severity")
    say(f"writing the summary to {output}/summary")
    io.write_summary(summary, output, fmt)
    rows = [r.asDict() for r in summary.collect()]
    suppressed = findings.where("suppressed").count()
    print(console_summary(rows, suppressed))
    if report:
        from .report import render
        io.write_report(render(rows), report)
        say(f"report written to {report}")
    say(f"done in {time.perf_counter() - started:.1f} s")
    if fail_on is None:
        return 0
    floor = SEVERITY_RANK[fail_on]
    return int(any(SEVERITY_RANK[r["severity"]] >= floor for r in rows))


def console_summary(rows: list[dict], suppressed: int) -> str:
    clusters = {r["cluster"] for r in rows if r["cluster"] is not None}
    snapshots = {(r["cluster"], r["captured_at"]) for r in rows}
    by_rule: dict[str, dict[str, int]] = {}
    totals = {s: 0 for s in SEVERITY_RANK}
    for r in rows:
        by_rule.setdefault(r["rule"], {s: 0 for s in SEVERITY_RANK})[r["severity"]] += \
            r["findings"]
        totals[r["severity"]] += r["findings"]
    lines = [f"{len(clusters)} cluster{'s' if len(clusters) != 1 else ''} with findings, "
             f"{len(snapshots)} snapshot{'s' if len(snapshots) != 1 else ''}: "
             + ", ".join(f"{totals[s]} {s}{'s' if totals[s] != 1 else ''}"
                         for s in SEVERITY_RANK) + f" ({suppressed} suppressed)"]
    if by_rule:
        lines.append(f"{'rule':<6} {'error':>8} {'warning':>8} {'note':>8}")
        for rule, counts in sorted(by_rule.items()):
            lines.append(f"{rule:<6} " + " ".join(f"{counts[s]:>8}" for s in SEVERITY_RANK))
    return "\n".join(lines)
