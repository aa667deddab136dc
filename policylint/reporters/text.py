"""``--format text``: each finding on a line of its own that editors turn into a link, its
source line and a caret under it (as ruff's ``full``), then a summary."""

from __future__ import annotations

from ..words import count, line_start, shown

# code -> (what it counts, why it could not check them), for the summary
MIN_ISR = ("subject", "no input states the min.insync.replicas or replication factor it "
                      "leaves to its cluster (give the topic's cluster with --cluster or its "
                      "Kafka resource), it is a template placeholder, or no snapshot, "
                      "--current assignment or manifest gives the current RF of a plan's entry")
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
    "PL121": ("topic", "its cluster is described twice, differently, in its scope: which one "
                       "it is written for is not known, so it is judged against neither"),
    "PL123": ("plan entry", "no cluster of the run places its plan"),
    "PL209": ("topic", "its replication factor is left to its cluster's "
                       "default.replication.factor and no input states it (give the topic's "
                       "cluster with --cluster or its Kafka resource), or a plan's entry whose "
                       "current replication factor no snapshot, --current assignment or "
                       "manifest gives"),
    "PL301": MIN_ISR, "PL302": MIN_ISR, "PL303": MIN_ISR,
    "PL308": ("topic", "whether eligible leader replicas are on for its cluster is stated by "
                       "no input (a snapshot with the cluster's features, "
                       "eligible.leader.replicas.version)"),
    "PL203": ("subject", "its cluster's broker count is unknown (a Strimzi Kafka with node "
                         "pools needs them among the inputs; kafka-topics.sh output lists no "
                         "brokers), or its replication factor is a template placeholder"),
}
UNKNOWN_VALUE = ("subject", "a value it reads is stated by no input (its cluster or a broker "
                            "setting no input gives, or a template placeholder)")
_COLOURS = {"error": "31", "warning": "33", "note": "36", "dim": "2", "bold": "1"}


def render(result, color: bool = False, quiet: bool = False, show_suppressed: bool = False,
           **_) -> str:
    """Each finding as ``path:line:col: CODE [severity] message`` (a line editors and
    terminals turn into a link), then its source line with a caret under the column.
    Suppressed findings are counted in the summary and shown only when asked
    (``--show-suppressed``), dimmed and said so."""
    def paint(text: str, style: str) -> str:
        return f"\033[{_COLOURS[style]}m{text}\033[0m" if color else text

    lines: list[str] = []
    for f in result.findings:
        if f.suppressed:  # dimmed and said so: it fails nothing
            if not show_suppressed:
                continue
            lines.append(paint(f"{location(f)}: {f.rule} [suppressed] {shown(f.message)} "
                               f"({f.severity}; {shown(f.justification or '')})", "dim"))
            continue
        lines.append(f"{paint(location(f), 'bold')}: {f.rule}{FIXABLE if f.fix else ''} "
                     f"{paint(f'[{f.severity}]', f.severity)} {shown(f.message)}")
        lines += [paint(line, "dim") if i != 2 else paint(line, f.severity)
                  for i, line in enumerate(source_excerpt(f))]
    if quiet:
        return "\n".join(lines) + "\n" if lines else ""
    if lines:
        lines.append("")
    lines += trailer(result)
    return "\n".join(lines) + "\n"


def location(f) -> str:
    where = line_start(f.file) if f.file else "(policy)"
    return f"{where}:{f.line}:{f.column}" if f.line is not None else where


def source_excerpt(f) -> list[str]:
    """The finding's source line under a gutter with its number, and a caret under its
    column; nothing where the line is not known (a plan's partition, a policy key)."""
    doc = f.at[0] if f.at else None
    text = doc.source.line(f.line) if doc is not None and f.line else None
    if text is None:
        return []
    number = str(f.line)
    pad = " " * len(number)
    excerpt = shown(text.expandtabs(1)[:200])
    caret = " " * min(max((f.column or 1) - 1, 0), len(excerpt)) + "^"
    return [f" {pad} |", f" {number} | {excerpt}", f" {pad} | {caret}"]


#: the mark of a finding --fix resolves (ruff's)
FIXABLE = " [*]"


def trailer(result) -> list[str]:
    """The summary line, and what is fixable, skipped, baselined or could not be checked."""
    lines = [summary_line(result)]
    fixable = sum(1 for f in result.findings if f.fix and not f.suppressed)
    if fixable:
        lines.append(f"[*] {count(fixable, 'finding')} fixable with --fix (--diff shows how).")
    if result.skipped:
        names = ", ".join(f"{shown(name)} ({shown(why)})" for name, why in result.skipped[:5]) \
            + (", ..." if len(result.skipped) > 5 else "")
        lines.append(f"Skipped {count(len(result.skipped), 'file')}: {names}.")
    if result.baseline is not None:
        lines.append(f"The baseline holds {count(result.baseline['baselined'], 'finding')} "
                     f"left out here; {result.baseline['fixed']} of its findings are fixed "
                     "(write it again to drop them).")
    said: dict[tuple, list[tuple]] = {}  # the rules of one reason are said on one line
    needs: dict[str, set] = {}  # what each rule's subjects need, as they said it
    for item in getattr(result, "unchecked_subjects", None) or ():
        needs.setdefault(item["rule"], set()).add(item.get("needs"))
    for code, n in result.unchecked.items():
        if n:
            subject, why = _UNCHECKED.get(code, UNKNOWN_VALUE)
            said_once = needs.get(code, set())
            if code not in _UNCHECKED and len(said_once) == 1 and None not in said_once:
                why = next(iter(said_once))  # a rule's own reason (a CEL rule's error)
            said.setdefault((subject, why), []).append((code, n))
    for (subject, why), counts in said.items():
        codes = [code for code, _ in counts]
        named = codes[0] if len(codes) == 1 else \
            f"{', '.join(codes[:-1])} and {codes[-1]}"
        if len({n for _, n in counts}) == 1:
            lines.append(f"{named} could not be checked for {count(counts[0][1], subject)}: "
                         f"{why}.")
        else:
            each = ", ".join(f"{code} ({count(n, subject)})" for code, n in counts)
            lines.append(f"{each} could not be checked: {why}.")
    return lines


def summary_line(result) -> str:
    counts = result.counts()
    problems = counts["error"] + counts["warning"] + counts["note"]
    files = f"{result.files} file{'s' if result.files != 1 else ''}"
    if not result.files and not problems and not counts["suppressed"]:
        return "Nothing to check: no Kafka topic declaration, cluster, plan or snapshot was read."
    if not problems and not counts["suppressed"]:
        return f"No problems found in {files}."
    if not result.files:
        files = "the inputs"  # problems of the call's own files (a policy's exemptions)
    parts = [f"{counts[s]} {s}{'s' if counts[s] != 1 else ''}"
             for s in ("error", "warning", "note")]
    tail = f", {counts['suppressed']} suppressed" if counts["suppressed"] else ""
    return f"Found {problems} problem{'s' if problems != 1 else ''} ({', '.join(parts)}) in " \
           f"{files}{tail}."
