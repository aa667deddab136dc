"""The audit's report and console summary: what changed between captures, the same numbers
in both, and the page working in a real browser (headless Chromium)."""

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
    assert o.clusters == ["clean", "dev", "prod"]
    assert o.headline("prod") == {"error": 1, "warning": 1, "note": 0, "topics": 2,
                                  "new": 1, "open": 1, "fixed": 2}
    assert o.headline("dev") == {"error": 0, "warning": 1, "note": 0, "topics": 1}
    assert o.headline("clean") == {"error": 0, "warning": 0, "note": 0, "topics": 0,
                                   "new": 0, "open": 0, "fixed": 0}
    assert sorted((f["rule"], f["partition"]) for f in o.fixed) == [("PL301", None),
                                                                    ("PL401", 1)]
    assert o.suppressed == 1
    assert o.worst_topics(2) == [("prod", "orders", 1, 0, 0), ("dev", "orders", 0, 1, 0)]


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
    assert page.count("<tr data-cluster=") == 3  # latest, not suppressed
    assert "policy p.yaml" in page and "inputs fleet/" in page and "policylint " in page


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
    visible = re.findall(r'<tr data-cluster="[^"]*" data-rule="(\w+)"[^>]*>', dom)
    hidden = re.findall(r'<tr data-cluster="[^"]*" data-rule="\w+"[^>]*hidden', dom)
    assert len(visible) - len(hidden) == len(wanted)
    assert "CONSOLE" not in log, [line for line in log.splitlines() if "CONSOLE" in line]


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
