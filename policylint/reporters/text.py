"""``--format text``: findings grouped by file, then a one-line summary."""

from __future__ import annotations

from itertools import groupby

from ..words import count

# code -> (what it counts, why it could not check them), for the summary
_UNCHECKED = {
    "PL201": ("partition", "no snapshot, --current assignment or manifest gives their current "
                           "replication factor"),
    "PL202": ("topic", "the replication factor is left to the broker default and no cluster "
                       "profile (--cluster) gives it, or it is an unknown value (a template "
                       "placeholder)"),
    "PL206": ("topic", "the partition count is left to the broker default and no cluster "
                       "profile (--cluster) gives it, or it is an unknown value (a template "
                       "placeholder)"),
    "PL118": ("topic", "it names a cluster that is none of the run's clusters"),
    "PL123": ("plan entry", "no cluster of the run places its plan"),
    "PL203": ("subject", "its cluster's broker count is unknown (a Strimzi Kafka with node "
                         "pools needs them among the inputs; kafka-topics.sh output lists no "
                         "brokers), or its replication factor is a template placeholder"),
}
UNKNOWN_VALUE = ("subject", "a value it needs is an unknown value (a template placeholder)")
_COLOURS = {"error": "31", "warning": "33", "note": "36", "dim": "2", "bold": "1"}


def render(result, color: bool = False, **_) -> str:
    def paint(text: str, style: str) -> str:
        return f"\033[{_COLOURS[style]}m{text}\033[0m" if color else text

    lines: list[str] = []
    for file, group in groupby(result.findings, key=lambda f: f.file):
        lines.append(paint(file or "(policy)", "bold"))
        for f in group:
            where = f"{f.line}:{f.column}" if f.line is not None else "-"
            if f.suppressed:  # dimmed and said so: it fails nothing
                lines.append(paint(f"  {where:<9} suppressed {f.rule} {f.name}  {f.message}  "
                                   f"[{f.severity}, {f.justification}]", "dim"))
                continue
            severity = paint(f"{f.severity:<7}", f.severity)
            lines.append(f"  {where:<9} {severity} {f.rule} {paint(f.name, 'dim')}  "
                         f"{f.message}")
        lines.append("")
    lines.append(summary_line(result))
    if result.skipped:
        shown = ", ".join(f"{name} ({why})" for name, why in result.skipped[:5]) + (
            ", ..." if len(result.skipped) > 5 else "")
        lines.append(f"Skipped {count(len(result.skipped), 'file')}: {shown}.")
    if result.baseline is not None:
        lines.append(f"The baseline holds {count(result.baseline['baselined'], 'finding')} "
                     f"left out here; {result.baseline['fixed']} of its findings are fixed "
                     "(write it again to drop them).")
    for code, n in result.unchecked.items():
        if n:
            subject, why = _UNCHECKED.get(code, UNKNOWN_VALUE)
            lines.append(f"{code} could not be checked for {count(n, subject)}: {why}.")
    return "\n".join(lines) + "\n"


def summary_line(result) -> str:
    counts = result.counts()
    problems = counts["error"] + counts["warning"] + counts["note"]
    files = f"{result.files} file{'s' if result.files != 1 else ''}"
    if not problems and not counts["suppressed"]:
        return f"No problems found in {files}."
    if not result.files:
        files = "the inputs"  # problems of the call's own files (a policy's exemptions)
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}"
             for s in ("error", "warning", "note")]
    tail = f", {counts['suppressed']} suppressed" if counts["suppressed"] else ""
    return f"Found {problems} problem{'s' if problems != 1 else ''} ({', '.join(parts)}) in " \
           f"{files}{tail}."
