"""The audit's report and console summary: what changed between captures, the same numbers
in both, and the page working in a real browser (headless Chromium)."""

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from policylint.spark.report import Overview, render

EXAMPLE_FLEET = Path(__file__).parents[1] / "examples" / "fleet" / "snapshots"


def finding(cluster, at, rule, topic, partition=None, severity="error", suppressed=False):
    return {"rule": rule, "name": rule.lower(), "severity": severity, "cluster": cluster,
            "captured_at": at, "topic": topic, "partition": partition,
            "message": f"{rule} on {topic}", "source": None, "suppressed": suppressed,
            "justification": "known" if suppressed else None}


T1, T2 = "2026-11-21T00:00:00Z", "2026-11-22T00:00:00Z"
RECENT = [
    finding("prod", T1, "PL301", "orders"),            # fixed
    finding("prod", T1, "PL401", "orders", 0),         # still open
    finding("prod", T1, "PL401", "orders", 1),         # fixed: partition 1 no longer
    finding("prod", T2, "PL401", "orders", 0),
    finding("prod", T2, "PL307", "payments", 2, "warning"),  # new
    finding("prod", T2, "PL204", "audit", 0, suppressed=True),
    finding("dev", T2, "PL209", "orders", severity="warning"),  # first capture of dev
]
CAPTURES = {"prod": [T1, T2], "dev": [T2], "clean": [T1, T2]}


def test_new_fixed_and_open_are_matched_by_rule_topic_and_partition():
    o = Overview(RECENT, CAPTURES)
    assert o.clusters == ["prod", "dev", "clean"]  # what needs fixing first
    assert o.headline("prod") == {"error": 1, "warning": 1, "note": 0, "topics": 2,
                                  "new": 1, "open": 1, "fixed": 2}
    assert o.headline("dev") == {"error": 0, "warning": 1, "note": 0, "topics": 1}
    assert o.headline("clean") == {"error": 0, "warning": 0, "note": 0, "topics": 0,
                                   "new": 0, "open": 0, "fixed": 0}
    assert sorted((f["rule"], f["partition"]) for f in o.fixed) == [("PL301", None),
                                                                    ("PL401", 1)]
    assert o.suppressed == 1
    # errors first; between one warning each, the topic whose warning is new comes first
    assert o.worst_topics(2) == [("prod", "orders", 1, 0, 0, 0), ("prod", "payments", 0, 1, 0, 1)]


def test_console_and_report_say_the_same_numbers():
    o = Overview(RECENT, CAPTURES)
    console = o.console()
    assert console.splitlines()[0] == ("3 clusters; latest captures: 1 error, 2 warnings, "
                                       "0 notes on 3 topics (1 suppressed)")
    assert ("  prod at 2026-11-22T00:00:00Z: 1 error, 1 warning, 0 notes on 2 topics; since "
            "2026-11-21T00:00:00Z: 1 new, 2 fixed, 1 still open") in console
    page = render(o, policy="p.yaml", inputs="fleet/", engine="local")
    assert "<b>1 error, 2 warnings, 0 notes</b> on 3 topics" in page
    assert "<b>1</b> new, <b>2</b> fixed, 1 still open" in page
    latest, fixed = table(page, "findings"), table(page, "fixed")
    assert latest.count("<tr data-cluster=") == 3  # latest, not suppressed
    assert fixed.count("<tr data-cluster=") == 2  # filtered as the findings are
    assert "policy p.yaml" in page and "inputs fleet/" in page and "policylint " in page


def table(page, id_):
    """The HTML of one table of the page."""
    return page[page.index(f'<table id="{id_}">'):].split("</table>", 1)[0]


def chromium():
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("POLICYLINT_REQUIRE_BROWSER"):
            pytest.fail("POLICYLINT_REQUIRE_BROWSER is set but Chromium is not installed")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return found


def browse(browser, url, tmp_path, *args):
    """Headless Chromium, as this machine's closed network wants it: the DOM after the
    page's scripts ran, and the browser's log (console messages included)."""
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
         "--v=0", *args, url], capture_output=True, text=True, timeout=120)
    return done.stdout, done.stderr


@pytest.fixture(scope="module")
def example_report(tmp_path_factory):
    from typer.testing import CliRunner
    from policylint.cli import app
    root = tmp_path_factory.mktemp("audit")
    run = CliRunner().invoke(app, ["audit", str(EXAMPLE_FLEET), "--output", str(root / "out"),
                                   "--format", "json", "--report", str(root / "report.html")])
    assert run.exit_code == 0, run.output
    findings = [{**json.loads(line), "cluster": part.parent.name.split("=", 1)[1]}
                for part in (root / "out" / "findings").rglob("*.json")
                for line in part.read_text().splitlines()]
    return root / "report.html", findings, run


def test_the_example_audit_runs_in_process_and_its_report_stays_light(example_report):
    report, findings, run = example_report
    assert "policylint: engine: local: " in run.stderr
    assert report.stat().st_size < 300_000
    assert "<script src" not in report.read_text()  # self-contained: opens offline


@pytest.mark.parametrize("filters", [{}, {"rule": "PL401"}, {"cluster": "cluster-002"},
                                     {"severity": "warning", "cluster": "cluster-000"},
                                     {"topic": "topic-0003"}, {"topic": "no-such-topic"}])
def test_the_findings_table_filters_in_a_real_browser(example_report, tmp_path, filters):
    browser = chromium()
    report, findings, _ = example_report
    latest = max(f["captured_at"] for f in findings)
    rows = [f for f in findings if f["captured_at"] == latest and not f["suppressed"]]
    wanted = [f for f in rows if all(
        (f.get(k) or "").find(v) >= 0 if k == "topic" else f.get(k) == v
        for k, v in filters.items())]
    hash_ = "&".join(f"{k}={v}" for k, v in filters.items())
    dom, log = browse(browser, f"{report.as_uri()}#{hash_}", tmp_path, "--dump-dom")
    shown = re.search(r'id="shown" data-total="(\d+)" data-shown="(\d+)"', dom)
    assert shown, dom[-2000:]
    assert (int(shown.group(1)), int(shown.group(2))) == (len(rows), len(wanted))
    findings_table = table(dom, "findings")
    visible = re.findall(r'<tr data-cluster="[^"]*" data-rule="(\w+)"[^>]*>', findings_table)
    hidden = re.findall(r'<tr data-cluster="[^"]*" data-rule="\w+"[^>]*hidden', findings_table)
    assert len(visible) - len(hidden) == len(wanted)
    assert "CONSOLE" not in log, [line for line in log.splitlines() if "CONSOLE" in line]


def measure(report, tmp_path, script, hash_="", width=1280):
    """What ``script`` (the body of a JavaScript function) returns, run in headless Chromium
    in the report after the page's own script, at a window ``width`` pixels wide."""
    probe = ('<script>document.body.setAttribute("data-measured", JSON.stringify('
             f'(function () {{ {script} }})()));</script>')
    page = tmp_path / "measured.html"
    page.write_text(report.read_text().replace("</body>", probe + "</body>"))
    dom, log = browse(chromium(), f"{page.as_uri()}#{hash_}", tmp_path, "--dump-dom",
                      f"--window-size={width},900")
    found = re.search(r'<body data-measured="([^"]*)"', dom)
    assert found, log[-2000:]
    assert "CONSOLE" not in log, [line for line in log.splitlines() if "CONSOLE" in line]
    return json.loads(html.unescape(found.group(1)))


def test_cards_come_in_the_order_they_need_fixing_with_the_numbers_of_their_findings(
        example_report, tmp_path):
    report, findings, _ = example_report
    cards = measure(report, tmp_path, """
        return Array.from(document.querySelectorAll(".card")).map(function (card) {
          var b = card.querySelectorAll("b");
          return [card.querySelector("h3").textContent,
                  card.querySelector(".at").textContent.replace("latest capture ", ""),
                  Array.from(b).map(function (x) { return Number(x.textContent); })];
        });""")
    assert len(cards) == 6
    for name, at, numbers in cards:  # errors, warnings, then new and fixed if compared
        latest = [f for f in findings if f["cluster"] == name and f["captured_at"] == at
                  and not f["suppressed"]]
        assert numbers[:2] == [sum(f["severity"] == s for f in latest)
                               for s in ("error", "warning")], name
    urgency = [(-n[0], -n[1], -(n[2] if len(n) > 2 else 0), name) for name, _, n in cards]
    assert urgency == sorted(urgency) and urgency[0] != urgency[-1]


def test_colour_is_severity_and_the_family_is_named_in_text(example_report, tmp_path):
    from policylint.spark.report import FAMILIES, SEVERITY_COLOURS
    report, _, _ = example_report
    bars = measure(report, tmp_path, """
        return Array.from(document.querySelectorAll(".bar")).map(function (bar) {
          return [bar.querySelector(".label").textContent,
                  Array.from(bar.querySelectorAll(".fill")).map(function (fill) {
                    return [fill.classList[1], getComputedStyle(fill).backgroundColor];
                  })];
        });""")
    rgb = {s: "rgb({}, {}, {})".format(*(int(c[i:i + 2], 16) for i in (1, 3, 5)))
           for s, c in SEVERITY_COLOURS.items()}
    fills = [fill for _, segments in bars for fill in segments]
    assert fills and all(colour == rgb[severity] for severity, colour in fills), fills
    assert {severity for severity, _ in fills} >= {"error", "warning"}
    labels = [label for label, _ in bars]
    assert any(label.startswith(FAMILIES["PL3"]) for label in labels), labels


def test_names_never_break_across_lines_even_in_a_narrow_window(example_report, tmp_path):
    report, _, _ = example_report
    lines = measure(report, tmp_path, """
        return Array.from(document.querySelectorAll("td.name")).map(function (cell) {
          var range = document.createRange();
          range.selectNodeContents(cell);
          var tops = new Set(Array.from(range.getClientRects()).map(function (r) {
            return Math.round(r.top); }));
          return [cell.textContent, tops.size];
        });""", width=700)
    assert len(lines) > 100 and max(n for _, n in lines) == 1, \
        [cell for cell in lines if cell[1] > 1][:5]


def test_the_fixed_table_follows_the_filters(example_report, tmp_path):
    report, _, _ = example_report
    script = """
        var rows = Array.from(document.querySelectorAll("#fixed tbody tr"));
        var out = document.getElementById("fixed-shown");
        return [rows.filter(function (r) { return !r.hidden; }).map(function (r) {
                  return r.dataset.cluster; }), rows.length, Number(out.dataset.shown)];"""
    every, total, _ = measure(report, tmp_path, script)
    assert len(every) == total > 0
    cluster = max(set(every), key=every.count)
    shown, _, counted = measure(report, tmp_path, script, f"cluster={cluster}")
    assert shown == [cluster] * every.count(cluster) == [cluster] * counted
    assert len(shown) < total


def test_tables_sort_by_their_headings_from_the_address_and_by_clicks(example_report, tmp_path):
    report, _, _ = example_report
    errors, partitions, clicked = measure(report, tmp_path, """
        function column(table, i) {
          return Array.from(document.querySelectorAll(table + " tbody tr")).map(
            function (r) { return r.cells[i].textContent; });
        }
        var by_errors = column("#worst", 2), by_partition = column("#findings", 4);
        var topic = document.querySelectorAll("#findings th")[3];
        topic.click(); topic.click();  // ascending, then descending
        return [by_errors, by_partition, column("#findings", 3)];""", "sort=partition")
    numbers = [int(p) for p in partitions if p]
    assert numbers == sorted(numbers) and numbers[0] < numbers[-1]
    assert partitions[:len(numbers)] == [str(n) for n in numbers]  # blanks after numbers
    assert clicked == sorted(clicked, reverse=True) and clicked[0] != clicked[-1]
    assert [int(e) for e in errors] == sorted((int(e) for e in errors), reverse=True)


def test_each_rule_links_to_its_page(example_report, tmp_path):
    report, _, _ = example_report
    links = measure(report, tmp_path, """
        return Array.from(document.querySelectorAll("#findings tbody td:nth-child(3)"))
          .map(function (cell) {
            var a = cell.querySelector("a");
            return [cell.parentNode.dataset.rule, a && a.getAttribute("href")];
          });""")
    docs = Path(__file__).parents[1] / "docs" / "rules"
    assert links and all(href and href.endswith(f"/docs/rules/{rule}.md")
                         and (docs / f"{rule}.md").is_file() for rule, href in links), links


def test_findings_of_no_cluster_are_their_own_line_not_a_crash(tmp_path):
    """A file that does not parse has no cluster (PL100): the headline of that line is its
    own, not the whole fleet's, in the console and the report."""
    broken = dict(finding(None, None, "PL100", None), message="not JSON")
    o = Overview(RECENT + [broken], {**CAPTURES, "x": [""]})
    assert "  (no cluster) at -: 1 error, 0 warnings, 0 notes on 0 topics" in o.console()
    assert o.headline(None) == {"error": 1, "warning": 0, "note": 0, "topics": 0}
    assert "(no cluster)" in render(o, policy="p", inputs="i", engine="local")


def test_the_in_process_audit_quarantines_bad_files_as_spark_does(tmp_path):
    from typer.testing import CliRunner
    from policylint.cli import app
    fleet = tmp_path / "fleet"
    shutil.copytree(EXAMPLE_FLEET / "cluster-000", fleet / "good")
    (fleet / "broken.json").write_text('{"kind": "Cluster')
    (fleet / "bad.json").write_text('{"kind": "ClusterSnapshot", "version": 1, "cluster": "x", '
                                    '"brokers": [{"id": "one"}]}')
    run = CliRunner().invoke(app, ["audit", str(fleet), "--output", str(tmp_path / "out"),
                                   "--format", "json", "--engine", "local"])
    assert run.exit_code == 0, run.output
    found = {p.parent.name: [json.loads(line) for line in p.read_text().splitlines()]
             for p in (tmp_path / "out" / "findings").rglob("*.json")}
    assert [f["rule"] for f in found["cluster=__HIVE_DEFAULT_PARTITION__"]] == ["PL100"]
    assert [(f["rule"], f["source"].endswith("bad.json:1:78")) for f in found["cluster=x"]] \
        == [("PL101", True)]
    assert "(no cluster) at -: 1 error" in run.stdout
