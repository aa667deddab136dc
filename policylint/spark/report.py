"""What the audit tells a platform owner, in the console and in one self-contained HTML file
(``--report``), from the same numbers: each cluster's latest capture (errors, warnings,
topics affected), what changed since its previous capture (new, fixed, still open: matched
by rule, topic and partition), the worst topics, the rules by family, and every finding of
the latest captures in a table filtered by cluster, rule, severity and topic."""

from __future__ import annotations

import datetime as dt
import html
from collections import Counter, defaultdict

from .. import __version__
from ..model import SEVERITIES
from ..words import plural
FAMILIES = {"PL1": "inputs", "PL2": "replication factor (KIP-860)",
            "PL3": "in-sync replicas (KIP-352, KIP-579)", "PL4": "racks",
            "PL5": "placeholders (KIP-409)", "PL6": "topic configs",
            "PL7": "organisation policy", "PL8": "cluster configs"}
COLOURS = ("#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7", "#a463f2",
           "#97bbf5", "#9c6b4e")
TABLE_LIMIT = 20_000  # rows in the report's table; the findings/ table holds them all
EVERY = object()  # headline(): of the whole fleet (None names findings of no cluster)


def _plural(n: int, word: str) -> str:
    return f"{n:,} {plural(n, word)}"


def capture_order(times: list[str | None]) -> list[str | None]:
    """A cluster's distinct capture times, oldest first (a capture without a time first)."""
    return sorted(set(times), key=lambda t: (t is not None, t or ""))


def _key(f: dict) -> tuple:
    return (f["rule"], f["topic"], f["partition"])


class Overview:
    """``recent``: the findings of each cluster's two latest captures; ``captures``: every
    capture time of every cluster audited (clusters without findings count too)."""

    def __init__(self, recent: list[dict], captures: dict[str | None, list[str]]):
        self.captures = {c: capture_order(times) for c, times in captures.items()}
        for f in recent:
            self.captures.setdefault(f["cluster"], [f["captured_at"]])
        self.clusters = sorted(self.captures, key=lambda c: (c is not None, c or ""))
        last = {c: times[-1] for c, times in self.captures.items() if times}
        before = {c: times[-2] for c, times in self.captures.items() if len(times) > 1}
        self.latest_at, self.previous_at = last, before
        shown = [f for f in recent if not f["suppressed"]]
        self.latest = [f for f in shown if last.get(f["cluster"]) == f["captured_at"]]
        self.previous = [f for f in shown if before.get(f["cluster"]) == f["captured_at"]]
        self.suppressed = sum(1 for f in recent if f["suppressed"]
                              and last.get(f["cluster"]) == f["captured_at"])
        now = {(f["cluster"],) + _key(f) for f in self.latest}
        then = {(f["cluster"],) + _key(f) for f in self.previous}
        self.change = {k: "new" if k[0] in before and k not in then else "open" for k in now}
        self.fixed = [f for f in self.previous if (f["cluster"],) + _key(f) not in now]
        # per cluster, once: a headline per cluster must not read every finding again
        self._latest_of: dict[object, list[dict]] = defaultdict(list)
        for f in self.latest:
            self._latest_of[f["cluster"]].append(f)
        self._changes_of: dict[object, Counter] = defaultdict(Counter)
        for k, v in self.change.items():
            self._changes_of[k[0]][v] += 1
        self._fixed_of = Counter(f["cluster"] for f in self.fixed)

    def headline(self, cluster: object = EVERY) -> dict:
        every = cluster is EVERY
        rows = self.latest if every else self._latest_of.get(cluster, [])
        counts = Counter(f["severity"] for f in rows)
        out = {s: counts[s] for s in SEVERITIES}
        out["topics"] = len({(f["cluster"], f["topic"]) for f in rows if f["topic"]})
        if every or cluster in self.previous_at:
            changes = Counter(self.change.values()) if every \
                else self._changes_of.get(cluster, Counter())
            out.update(new=changes["new"], open=changes["open"],
                       fixed=len(self.fixed) if every else self._fixed_of[cluster])
        return out

    def worst_topics(self, n: int = 10) -> list[tuple]:
        """(cluster, topic, errors, warnings, notes) of the topics with the most findings,
        errors first."""
        counts: dict[tuple, Counter] = defaultdict(Counter)
        for f in self.latest:
            if f["topic"]:
                counts[(f["cluster"], f["topic"])][f["severity"]] += 1
        ranked = sorted(counts.items(), key=lambda kv: (
            -kv[1]["error"], -kv[1]["warning"], -kv[1]["note"], kv[0][0] or "", kv[0][1]))
        return [(c, t, k["error"], k["warning"], k["note"]) for (c, t), k in ranked[:n]]

    def by_rule(self) -> list[tuple[str, str, str, int]]:
        """(rule, name, severity, findings) of the latest captures, most first."""
        counts = Counter((f["rule"], f["name"], f["severity"]) for f in self.latest)
        return sorted(((r, n, s, c) for (r, n, s), c in counts.items()),
                      key=lambda x: (-x[3], x[0]))

    def console(self) -> str:
        total = self.headline()
        lines = [f"{_plural(len(self.clusters), 'cluster')}; latest captures: "
                 + _counts(total) + f" on {_plural(total['topics'], 'topic')}"
                 + (f" ({self.suppressed:,} suppressed)" if self.suppressed else "")]
        for cluster in self.clusters:
            h = self.headline(cluster)
            line = (f"  {cluster or '(no cluster)'} at {self.latest_at.get(cluster) or '-'}: "
                    f"{_counts(h)} on {_plural(h['topics'], 'topic')}")
            if "new" in h:
                line += (f"; since {self.previous_at[cluster]}: {h['new']:,} new, "
                         f"{h['fixed']:,} fixed, {h['open']:,} still open")
            lines.append(line)
        worst = self.worst_topics(3)
        if worst:
            lines.append("worst topics: " + "; ".join(
                f"{t} on {c} ({_counts(dict(zip(SEVERITIES, n))) })"
                for c, t, *n in worst))
        return "\n".join(lines)


def _counts(h: dict) -> str:
    return ", ".join(_plural(h[s], s) for s in SEVERITIES)


def _bars(items: list[tuple[str, int, str]]) -> str:
    """A horizontal bar chart in HTML and CSS: (label, value, colour) each."""
    top = max((v for _, v, _ in items), default=0) or 1
    return "".join(
        f'<div class="bar"><span class="label">{html.escape(label)}</span>'
        f'<span class="fill" style="width:{60 * v / top:.1f}%;background:{colour}"></span>'
        f'<span class="value">{v:,}</span></div>' for label, v, colour in items)


def render(overview: Overview, *, policy: str, inputs: str, engine: str) -> str:
    o = overview
    total = o.headline()
    cards = "".join(
        f'<div class="card"><h3>{html.escape(c or "(no cluster)")}</h3>'
        f'<p class="at">latest capture {html.escape(o.latest_at.get(c) or "-")}</p>'
        f'<p><b class="error">{h["error"]:,}</b> errors &middot; <b class="warning">'
        f'{h["warning"]:,}</b> warnings &middot; {h["note"]:,} notes</p>'
        f'<p>{_plural(h["topics"], "topic")} affected</p>'
        + (f'<p class="change">since {html.escape(o.previous_at[c])}: <b>{h["new"]:,}</b> '
           f'new, <b>{h["fixed"]:,}</b> fixed, {h["open"]:,} still open</p>' if "new" in h
           else '<p class="change">first capture: nothing to compare</p>') + "</div>"
        for c in o.clusters for h in [o.headline(c)])
    worst = "".join(
        f"<tr><td>{html.escape(t)}</td><td>{html.escape(c or '')}</td><td>{e:,}</td>"
        f"<td>{w:,}</td><td>{n:,}</td></tr>" for c, t, e, w, n in o.worst_topics())
    families = Counter(f["rule"][:3] for f in o.latest)
    family_colour = {k: COLOURS[i % len(COLOURS)] for i, k in enumerate(sorted(FAMILIES))}
    family_bars = _bars([(f"{FAMILIES.get(k, k)} ({k}xx)", n, family_colour.get(k, "#888"))
                         for k, n in families.most_common()])
    rule_bars = _bars([(f"{r} {name} ({severity})", n, family_colour.get(r[:3], "#888"))
                       for r, name, severity, n in o.by_rule()[:15]])
    shown = o.latest[:TABLE_LIMIT]
    rows = "".join(
        f'<tr data-cluster="{html.escape(f["cluster"] or "", True)}" '
        f'data-rule="{f["rule"]}" data-severity="{f["severity"]}" '
        f'data-topic="{html.escape(f["topic"] or "", True)}">'
        f'<td>{html.escape(f["cluster"] or "")}</td><td class="{f["severity"]}">'
        f'{f["severity"]}</td><td title="{html.escape(f["name"], True)}">{f["rule"]} '
        f'{html.escape(f["name"])}</td><td>{html.escape(f["topic"] or "")}</td>'
        f'<td>{"" if f["partition"] is None else f["partition"]}</td>'
        f'<td>{o.change[(f["cluster"],) + _key(f)]}</td>'
        f'<td>{html.escape(f["message"])}</td></tr>' for f in shown)
    fixed = "".join(
        f"<tr><td>{html.escape(f['cluster'] or '')}</td><td>{f['rule']} "
        f"{html.escape(f['name'])}</td><td>{html.escape(f['topic'] or '')}</td>"
        f"<td>{'' if f['partition'] is None else f['partition']}</td>"
        f"<td>{html.escape(f['message'])}</td></tr>" for f in o.fixed[:1000])

    def options(values) -> str:
        return "".join(f'<option value="{html.escape(v, True)}">{html.escape(label)}</option>'
                       for v, label in values)
    rule_names = sorted({(f["rule"], f"{f['rule']} {f['name']}") for f in o.latest})
    stamp = (f"generated {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M:%S} UTC by "
             f"policylint {__version__} &middot; policy {html.escape(policy)} &middot; "
             f"inputs {html.escape(inputs)} &middot; engine {engine}")
    limit = (f" (the first {TABLE_LIMIT:,} of {len(o.latest):,}; findings/ has all)"
             if len(o.latest) > TABLE_LIMIT else "")
    return _PAGE.format(
        stamp=stamp, clusters=_plural(len(o.clusters), "cluster"), total=_counts(total),
        topics=_plural(total["topics"], "topic"), cards=cards, worst=worst or
        '<tr><td colspan="5">No topic has a finding.</td></tr>', family_bars=family_bars
        or "<p>No findings.</p>", rule_bars=rule_bars, rows=rows, count=len(shown),
        limit=limit, fixed=fixed or '<tr><td colspan="5">Nothing fixed.</td></tr>',
        cluster_options=options((c or "", c or "(no cluster)") for c in o.clusters),
        rule_options=options(rule_names),
        severity_options=options((s, s) for s in SEVERITIES),
        suppressed=f" ({o.suppressed:,} suppressed, not counted)" if o.suppressed else "")


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>policylint fleet audit</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:80rem}}
h1{{margin-bottom:.2rem}} .stamp{{color:#666;font-size:.85rem}}
.cards{{display:flex;flex-wrap:wrap;gap:1rem}}
.card{{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;min-width:16rem}}
.card h3{{margin:.2rem 0}} .card p{{margin:.3rem 0}} .at,.change{{color:#555;font-size:.9rem}}
.error{{color:#c0392b}} .warning{{color:#b9770e}} .note{{color:#2471a3}}
#findings td:nth-child(-n+6){{white-space:nowrap}}
table{{border-collapse:collapse;width:100%}} td,th{{padding:.25rem .6rem;
border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top;font-size:.9rem}}
.bar{{display:flex;align-items:center;gap:.5rem;margin:.15rem 0}}
.label{{width:24rem;font-size:.85rem}} .fill{{height:.9rem;border-radius:2px}}
.value{{font-size:.85rem}} .filters{{display:flex;gap:.6rem;margin:.6rem 0;flex-wrap:wrap}}
.charts{{display:grid;grid-template-columns:1fr 1fr;gap:2rem}}
</style></head><body>
<h1>policylint fleet audit</h1>
<p class="stamp">{stamp}</p>
<p>{clusters}. Latest captures: <b>{total}</b> on {topics}{suppressed}.</p>
<h2>Clusters</h2><div class="cards">{cards}</div>
<h2>Worst topics (latest captures)</h2>
<table><tr><th>topic</th><th>cluster</th><th>errors</th><th>warnings</th><th>notes</th></tr>
{worst}</table>
<div class="charts"><div><h2>By rule family</h2>{family_bars}</div>
<div><h2>Top rules</h2>{rule_bars}</div></div>
<h2>Findings of the latest captures</h2>
<div class="filters">
<select id="cluster"><option value="">every cluster</option>{cluster_options}</select>
<select id="rule"><option value="">every rule</option>{rule_options}</select>
<select id="severity"><option value="">every severity</option>{severity_options}</select>
<input id="topic" placeholder="topic contains..." size="24">
<span id="shown" data-total="{count}">{count} findings{limit}</span></div>
<table id="findings"><thead><tr><th>cluster</th><th>severity</th><th>rule</th><th>topic</th>
<th>partition</th><th>change</th><th>message</th></tr></thead><tbody>{rows}</tbody></table>
<h2>Fixed since the previous capture</h2>
<table><tr><th>cluster</th><th>rule</th><th>topic</th><th>partition</th><th>message</th></tr>
{fixed}</table>
<script>
(function () {{
  var ids = ["cluster", "rule", "severity", "topic"];
  var rows = document.querySelectorAll("#findings tbody tr");
  function apply() {{
    var want = {{}}, shown = 0;
    ids.forEach(function (id) {{ want[id] = document.getElementById(id).value; }});
    rows.forEach(function (row) {{
      var ok = (!want.cluster || row.dataset.cluster === want.cluster) &&
               (!want.rule || row.dataset.rule === want.rule) &&
               (!want.severity || row.dataset.severity === want.severity) &&
               (!want.topic || row.dataset.topic.indexOf(want.topic) >= 0);
      row.hidden = !ok;
      if (ok) shown++;
    }});
    var out = document.getElementById("shown");
    out.textContent = shown + " of " + out.dataset.total + " findings";
    out.dataset.shown = shown;
  }}
  function fromHash() {{  // #rule=PL301&cluster=prod: a link to a filtered view
    new URLSearchParams(location.hash.slice(1)).forEach(function (value, key) {{
      if (ids.indexOf(key) >= 0) document.getElementById(key).value = value;
    }});
    apply();
  }}
  ids.forEach(function (id) {{
    document.getElementById(id).addEventListener("input", apply);
  }});
  window.addEventListener("hashchange", fromHash);
  fromHash();
}})();
</script>
</body></html>
"""
