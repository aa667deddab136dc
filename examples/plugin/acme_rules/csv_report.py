"""``--format csv``: one finding per line, for spreadsheets (an example reporter plugin)."""

import csv
import io


def render(result, **options) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rule", "severity", "file", "line", "column", "topic", "partition",
                     "message", "suppressed"])
    for f in result.findings:
        writer.writerow([f.rule, f.severity, f.file, f.line, f.column, f.topic, f.partition,
                         f.message, f.suppressed])
    return out.getvalue()
