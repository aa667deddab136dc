"""What the audit tells a platform owner, in the console and in one self-contained HTML file
(``--report``), from the same numbers: each cluster's latest capture (errors, warnings,
topics affected), what changed since its previous capture (new, fixed, still open: matched
by rule, topic and partition), the worst topics, the rules by family, and every finding of
the latest captures in a table filtered by cluster, rule, severity and topic.

Clusters and topics come in the order they need fixing: errors first, then warnings, then
what is new since the previous capture. Colours mean severity alone; each rule links to its
page; every table sorts by a click on its headings (or ``#sort=column`` in the address)."""

from __future__ import annotations

import datetime as dt
import heapq
import html
from collections import Counter, defaultdict

from .. import __version__
from ..model import SEVERITIES
from ..words import plural
FAMILIES = {"PL1": "inputs", "PL2": "replication factor (KIP-860)",
            "PL3": "in-sync replicas (KIP-352, KIP-579)", "PL4": "racks",
            "PL5": "placeholders (KIP-409)", "PL6": "topic configs",
            "PL7": "organisation policy", "PL8": "cluster configs"}
#: the one meaning colour has in the report: the severity (the text's classes use the same
#: hues, the warning's darker to read on white)
SEVERITY_COLOURS = {"error": "#c0392b", "warning": "#e0a526", "note": "#2471a3"}
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
        self.clusters = sorted(self.captures, key=lambda c: _urgency(self.headline(c)) + (
            c is not None, c or ""))

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
        """(cluster, topic, errors, warnings, notes, new) of the topics that need fixing
        first: most errors, then warnings, then findings new since the previous capture."""
        counts: dict[tuple, dict[str, int]] = defaultdict(
            lambda: dict.fromkeys(SEVERITIES + ("new",), 0))  # plain dicts: Counter is slower
        for f in self.latest:
            if f["topic"]:
                count = counts[(f["cluster"], f["topic"])]
                count[f["severity"]] += 1
                count["new"] += self.change[(f["cluster"],) + _key(f)] == "new"
        # the n first of the sorted order, without sorting every topic
        ranked = heapq.nsmallest(n, counts.items(), key=lambda kv: _urgency(kv[1]) + (
            -kv[1]["note"], kv[0][0] or "", kv[0][1]))
        return [(c, t, k["error"], k["warning"], k["note"], k["new"]) for (c, t), k in ranked]

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
                for c, t, *n, _ in worst))
        return "\n".join(lines)


def _urgency(counts) -> tuple:
    """What needs fixing first sorts first: more errors, then warnings, then new findings."""
    return (-counts.get("error", 0), -counts.get("warning", 0), -counts.get("new", 0))


def _counts(h: dict) -> str:
    return ", ".join(_plural(h[s], s) for s in SEVERITIES)


def _bars(items: list[tuple[str, Counter]]) -> str:
    """A horizontal bar chart in HTML and CSS: (label HTML, findings by severity) each, a
    bar of one segment per severity in its colour."""
    top = max((sum(c.values()) for _, c in items), default=0) or 1
    return "".join(
        f'<div class="bar"><span class="label">{label}</span><span class="track">'
        + "".join(f'<span class="fill {s}" title="{c[s]:,} {plural(c[s], s)}" style="width:'
                  f'{85 * c[s] / top:.1f}%;background:{SEVERITY_COLOURS[s]}"></span>'
                  for s in SEVERITIES if c[s])
        + f'<span class="value">{sum(c.values()):,}</span></span></div>' for label, c in items)


def _rule_link(rule: str, name: str) -> str:
    """The rule's code and name, linked to its page when it has one."""
    from ..registry import find
    found = find(rule)
    url = found.help_uri() if found is not None else None
    text = f"{rule} {html.escape(name)}"
    return f'<a href="{html.escape(url, True)}">{text}</a>' if url else text


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
        f'<tr><td class="name">{html.escape(t)}</td><td class="name">{html.escape(c or "")}'
        f"</td><td>{e:,}</td><td>{w:,}</td><td>{n:,}</td><td>{new:,}</td></tr>"
        for c, t, e, w, n, new in o.worst_topics())
    links = {r: _rule_link(r, name) for r, name, _, _ in o.by_rule()}
    links.update((f["rule"], _rule_link(f["rule"], f["name"])) for f in o.fixed
                 if f["rule"] not in links)
    families: dict[str, Counter] = defaultdict(Counter)
    rules: dict[str, Counter] = defaultdict(Counter)
    for f in o.latest:
        families[f["rule"][:3]][f["severity"]] += 1
        rules[f["rule"]][f["severity"]] += 1
    family_bars = _bars([(html.escape(f"{FAMILIES.get(k, k)} ({k}xx)"), c) for k, c in
                         sorted(families.items(), key=lambda kv: -sum(kv[1].values()))])
    rule_bars = _bars([(f"{links[r]} ({severity})", rules[r])
                       for r, _, severity, _ in o.by_rule()[:15]])
    shown = o.latest[:TABLE_LIMIT]

    def row(f: dict, change: bool) -> str:
        """A finding's row, with what the filters read in its data attributes."""
        return (f'<tr data-cluster="{html.escape(f["cluster"] or "", True)}" '
                f'data-rule="{f["rule"]}" data-severity="{f["severity"]}" '
                f'data-topic="{html.escape(f["topic"] or "", True)}">'
                f'<td class="name">{html.escape(f["cluster"] or "")}</td>'
                f'<td class="{f["severity"]}">{f["severity"]}</td>'
                f'<td class="name" title="{html.escape(f["name"], True)}">{links[f["rule"]]}'
                f'</td><td class="name">{html.escape(f["topic"] or "")}</td>'
                f'<td>{"" if f["partition"] is None else f["partition"]}</td>'
                + (f'<td>{o.change[(f["cluster"],) + _key(f)]}</td>' if change else "")
                + f'<td>{html.escape(f["message"])}</td></tr>')
    rows = "".join(row(f, True) for f in shown)
    fixed = "".join(row(f, False) for f in o.fixed[:1000])

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
        '<tr><td colspan="6">No topic has a finding.</td></tr>', family_bars=family_bars
        or "<p>No findings.</p>", rule_bars=rule_bars, rows=rows, count=len(shown),
        limit=limit, fixed=fixed, fixed_count=len(o.fixed[:1000]),
        cluster_options=options((c or "", c or "(no cluster)") for c in o.clusters),
        rule_options=options(rule_names),
        severity_options=options((s, s) for s in SEVERITIES),
        legend="".join(f'<span style="background:{SEVERITY_COLOURS[s]}"></span>{s}'
                       for s in SEVERITIES),
        suppressed=f" ({o.suppressed:,} suppressed, not counted)" if o.suppressed else "")


_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>policylint fleet audit</title>
<style>
body{{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:80rem}}
h1{{margin-bottom:.2rem}} .stamp{{color:#666;font-size:.85rem}}
.cards{{display:flex;flex-wrap:wrap;gap:1rem}}
.card{{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;min-width:16rem}}
.card h3{{margin:.2rem 0}} .card p{{margin:.3rem 0}} .at,.change{{color:#555;font-size:.9rem}}
.error{{color:#c0392b}} .warning{{color:#9a6b00}} .note{{color:#2471a3}}
.name,td:nth-child(5){{white-space:nowrap}}
table{{border-collapse:collapse;width:100%}} td,th{{padding:.25rem .6rem;
border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top;font-size:.9rem}}
th{{cursor:pointer;user-select:none}} th[aria-sort=ascending]::after{{content:" \25B2"}}
th[aria-sort=descending]::after{{content:" \25BC"}}
.bar{{display:flex;align-items:center;margin:.15rem 0}}
.label{{flex:0 0 17rem;font-size:.85rem;margin-right:.5rem;white-space:nowrap;overflow:hidden;
text-overflow:ellipsis}} .track{{flex:1;display:flex;align-items:center}}
.fill{{height:.9rem}} .value{{font-size:.85rem;margin-left:.5rem}}
.filters{{display:flex;gap:.6rem;margin:.6rem 0;flex-wrap:wrap}}
.charts{{display:grid;grid-template-columns:1fr 1fr;gap:2rem}}
.legend span{{display:inline-block;width:.8rem;height:.8rem;margin:0 .3rem 0 .8rem}}
</style></head><body>
<h1>policylint fleet audit</h1>
<p class="stamp">{stamp}</p>
<p>{clusters}. Latest captures: <b>{total}</b> on {topics}{suppressed}.</p>
<h2>Clusters</h2><div class="cards">{cards}</div>
<h2>Worst topics (latest captures)</h2>
<table id="worst"><thead><tr><th>topic</th><th>cluster</th><th>errors</th><th>warnings</th>
<th>notes</th><th>new</th></tr></thead><tbody>{worst}</tbody></table>
<p class="legend">Colours are severities:{legend}</p>
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
<p>The filters above apply here too: <span id="fixed-shown" data-total="{fixed_count}">
{fixed_count} fixed</span>.</p>
<table id="fixed"><thead><tr><th>cluster</th><th>severity</th><th>rule</th><th>topic</th>
<th>partition</th><th>message</th></tr></thead><tbody>{fixed}</tbody></table>
<script>
(function () {{
  var ids = ["cluster", "rule", "severity", "topic"];
  function filter(table, counter, what) {{
    var want = {{}}, shown = 0, rows = document.querySelectorAll(table + " tbody tr");
    ids.forEach(function (id) {{ want[id] = document.getElementById(id).value; }});
    rows.forEach(function (row) {{
      var ok = (!want.cluster || row.dataset.cluster === want.cluster) &&
               (!want.rule || row.dataset.rule === want.rule) &&
               (!want.severity || row.dataset.severity === want.severity) &&
               (!want.topic || row.dataset.topic.indexOf(want.topic) >= 0);
      row.hidden = !ok;
      if (ok) shown++;
    }});
    var out = document.getElementById(counter);
    out.textContent = shown + " of " + out.dataset.total + " " + what;
    out.dataset.shown = shown;
  }}
  function apply() {{
    filter("#findings", "shown", "findings");
    filter("#fixed", "fixed-shown", "fixed");
  }}
  function sort(th, descending) {{  // numbers as numbers, the rest as text
    var table = th.closest("table"), body = table.tBodies[0];
    var column = Array.prototype.indexOf.call(th.parentNode.children, th);
    var rows = Array.prototype.slice.call(body.rows);
    function value(row) {{
      var text = row.cells[column] ? row.cells[column].textContent.trim() : "";
      var number = Number(text.replace(/,/g, ""));
      return text !== "" && !isNaN(number) ? number : text.toLowerCase();
    }}
    rows.sort(function (a, b) {{
      var x = value(a), y = value(b);
      var order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0)
                                        : (typeof x === "number" ? -1 : 1);
      return descending ? -order : order;
    }});
    rows.forEach(function (row) {{ body.appendChild(row); }});
    table.querySelectorAll("th").forEach(function (h) {{ h.removeAttribute("aria-sort"); }});
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }}
  document.querySelectorAll("thead th").forEach(function (th) {{
    th.addEventListener("click", function () {{
      sort(th, th.getAttribute("aria-sort") === "ascending");
    }});
  }});
  function fromHash() {{  // #rule=PL301&cluster=prod&sort=-errors: a link to a view
    new URLSearchParams(location.hash.slice(1)).forEach(function (value, key) {{
      if (ids.indexOf(key) >= 0) document.getElementById(key).value = value;
      if (key === "sort") {{
        var name = value.replace(/^-/, "");
        document.querySelectorAll("thead th").forEach(function (th) {{
          if (th.textContent.trim() === name) sort(th, value[0] === "-");
        }});
      }}
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
