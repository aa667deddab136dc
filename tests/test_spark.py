"""The fleet audit on Spark: the same findings as ``policylint lint``, on every rule case
of the snapshot rules and on generated fleets; bad input quarantined; both input forms."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from policylint import testing
from policylint.policy import load as load_policy
from policylint.registry import all_rules

from conftest import load_cases, write_files

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from fleet import write_fleet  # noqa: E402

pytest.importorskip("pyspark")  # the spark fixture says whether a skip is allowed
from policylint.spark import io  # noqa: E402
from policylint.spark.audit import audit, read as read_fleet  # noqa: E402

SNAPSHOT_RULES = sorted(code for code, rule in all_rules().items()
                        if {"snapshot", "profile"} & set(rule.reads.targets) and code.startswith("PL"))


local_findings = testing.lint_rows
spark_findings = testing.finding_rows


# Snapshot rules whose own check decides in the driver (policylint.spark.shapes): the topic
# and cluster configuration rules once per distinct config ("configs"), the naming and
# partition-count rules on the topics their Spark form picks ("names"). No built-in runs
# on the generic Python path.
BY_SHAPE = {"PL601", "PL602", "PL603", "PL604", "PL605", "PL607", "PL608", "PL704", "PL706",
            "PL707", "PL801", "PL802", "PL803", "PL804", "PL805", "PL308"}
ON_SUSPECTS = {"PL701", "PL702", "PL703"}


def test_every_built_in_snapshot_rule_has_a_spark_form():
    frames = {code: all_rules()[code].reads.spark_frame for code in SNAPSHOT_RULES}
    assert not [code for code, frame in frames.items() if frame is None]
    assert {code for code, frame in frames.items() if frame == "configs"} == BY_SHAPE
    assert {code for code, frame in frames.items() if frame == "names"} == ON_SUSPECTS


# -- parity on the rule case files ---------------------------------------------------------

def test_parity_on_rule_cases(spark, tmp_path):
    """Every snapshot case audited (native and generic) and compared with lint."""
    assert testing.check_spark_parity(spark, load_cases(), tmp_path) >= 25


# -- parity on generated fleets ------------------------------------------------------------

@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    write_fleet(root, clusters=4, captures=2, topics=12, partitions=12)
    return root


@pytest.fixture(scope="module")
def fleet(spark, fleet_dir):
    return read_fleet(spark, str(fleet_dir))


POLICIES = {
    "default": None,
    "kip409": {"extends": "kip409", "rules": {"PL401": {"mode": "even"},
                                              "PL502": {"max_per_partition": 1},
                                              "PL403": {"max_skew": 2},
                                              "PL303": {"min": 3}},
               "exemptions": [{"rule": "PL204", "topics": ["topic-00[0-4]*"],
                               "reason": "known drift"}]},
    # the rules decided in the driver, with options: names, partition counts, configs
    "organisation": {"rules": {"PL701": {"prefixes": ["topic-", "__"]}, "PL703": {"max": 8},
                               "PL706": {"values": {"min.insync.replicas": ["2"]}},
                               "PL707": {"forbidden": ["retention.msx"]},
                               "PL704": {"min_ms": 1000}},
                     "exemptions": [{"rule": "PL702", "topics": ["topic?0001"],
                                     "reason": "renamed next quarter"}]},
}


@pytest.mark.parametrize("name", POLICIES)
def test_parity_on_generated_fleets(spark, fleet, fleet_dir, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    policy = None
    if POLICIES[name]:
        (tmp_path / "policy.yaml").write_text(yaml.safe_dump(POLICIES[name]))
        policy = "policy.yaml"
    expected = local_findings(sorted(fleet_dir.rglob("*.json")), policy, SNAPSHOT_RULES +
                              ["PL100", "PL101"])
    found = spark_findings(audit(fleet, load_policy(policy)))
    assert len({f[0] for f in expected}) >= 10  # the fleet exercises most rules
    if name == "organisation":  # and every way a rule is decided in the driver
        assert {"PL601", "PL603", "PL604", "PL605", "PL607", "PL608", "PL701", "PL702",
                "PL703", "PL704", "PL706", "PL707", "PL801", "PL804"} <= {f[0] for f in expected}
    assert found == expected, sorted(found ^ expected)[:10]


def test_native_rules_equal_the_generic_python_path(spark, fleet):
    native = spark_findings(audit(fleet, load_policy(None)))
    fallback = spark_findings(audit(fleet, load_policy(None), engine="fallback"))
    assert native == fallback and native


@pytest.mark.parametrize("limit, value", [("RACK_COLUMNS", 0), ("BROADCAST_TOPICS", 0)])
def test_each_way_to_a_topics_figures_gives_the_same_findings(spark, fleet, tmp_path,
                                                              monkeypatch, limit, value):
    """Past a limit, the preferred leaders per rack (PL403) are grouped on rather than
    counted in columns, and the topics' figures are shuffled to the partitions rather than
    sent to every executor: the findings are the same either way."""
    from policylint.spark import native
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(POLICIES["kip409"]))
    policy = load_policy(str(tmp_path / "policy.yaml"))
    within = spark_findings(audit(fleet, policy))
    monkeypatch.setattr(native, limit, value)
    assert spark_findings(audit(fleet, policy)) == within
    assert {"PL204", "PL403"} <= {f[0] for f in within}


# -- inputs --------------------------------------------------------------------------------

def test_normalised_tables_give_the_same_findings(spark, fleet, tmp_path):
    expected = spark_findings(audit(fleet, load_policy(None)))
    for fmt in ("parquet", "json"):
        io.write_tables(fleet, str(tmp_path / fmt), fmt)
        again = read_fleet(spark, str(tmp_path / fmt), fmt)
        assert spark_findings(audit(again, load_policy(None))) == {
            f for f in expected if f[0] not in ("PL100", "PL101")}


def test_bad_files_and_records_are_quarantined_not_fatal(spark, tmp_path):
    write_files(tmp_path / "files", {
        "good.json": json.dumps({"kind": "ClusterSnapshot", "version": 1, "cluster": "ok",
                                 "brokers": [{"id": 1, "rack": "a"}, {"id": 2}],
                                 "topics": []}),
        "broken.json": '{"kind": "ClusterSnapshot", "version": 1,',
        "typed.yaml": "kind: ClusterSnapshot\nversion: 1\ncluster: t\nbrokers: [{id: x}]\n",
        "notes.txt": "ignored",
    })
    result = audit(read_fleet(spark, str(tmp_path / "files")), load_policy(None))
    rows = {(r.rule, r.cluster, r.source.rsplit("/", 1)[-1]) for r in result.collect()}
    assert ("PL402", "ok", "good.json") in rows
    assert ("PL100", None, "broken.json:1:42") in rows
    assert ("PL101", "t", "typed.yaml:4:16") in rows
    # a table row with a malformed column
    part = tmp_path / "tables" / "partitions"
    part.mkdir(parents=True)
    (part / "p.json").write_text(
        '{"cluster": "c", "captured_at": "", "topic": "t", "partition": 0, "replicas": [1], '
        '"adding": [], "removing": []}\n{"cluster": "c", "partition": "zero"\n')
    for name in ("clusters", "brokers", "topics"):
        (tmp_path / "tables" / name).mkdir()
        (tmp_path / "tables" / name / "x.json").write_text("")
    (tmp_path / "tables/clusters/x.json").write_text(
        '{"cluster": "c", "captured_at": "", "config": {}}\n')
    table = audit(read_fleet(spark, str(tmp_path / "tables"), "json"), load_policy(None))
    bad = [r for r in table.collect() if r.rule == "PL101"]
    assert len(bad) == 1 and '"partition": "zero"' in bad[0].message
    assert bad[0].source.endswith("partitions/p.json")


def test_table_values_the_snapshot_schema_refuses_are_findings_not_a_crash(spark, tmp_path):
    # a file's snapshot is held to the schema when read; a table's rows only when a check
    # in the driver rebuilds their snapshot: what it refuses is a PL101 of its cluster or
    # topic, said once, and the rest is still judged
    rows = {
        "clusters": {"cluster": "c", "captured_at": "", "config": {"min.insync.replicas": "x"}},
        "brokers": {"cluster": "c", "captured_at": "", "id": 1, "rack": "a"},
        "topics": {"cluster": "c", "captured_at": "", "topic": "t",
                   "config": {"min.insync.replicas": "y"}},
        "partitions": {"cluster": "c", "captured_at": "", "topic": "t", "partition": 0,
                       "replicas": [1, 1], "isr": [1], "adding": [], "removing": []}}
    for name, row in rows.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "part.json").write_text(json.dumps(row) + "\n")
    fleet = read_fleet(spark, str(tmp_path), "json")
    refused = 'config["min.insync.replicas"]: the string "{}" is not a positive integer'
    for engine in ("native", "fallback"):
        found = [(r.rule, r.topic, r.message) for r in
                 audit(fleet, load_policy(None), engine=engine).collect()]
        schema = sorted(((topic or "", message.split(" (")[0]) for rule, topic, message
                         in found if rule == "PL101"))
        assert schema[0] == ("", refused.format("x")), (engine, schema)
        if engine == "native":  # the topic's config too; the partitions are still judged
            assert schema == [("", refused.format("x")), ("t", refused.format("y"))]
            assert "PL112" in {rule for rule, _, _ in found}
    ignored = audit(fleet, load_policy(None), ignore=["PL101"]).collect()
    assert ignored and "PL101" not in {r.rule for r in ignored}


def test_parquet_tables_of_other_widths_are_read_and_of_other_kinds_refused(spark, tmp_path):
    # pandas and pyarrow write 64-bit integers: read as policylint's, a value too large is
    # null and its row quarantined; a column of another kind, or no such table, is exit 2
    import pyarrow as pa
    import pyarrow.parquet as pq
    from policylint.sources import InputError
    longs = pa.list_(pa.int64())
    tables = {
        "clusters": pa.table({"cluster": ["c"], "captured_at": [""], "config": pa.array(
            [[("min.insync.replicas", "1")]], pa.map_(pa.string(), pa.string()))}),
        "brokers": pa.table({"cluster": ["c", "c"], "captured_at": ["", ""],
                             "id": pa.array([1, 2**40], pa.int64()), "rack": ["a", "b"]}),
        "topics": pa.table({"cluster": ["c"], "captured_at": [""], "topic": ["t"], "config":
                            pa.array([[]], pa.map_(pa.string(), pa.string()))}),
        "partitions": pa.table({
            "cluster": ["c", "c"], "captured_at": ["", ""], "topic": ["t", "t"],
            "partition": pa.array([0, 1], pa.int64()),
            "replicas": pa.array([[1, 1], [1, 2**40]], longs),
            "adding": pa.array([[], []], longs), "removing": pa.array([[], []], longs)})}
    for name, table in tables.items():
        (tmp_path / name).mkdir()
        pq.write_table(table, tmp_path / name / "part.parquet")
    found = {(r.rule, r.partition, r.message.split(":")[0]) for r in
             audit(read_fleet(spark, str(tmp_path), "parquet"), load_policy(None)).collect()}
    assert ("PL112", 0, "replicas [1, 1] of t-0 name broker 1 more than once") in found
    assert {m for rule, _, m in found if rule == "PL101"} == {
        "brokers record with a missing or malformed column",
        "partitions record with a missing or malformed column"}
    pq.write_table(pa.table({"cluster": ["c"], "captured_at": [""], "config": ["{}"]}),
                   tmp_path / "clusters" / "part.parquet")
    with pytest.raises(InputError, match="clusters: column config is string, policylint "
                                         "reads map<string,string>"):
        read_fleet(spark, str(tmp_path), "parquet")
    with pytest.raises(InputError, match="Path does not exist: .*nothing/clusters"):
        read_fleet(spark, str(tmp_path / "nothing"), "parquet")


# -- the command ---------------------------------------------------------------------------

def read_json_lines(directory):
    rows = []
    for part in sorted(Path(directory).rglob("*.json")):
        cluster = next((p.split("=", 1)[1] for p in part.parts if p.startswith("cluster=")),
                       None)
        for line in part.read_text().splitlines():
            row = json.loads(line)
            if cluster is not None:
                row["cluster"] = cluster
            rows.append(row)
    return rows


def finding_keys(rows):
    return {(r["rule"], r["cluster"], r.get("topic"), r.get("partition"), r["severity"],
             r["message"]) for r in rows}


def test_audit_command_writes_findings_summary_and_report(spark, fleet_dir, tmp_path):
    from typer.testing import CliRunner
    from policylint.cli import app
    out = tmp_path / "out"
    run = CliRunner().invoke(app, ["audit", str(fleet_dir), "--output", str(out), "--format",
                                   "json", "--report", str(tmp_path / "report.html"),
                                   "--engine", "spark", "--verbose"])
    assert run.exit_code == 0, run.output
    assert run.stdout.startswith("4 clusters; latest captures: ")
    native = next(line for line in run.stderr.splitlines() if line.endswith(": Spark SQL"))
    assert "PL301" in native and "PL402" in native
    clusters = sorted(p.name for p in (out / "findings").iterdir() if p.is_dir())
    assert clusters == [f"cluster=cluster-00{i}" for i in range(4)]
    findings = read_json_lines(out / "findings")
    expected = {f[:6] for f in local_findings(sorted(fleet_dir.rglob("*.json")))}
    assert finding_keys(findings) == expected
    summary = read_json_lines(out / "summary")
    assert sum(r["findings"] for r in summary) == sum(not f["suppressed"] for f in findings)
    assert {r["captured_at"] for r in summary} == {"2026-11-21T00:00:00Z",
                                                   "2026-11-21T01:00:00Z"}
    report = (tmp_path / "report.html").read_text()
    assert report.count('<div class="card">') == 4
    latest = [f for f in findings if f["captured_at"] == "2026-11-21T01:00:00Z"
              and not f["suppressed"]]
    findings_table = report[report.index("<table id=\"findings\">"):].split("</table>", 1)[0]
    assert findings_table.count("<tr data-cluster=") == len(latest)
    # the in-process engine writes the same tables, byte for byte, and the same summary
    local = tmp_path / "local"
    again = CliRunner().invoke(app, ["audit", str(fleet_dir), "--output", str(local),
                                     "--format", "json", "--engine", "local"])
    assert again.stdout == run.stdout
    for name in ["summary"] + clusters:
        table = "summary" if name == "summary" else f"findings/{name}"
        spark_text = "".join(p.read_text() for p in sorted((out / table).glob("part-*")))
        assert spark_text == (local / table / "part-00000.json").read_text(), name


def test_a_lone_surrogate_escape_is_the_same_pl100_in_both_engines(spark, tmp_path):
    # RFC 8259 section 8.2: refused where the JSON is decoded (one ingest for both engines),
    # at the escape; the other snapshots of the fleet are audited as ever
    from typer.testing import CliRunner
    from policylint.cli import app
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "s.json").write_text(
        '{"kind": "ClusterSnapshot", "version": 1, "cluster": "c\\ud800", "brokers": '
        '[{"id": 1, "rack": "r\\udc00"}], "topics": []}')
    (tmp_path / "in" / "ok.json").write_text(json.dumps({
        "kind": "ClusterSnapshot", "version": 1, "cluster": "ok", "brokers": [{"id": 1}],
        "topics": [{"name": "t", "partitions": [{"partition": 0, "replicas": [1, 1]}]}]}))
    tables = {}
    for engine in ("local", "spark"):
        out = tmp_path / engine
        run = CliRunner().invoke(app, ["audit", str(tmp_path / "in"), "--output", str(out),
                                       "--format", "json", "--engine", engine])
        assert run.exit_code == 0, run.output
        rows = [json.loads(line) for p in sorted((out / "findings").rglob("*.json"))
                for line in p.read_text().splitlines()]
        tables[engine] = sorted((r["rule"], r["message"], r["source"].rsplit("/", 1)[-1])
                                for r in rows)
    assert tables["local"] == tables["spark"]
    assert ("PL100", "invalid JSON: \\ud800 is an unpaired surrogate escape, not a character "
            "(RFC 8259 section 8.2)", "s.json:1:56") in tables["local"]
    assert any(rule == "PL112" for rule, *_ in tables["local"])  # ok.json, audited


def test_a_snapshot_row_with_a_lone_surrogate_is_checked_as_the_replacement_character():
    # the ingest leaves none, but a row from elsewhere (a plugin's table) may hold one: no
    # table holds one, so it is read as U+FFFD, as Spark reads it
    from policylint.spark.local import check_snapshot
    row = {"cluster": "c", "captured_at": "", "kafka_version": None, "config": None,
           "source": None, "brokers": None,
           "topics": [{"name": "t\ud800", "config": None, "partitions": None}]}
    rules = [(all_rules()["PL702"], {})]
    assert [f[:4] for f in check_snapshot(row, rules, load_policy(None))] == [
        ("PL702", "c", "", "t\ufffd")]


def test_a_small_table_is_held_by_the_driver_and_a_large_one_left_to_spark(spark):
    brokers = spark.range(3).selectExpr("CAST(id AS INT) AS id", "concat('r', id) AS rack")

    def plan(df):
        return df._jdf.queryExecution().executedPlan().toString()
    assert "LocalTableScan" not in plan(brokers)
    held = io.in_driver(brokers, most=3)
    # the driver's rows: a broadcast of them starts no Spark job
    assert "LocalTableScan" in plan(held) and "Range" not in plan(held)
    assert sorted(held.collect()) == sorted(brokers.collect())
    assert io.in_driver(brokers, most=2) is brokers


def test_the_driver_jvm_compiles_with_the_quick_tier_only(spark):
    # the JVM's own arguments, not the configuration asked for: a JVM started before the
    # option was set, or an option the launcher dropped, would not have it
    arguments = testing.jvm_arguments(spark)
    assert "-XX:TieredStopAtLevel=1" in arguments, arguments
    # with the code cache all tiers reserve: that tier's own 48 MiB ran out in long sessions
    assert "-XX:ReservedCodeCacheSize=240m" in arguments, arguments


def test_the_users_own_driver_options_are_kept(tmp_path):
    (tmp_path / "spark-defaults.conf").write_text(
        "spark.driver.extraJavaOptions -Dpolicylint.test=kept\n")
    show = ("import json; from policylint.spark.audit import session; "
            "from policylint.testing import jvm_arguments; s = session('local[1]'); "
            "print(json.dumps(jvm_arguments(s))); s.stop()")
    done = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True,
                          env={**os.environ, "SPARK_CONF_DIR": str(tmp_path)}, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    arguments = json.loads(done.stdout.splitlines()[-1])
    assert "-Dpolicylint.test=kept" in arguments and "-XX:TieredStopAtLevel=1" in arguments
    # policylint's quiet log configuration still applies
    assert "log4j" not in done.stderr, done.stderr[-2000:]


def test_no_progress_bar_off_a_terminal_even_when_verbose():
    # a CI log is no terminal: the bar's redrawn lines would hide the audit's own stages
    show = ("from policylint.spark.audit import session; s = session('local[1]', "
            "verbose=True); print(s.conf.get('spark.ui.showConsoleProgress')); s.stop()")
    done = subprocess.run([sys.executable, "-c", show], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "false"


def test_audit_command_reports_usage_errors(tmp_path):
    from typer.testing import CliRunner
    from policylint.cli import app
    run = CliRunner().invoke(app, ["audit", "x", "--output", "o", "--engine", "turbo"])
    assert run.exit_code == 2
    assert "--engine must be one of auto, local, spark, spark-generic" in run.stderr


def test_standalone_cluster_gives_the_local_findings(spark, fleet_dir, tmp_path):
    """A real standalone master and worker on 127.0.0.1 from the pyspark package, the audit
    submitted to it with --master, both processes stopped by PID."""
    import signal
    import socket
    import time

    import pyspark
    spark_class = Path(pyspark.__file__).parent / "bin" / "spark-class"

    def free_port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]

    port = free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp_path),
           "PYSPARK_PYTHON": sys.executable}
    master = subprocess.Popen(
        [str(spark_class), "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
         "--port", str(port), "--webui-port", str(free_port())],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    worker = None
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        worker = subprocess.Popen(
            [str(spark_class), "org.apache.spark.deploy.worker.Worker",
             f"spark://127.0.0.1:{port}", "--host", "127.0.0.1", "--cores", "2",
             "--memory", "1g", "--webui-port", str(free_port())],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        out = tmp_path / "out"
        done = subprocess.run(
            [sys.executable, "-m", "policylint", "audit", str(fleet_dir), "--output", str(out),
             "--format", "json", "--master", f"spark://127.0.0.1:{port}"],
            env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        expected = {f[:6] for f in local_findings(sorted(fleet_dir.rglob("*.json")))}
        assert finding_keys(read_json_lines(out / "findings")) == expected
        # quiet: policylint's own lines, and no Spark INFO log or progress bar
        noise = [line for line in done.stderr.splitlines()
                 if " INFO " in line or "[Stage" in line or "log4j" in line]
        assert not noise, noise[:5]
        assert "policylint: engine: spark: a Spark master was given" in done.stderr
    finally:
        for process in (worker, master):
            if process is not None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=60)


def test_audit_under_spark_submit(spark, fleet_dir, tmp_path):
    import pyspark
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    script = subprocess.run([sys.executable, "-m", "policylint.spark.submit", "--path"],
                            capture_output=True, text=True, check=True).stdout.strip()
    out = tmp_path / "out"
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    done = subprocess.run([str(submit), "--master", "local[1]", script, str(fleet_dir),
                           "--output", str(out), "--format", "json"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    expected = {f[:6] for f in local_findings(sorted(fleet_dir.rglob("*.json")))}
    assert finding_keys(read_json_lines(out / "findings")) == expected
    assert "Warning" not in done.stderr.replace("WARNING: Using incubator modules", ""), \
        done.stderr[-3000:]  # quiet: not PySpark's notice of pandas 3 either


CEL_POLICY = {"cel_rules": [
    {"code": "TEAM1", "name": "team-rf-three", "applies_to": "topics",
     "validations": [{"expression": "topic.rf >= 3", "message": "RF below 3", "field": "rf"}]},
    {"code": "TEAM2", "name": "team-isr-full", "applies_to": "partitions",
     "validations": [{"expression": "!has(partition.isr) || "
                                    "partition.isr.size() == partition.replicas.size()",
                      "message": "ISR not full"}]},
    {"code": "TEAM3", "name": "team-min-isr", "applies_to": "topics",
     "validations": [{"expression": 'topic.config[?"min.insync.replicas"].orValue(2) >= 2',
                      "message": "minISR below 2"}]},
    {"code": "TEAM4", "name": "team-brokers", "applies_to": "clusters",
     "validations": [{"expression": "cluster.broker_count >= 4", "message": "few brokers"}]}]}


def test_cel_rules_in_the_audit_as_in_lint(spark, fleet, fleet_dir, tmp_path, monkeypatch):
    """A policy's CEL rules run on the generic path (compiled again on each executor)."""
    pytest.importorskip("cel_expr_python")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "policy.yaml").write_text(yaml.safe_dump(CEL_POLICY))
    expected = local_findings(sorted(fleet_dir.rglob("*.json")), "policy.yaml", ["TEAM"])
    found = {f for f in spark_findings(audit(fleet, load_policy("policy.yaml")))
             if f[0].startswith("TEAM")}
    assert {f[0] for f in expected} >= {"TEAM1", "TEAM2", "TEAM3", "TEAM4"}
    assert found == expected, sorted(found ^ expected)[:10]
    # a rule that reads a topic's config and its cluster's settings alone is checked once
    # per distinct shape, as the built-in config rules are; the others on the generic path
    from policylint.cel import compile_rules
    frames = {r.code: r.reads.spark_frame for r in compile_rules(CEL_POLICY["cel_rules"], "p")}
    assert frames == {"TEAM1": None, "TEAM2": None, "TEAM3": "configs", "TEAM4": "configs"}
