"""The controller plugin (``controller/``): its verdict on a request, evaluated by CEL-Java in
the plugin's own code, is ``policylint lint``'s on the same topic written as a manifest with
no cluster, judged by the same Kafka release; and on a running Apache Kafka, installed on
the controller, it refuses with the finding's text what lint finds an error in.

The plugin's jar is built by ``make controller`` (Maven; CEL-Java shaded in); this module
builds it when it is missing or older than its sources. Without Java or Maven the tests
skip, unless POLICYLINT_REQUIRE_KAFKA=1 (CI) makes that a failure."""

from __future__ import annotations

import bisect
import itertools
import json
import os
import random
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from policylint import kafka_configs
from policylint.export import bundle
from policylint.linter import lint
from policylint.policy import load

ROOT = Path(__file__).parent.parent
JAR = ROOT / "controller/target/policylint-controller.jar"
POLICY = ROOT / "tests/data/controller/policy.yaml"
#: the rules that judge only a creation (what a config change states is configs alone)
CREATE_ONLY = {"PL209", "PL701", "PL703"}


def _unavailable(why: str):
    if os.environ.get("POLICYLINT_REQUIRE_KAFKA"):
        pytest.fail(f"the controller plugin is required but cannot be built: {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def plugin_jar() -> Path:
    """The plugin's jar, built with Maven when missing or older than a source."""
    sources = [p for p in (ROOT / "controller").rglob("*")
               if p.is_file() and "target" not in p.parts]
    if JAR.exists() and all(p.stat().st_mtime <= JAR.stat().st_mtime for p in sources):
        return JAR
    if not shutil.which("mvn") or not shutil.which("java"):
        _unavailable("Maven and Java are needed to build the controller plugin")
    done = subprocess.run(["mvn", "-q", "-B", "-f", str(ROOT / "controller/pom.xml"),
                           "package"], capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        _unavailable("mvn package failed: " + (done.stdout + done.stderr)[-2000:])
    return JAR


def _keys() -> list[str]:
    """Every key any release knows, broker names, vendor keys and keys no one knows."""
    known = sorted(kafka_configs.ever_known())
    return known + sorted(kafka_configs.BROKER_KEYS)[:12] + [
        "confluent.placement.constraints", "retention.msx", "foo.bar", "min.insync.replica"]


def _values(key: str, release: str, rng: random.Random) -> str:
    """A value of the key at its boundaries, in and out of what Kafka accepts."""
    spec = kafka_configs.table(release).get(key) or kafka_configs.table(
        kafka_configs.newest()).get(key) or {"type": "string"}
    kind, lo, hi = spec["type"], spec.get("min"), spec.get("max")
    picks = ["", " ", "abc", "true", "-1", "0", "1"]
    if kind in ("int", "long", "short"):
        for bound in (lo, hi):
            if bound is not None:
                picks += [str(bound - 1), str(bound), str(bound + 1)]
        picks += ["2", "3", "4", "5", " 7 ", "1.5", "+3", "99999999999", "2592000001",
                  "9223372036854775808", str(rng.randint(0, 10**9))]
    elif kind == "double":
        picks += ["0.5", "0.0", "1.5", "-0.1", "x", str(lo if lo is not None else 0)]
    elif kind == "boolean":
        picks += ["true", "false", "TRUE", "yes", "False"]
    elif kind == "list":
        items = spec.get("subset") or ["0:1", "*", "1:2"]
        picks += items + [",".join(items), f"{items[0]}, bogus", f"{items[0]},"]
    else:
        picks += list(spec.get("values") or []) + ["bogus", "2.8", "3.0-IV1", "0.10.2"]
    return rng.choice(picks)


def requests(release: str, seed: int, n: int) -> list[dict]:
    """``n`` creations and config changes of topics named as a platform names them (and
    not), with every config key at its boundaries."""
    rng = random.Random(seed)
    keys = _keys()
    heavy = ["min.insync.replicas", "cleanup.policy", "unclean.leader.election.enable",
             "retention.ms", "message.format.version", "delete.retention.ms",
             "segment.jitter.ms"]
    made = []
    for i in range(n):
        prefix = rng.choice(["orders.", "payments.", "legacy.", "Bad.", "x", "other-"])
        configs = {}
        for _ in range(rng.choice([0, 1, 2, 2, 3, 4])):
            key = rng.choice(heavy if rng.random() < 0.5 else keys)
            configs[key] = rng.choice(["1", "2", "3", "4"]) if \
                key == "min.insync.replicas" and rng.random() < 0.7 else \
                _values(key, release, rng)
        if rng.random() < 0.6:
            configs["cleanup.policy"] = rng.choice(["delete", "compact", "compact,delete",
                                                    "delete ", "bogus"])
        kind = "alter" if rng.random() < 0.2 else "create"
        request = {"kind": kind, "topic": f"{prefix}{i}", "configs": configs}
        if kind == "create":
            request["partitions"] = rng.choice([1, 2, 3, 12, 100, 101, None])
            request["rf"] = rng.choice([1, 2, 3, 3, 4, None])
        made.append(request)
    return made


def _manifest(request: dict, i: int) -> str:
    lines = ["apiVersion: kafka.strimzi.io/v1beta2", "kind: KafkaTopic", "metadata:",
             f"  name: t-{i}", "spec:", f"  topicName: {json.dumps(request['topic'])}"]
    if request.get("partitions") is not None:
        lines.append(f"  partitions: {request['partitions']}")
    if request.get("rf") is not None:
        lines.append(f"  replicas: {request['rf']}")
    if request["configs"]:
        lines.append("  config:")
        lines += [f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in request["configs"].items()]
    return "\n".join(lines) + "\n"


def lint_verdicts(folder: Path, made: list[dict], release: str, codes: set[str]) -> dict:
    """Per topic, the (code, severity) of what lint finds in it as a manifest."""
    texts = [_manifest(r, i) for i, r in enumerate(made)]
    (folder / "topics.yaml").write_text("---\n".join(texts))
    starts = list(itertools.accumulate([1] + [t.count("\n") + 1 for t in texts]))
    result = lint([str(folder / "topics.yaml")], policy=str(POLICY), kafka_version=release,
                  baseline="")
    kinds = {r["topic"]: r["kind"] for r in made}
    found: dict[str, Counter] = {r["topic"]: Counter() for r in made}
    for f in result.findings:
        if f.rule == "PL101" and f.topic is None and "spec.config[" in f.message:
            # a value Strimzi's schema types (min.insync.replicas: a positive integer) is
            # PL101 in a manifest; a request carries no schema, and it is PL603, as Kafka
            # refuses it
            f.rule, f.topic = "PL603", made[bisect.bisect_right(starts, f.line) - 1]["topic"]
            if release in kafka_configs.ANNOUNCED:  # as lint's PL603 says it of such a release
                f.severity = "warning"
        if f.suppressed or f.rule not in codes or f.severity == "note" or f.topic not in kinds:
            continue
        if kinds[f.topic] == "alter" and (f.rule in CREATE_ONLY or f.rule == "PL706" and
                                          "required by the policy and not set" in f.message):
            continue  # a config change states its configs alone
        found[f.topic][(f.rule, f.severity)] += 1
    return found


def plugin_verdicts(jar: Path, bundle_path: Path, made: list[dict], release: str) -> dict:
    """Per topic, the (code, severity) of what the plugin finds in its request."""
    done = subprocess.run(["java", "-jar", str(jar), str(bundle_path), release],
                          input="".join(json.dumps(r) + "\n" for r in made),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    found = {}
    for line in done.stdout.splitlines():
        verdict = json.loads(line)
        found[verdict["topic"]] = Counter((f["code"], f["severity"])
                                          for f in verdict["findings"])
    return found


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, set[str]]:
    made = bundle(load(str(POLICY)))
    path = tmp_path_factory.mktemp("bundle") / "bundle.json"
    path.write_text(json.dumps(made))
    assert "TEAM104" in {r["code"] for r in made["not_exported"]}  # reads labels
    return path, {r["code"] for r in made["rules"]}


@pytest.mark.parametrize("release", kafka_configs.known_versions())
def test_the_plugin_judges_every_request_as_lint_judges_its_manifest(
        release, tmp_path, plugin_jar, exported):
    bundle_path, codes = exported
    made = requests(release, seed=int(release.replace(".", "")), n=600)
    expected = lint_verdicts(tmp_path, made, release, codes)
    got = plugin_verdicts(plugin_jar, bundle_path, made, release)
    differ = {topic: (dict(expected[topic]), dict(got.get(topic, {})))
              for topic in expected if expected[topic] != got.get(topic, Counter())}
    assert not differ, (f"{len(differ)} of {len(made)} requests judged otherwise "
                        f"(lint, plugin): {dict(list(differ.items())[:5])}")
    seen = {code for found in expected.values() for code, _ in found}
    assert seen >= codes - {"PL602", "PL605"}, codes - seen  # the requests reach each rule


def _tool(cluster, name: str) -> str:
    """A Kafka tool's main class: Scala's kafka.admin before 3.5 (TopicCommand) or 4.4
    (ConfigCommand), Java's org.apache.kafka.tools since."""
    since = {"TopicCommand": "3.5", "ConfigCommand": "4.4"}[name]
    return f"org.apache.kafka.tools.{name}" if kafka_configs.at_least(
        cluster.version.rsplit(".", 1)[0], since) else f"kafka.admin.{name}"


def _create(cluster, topic: str, partitions: int, rf: int, **configs: str):
    """kafka-topics.sh --create, as an operator runs it."""
    return cluster.tool(_tool(cluster, "TopicCommand"), "--bootstrap-server",
                        cluster.bootstrap, "--create", "--topic", topic, "--partitions",
                        str(partitions), "--replication-factor", str(rf),
                        *[a for k, v in configs.items() for a in ("--config", f"{k}={v}")])


def _alter(cluster, topic: str, **configs: str):
    """kafka-configs.sh --alter --add-config."""
    return cluster.tool(_tool(cluster, "ConfigCommand"), "--bootstrap-server",
                        cluster.bootstrap, "--alter", "--entity-type", "topics",
                        "--entity-name", topic, "--add-config",
                        ",".join(f"{k}={v}" for k, v in configs.items()))


def _said(done) -> str:
    return done.stdout + done.stderr


@pytest.mark.parametrize("minor", ["3.3", "4.0", "4.4"])
def test_a_running_kafka_refuses_with_the_findings_text_what_lint_finds_an_error_in(
        minor, plugin_jar, exported, tmp_path):
    """The plugin on a real controller: before its bundle exists every creation is refused
    (fail closed); once written (read again when its file changes), kafka-topics --create
    and kafka-configs --alter are refused with lint's finding text where lint finds an
    error, and accepted where it finds none."""
    from conftest import own_kafka_cluster
    bundle_path, _ = exported
    placed = tmp_path / "bundle.json"
    cluster = own_kafka_cluster(minor, controller_config={
        "create.topic.policy.class.name": "io.policylint.controller.PolicylintPolicy",
        "alter.config.policy.class.name": "io.policylint.controller.PolicylintPolicy",
        "policylint.policy": str(placed)}, jars=(str(plugin_jar),))
    try:
        refused = _create(cluster, "orders.early", 6, 3, **{"cleanup.policy": "delete"})
        assert refused.returncode != 0 and "cannot be loaded" in _said(refused), _said(refused)
        shutil.copy(bundle_path, placed)
        time.sleep(1.5)  # the plugin looks at the file's time once a second
        cases = [("orders.ok", 6, 3, {"cleanup.policy": "delete", "min.insync.replicas": "2"}),
                 ("orders.isr", 6, 3, {"cleanup.policy": "delete", "min.insync.replicas": "4"}),
                 ("payments.low", 6, 2, {"cleanup.policy": "delete",
                                         "min.insync.replicas": "2"}),
                 ("orders.big", 200, 3, {"cleanup.policy": "delete"}),
                 ("legacy.big", 200, 3, {"cleanup.policy": "compact"}),  # exempt: PL703
                 ("orders.jitter", 6, 3, {"cleanup.policy": "delete",
                                          "segment.jitter.ms": "5"}),
                 ("orders.bare", 6, 3, {})]
        requests_ = [{"kind": "create", "topic": t, "partitions": p, "rf": rf, "configs": c}
                     for t, p, rf, c in cases]
        linted = lint_verdicts(tmp_path, requests_, minor, {r["code"] for r in json.loads(
            bundle_path.read_text())["rules"]})
        result = lint([str(tmp_path / "topics.yaml")], policy=str(POLICY),
                      kafka_version=minor, baseline="")
        for topic, partitions, rf, configs in cases:
            done = _create(cluster, topic, partitions, rf, **configs)
            errors = [f for f in result.findings if f.topic == topic and not f.suppressed
                      and f.severity == "error" and (f.rule, "error") in linted[topic]]
            if not errors:
                assert done.returncode == 0, (topic, _said(done))
                continue
            assert done.returncode != 0, topic
            for finding in errors:  # the code, and for the policy's own rules the text
                assert finding.rule in _said(done), (topic, finding.rule, _said(done))
                if finding.rule.startswith(("TEAM", "PL603", "PL707")):
                    assert finding.message in _said(done), (finding.message, _said(done))
        changed = _alter(cluster, "orders.ok", **{"segment.jitter.ms": "5"})
        assert changed.returncode != 0 and "PL707" in _said(changed), _said(changed)
        assert "segment.jitter.ms is forbidden by the policy" in _said(changed)
        changed = _alter(cluster, "orders.ok", **{"retention.ms": "86400000"})
        assert changed.returncode == 0, _said(changed)
    finally:
        cluster.stop()


def test_export_writes_a_bundle_and_says_what_stays_behind(tmp_path):
    """The command: the bundle on standard output or -o (atomically, never over the policy
    or a file that is not policylint's), the policy's own rules left behind named on
    standard error, a wrong target exit 2 in one line."""
    from policylint.cli import run
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert run(["export", "--for", "kafka-controller", str(POLICY)]) == 0
    made = json.loads(out.getvalue())
    assert made["format"] == "policylint-controller-bundle" and made["fail"] == "closed"
    assert "TEAM104 owner-label not exported: reads topic.labels" in err.getvalue()
    assert "PL401" in {r["code"] for r in made["not_exported"]}  # listed, not said
    assert "PL401" not in err.getvalue()
    copy = tmp_path / "policy.yaml"
    copy.write_text(POLICY.read_text())
    with contextlib.redirect_stderr(io.StringIO()) as said:
        assert run(["export", "--for", "kafka-controller", str(copy), "-o", str(copy)]) == 2
        assert run(["export", "--for", "opa", str(copy)]) == 2
    assert "not overwritten" in said.getvalue() and "--for must be kafka-controller" in \
        said.getvalue()
    target = tmp_path / "bundle.json"
    with contextlib.redirect_stderr(io.StringIO()):
        assert run(["export", "--for", "kafka-controller", str(copy), "-o", str(target),
                    "--fail", "open"]) == 0
    assert json.loads(target.read_text())["fail"] == "open"


def test_an_exemptions_globs_match_as_fnmatch_matches():
    """The regular expressions the bundle gives the plugin for exemption globs match the
    names fnmatch (lint's) matches, sets, negations and punctuation included."""
    import fnmatch
    import re
    from policylint.export import _glob
    patterns = ["legacy.*", "orders.1?", "a[bc]*", "a[!b]x", "x[]]y", "x[!]]y", "*-dlq",
                "pay$ments.(*)", "t+[0-9][0-9]", "[", "a[b", "*.*.*", "?", "ü*", "[!]", "[]",
                "a[!]b]c", "[a-c]x", "x\\y"]
    names = ["legacy.x", "legacy", "orders.12", "orders.1", "abx", "acx", "adx", "x]y",
             "xay", "a-dlq", "pay$ments.(x)", "t+12", "[", "a[b", "a.b.c", "a", "über", "",
             "legacyX", "orders.123", "t+1a", "[!]", "[]", "a]c", "abc", "bx", "x\\y"]
    for pattern in patterns:
        for name in names:
            assert bool(re.fullmatch(_glob(pattern), name, re.S)) == \
                fnmatch.fnmatchcase(name, pattern), (pattern, name)
