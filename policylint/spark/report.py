"""``policylint audit --report FILE.html``: the state of the fleet at a glance, in one
self-contained HTML file (plotly's JavaScript is inlined: it opens offline)."""

from __future__ import annotations

import html
from collections import defaultdict

SEVERITY_ORDER = ("error", "warning", "note")


def render(rows: list[dict], title: str = "policylint fleet audit") -> str:
    """``rows``: the summary table (cluster, captured_at, rule, severity, findings)."""
    import plotly.graph_objects as go

    latest_capture: dict[str, str] = {}
    for r in rows:
        latest_capture[r["cluster"]] = max(latest_capture.get(r["cluster"], ""),
                                           r["captured_at"] or "")
    latest = [r for r in rows if (r["captured_at"] or "") == latest_capture[r["cluster"]]]
    clusters = sorted(latest_capture)
    rules = sorted({r["rule"] for r in rows})
    totals = defaultdict(int)
    for r in latest:
        totals[r["severity"]] += r["findings"]

    charts = []
    by_cell = defaultdict(int)
    for r in latest:
        by_cell[(r["rule"], r["cluster"])] += r["findings"]
    if rules:
        bars = go.Figure([go.Bar(name=rule, x=clusters,
                                 y=[by_cell[(rule, c)] for c in clusters]) for rule in rules])
        bars.update_layout(barmode="stack", title="Findings per rule per cluster "
                           "(latest snapshot of each cluster)", xaxis_title="cluster",
                           yaxis_title="findings", legend_title="rule")
        charts.append(bars)
        heat = go.Figure(go.Heatmap(z=[[by_cell[(rule, c)] for c in clusters] for rule in rules],
                                    x=clusters, y=rules, colorscale="Reds",
                                    hovertemplate="%{y} on %{x}: %{z}<extra></extra>"))
        heat.update_layout(title="Where each rule fires", xaxis_title="cluster",
                           yaxis_title="rule", yaxis_autorange="reversed")
        charts.append(heat)
    captures = sorted({r["captured_at"] or "" for r in rows})
    if len(captures) > 1:
        trend = defaultdict(int)
        for r in rows:
            trend[(r["rule"], r["captured_at"] or "")] += r["findings"]
        lines = go.Figure([go.Scatter(name=rule, x=captures, mode="lines+markers",
                                      y=[trend[(rule, t)] for t in captures])
                           for rule in rules])
        lines.update_layout(title="Each rule over capture time (all clusters)",
                            xaxis_title="captured at", yaxis_title="findings",
                            legend_title="rule")
        charts.append(lines)

    parts = [fig.to_html(full_html=False, include_plotlyjs=(i == 0))
             for i, fig in enumerate(charts)]
    worst = sorted(((sum(n for (_, c), n in by_cell.items() if c == cluster), cluster)
                    for cluster in clusters), reverse=True)[:20]
    table = "".join(f"<tr><td>{html.escape(c)}</td><td>{n}</td></tr>" for n, c in worst)
    headline = " &middot; ".join(f"<b>{totals[s]}</b> {s}{'s' if totals[s] != 1 else ''}"
                                 for s in SEVERITY_ORDER)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:system-ui,sans-serif;margin:2rem;color:#222}}
table{{border-collapse:collapse}}td,th{{padding:.2rem .8rem;border-bottom:1px solid #ddd}}
.chart{{margin:1.5rem 0}}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{len(clusters)} cluster{'s' if len(clusters) != 1 else ''}, {len(captures)} capture
time{'s' if len(captures) != 1 else ''}. Latest snapshots: {headline}
(suppressed findings not counted).</p>
{''.join(f'<div class="chart">{p}</div>' for p in parts) or '<p>No findings.</p>'}
<h2>Clusters with the most findings (latest snapshot)</h2>
<table><tr><th>cluster</th><th>findings</th></tr>{table}</table>
</body></html>
"""
