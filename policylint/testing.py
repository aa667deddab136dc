"""The case-file harness: test a rule with YAML cases, as policylint tests its own rules.

A case file holds one rule's cases::

    rule: ACME001
    cases:
      - name: a topic without the prefix
        files:                      # written into a fresh directory
          topic.yaml: |
            apiVersion: kafka.strimzi.io/v1beta2
            ...
        expect: ["ACME001 topic.yaml:4:9"]   # CODE file:line:column, sorted as reported
        # optional: cluster, current (context files), policy (a policy as YAML), paths,
        # base (files committed to a git repository first: diff mode), allow_rf_change,
        # max_file_size, messages (substrings of messages), severities (of the findings,
        # in order), unchecked (the rule's count), select (the rules run; default the
        # case file's rule alone), fixed (each file as --fix leaves it, byte for byte)

In a rule pack's tests (``spark`` being a session fixture, e.g. ``spark_session()``)::

    from policylint import testing
    CASES = Path(__file__).parent / "cases"

    @pytest.mark.parametrize("rule,case", testing.load_cases(CASES))
    def test_case(rule, case, tmp_path):
        testing.check_case(rule, case, tmp_path)

    def test_audit_gives_the_lint_findings(spark, tmp_path):
        testing.check_spark_parity(spark, testing.load_cases(CASES), tmp_path)
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import textwrap
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import yaml

from .engine import Result
from .linter import lint

#: the day the cases are linted on (exemption expiry is relative to it)
TODAY = dt.date(2026, 11, 21)


def load_cases(directory: Path) -> list[Any]:
    """``pytest.param(rule, case)`` for every case of every ``*.yaml`` case file under
    ``directory`` (in folders by rule family, or not), with ids ``FILE-N-name``."""
    import pytest
    params = []
    for path in sorted(Path(directory).rglob("*.yaml")):
        spec = yaml.safe_load(path.read_text())
        for i, case in enumerate(spec["cases"]):
            params.append(pytest.param(spec["rule"], case, id=f"{path.stem}-{i}-{case['name']}"))
    return params


def write_files(root: Path, files: dict) -> None:
    """Writes ``{name: text}`` under ``root`` (text dedented; ``{bytes: [...]}`` as bytes)."""
    for name, content in files.items():
        target = Path(root) / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            target.write_text(textwrap.dedent(content))
        else:
            target.write_bytes(bytes(content["bytes"]))


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True,
                          text=True).stdout


def git_commit(root: Path, message: str) -> None:
    """Commits everything under ``root``, making it a git repository first if need be."""
    if not (Path(root) / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=policylint", "-c", "user.email=policylint@example.com",
        "commit", "-q", "--allow-empty", "-m", message)


@contextmanager
def working_directory(root: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(root)
    try:
        yield
    finally:
        os.chdir(before)


def run_case(rule: str, case: dict, root: Path) -> Result:
    """Writes the case's files under ``root`` and lints them there with only ``rule``."""
    policy = None
    if "policy" in case:  # the policy in force: at the base too (the base judges a change)
        (Path(root) / "policy.yaml").write_text(yaml.safe_dump(case["policy"]))
        policy = "policy.yaml"
    base = None
    if "base" in case:
        write_files(root, case["base"])
        git_commit(root, "base")
        for name in case["base"]:
            (Path(root) / name).unlink()
        base = "HEAD"
    if "head_policy" in case:  # the policy as the change leaves it (PL125)
        (Path(root) / "policy.yaml").write_text(yaml.safe_dump(case["head_policy"]))
        policy = "policy.yaml"
    write_files(root, case["files"])
    context = {case.get("cluster"), case.get("current")}
    paths = case.get("paths") or sorted(n for n in case["files"] if n not in context)
    with working_directory(root):
        return lint(paths, cluster=case.get("cluster"), current=case.get("current"),
                    policy=policy, select=case.get("select") or [rule],
                    allow_rf_change=case.get("allow_rf_change", False),
                    max_file_size=case.get("max_file_size", 2**20), base=base, today=TODAY)


def render(finding: Any) -> str:
    """A finding as a case expects it: ``CODE file:line:column`` (`` suppressed``)."""
    where = f"{finding.file}:{finding.line}:{finding.column}"
    return f"{finding.rule} {where}" + (" suppressed" if finding.suppressed else "")


def check_case(rule: str, case: dict, root: Path) -> Result:
    """Runs a case and asserts what it expects."""
    result = run_case(rule, case, root)
    found = [render(f) for f in result.findings]
    assert found == case["expect"], f"found {found}, expected {case['expect']}"
    for expected in case.get("messages", []):
        assert any(expected in f.message for f in result.findings), \
            f"no message has {expected!r}: {[f.message for f in result.findings]}"
    if "severities" in case:
        severities = [f.severity for f in result.findings]
        assert severities == case["severities"], f"severities {severities}"
    if "unchecked" in case:
        unchecked = result.unchecked.get(rule, 0)
        assert unchecked == case["unchecked"], \
            f"unchecked {unchecked}, expected {case['unchecked']}"
    if "fixed" in case:  # --fix: each file as the fixes leave it, byte for byte
        from .fixes import apply
        with working_directory(root):
            problems = [o.problem for o in apply(result.findings, write=True) if o.problem]
        assert not problems, problems
        for name, expected in case["fixed"].items():
            text = (Path(root) / name).read_text()
            assert text == expected, f"{name} fixed as\n{text}"
    return result


# -- the audit -----------------------------------------------------------------------------

def jvm_arguments(spark: Any) -> list[str]:
    """The arguments the session's driver JVM was started with, as the JVM reports them."""
    management = spark.sparkContext._jvm.java.lang.management
    return list(management.ManagementFactory.getRuntimeMXBean().getInputArguments())


def spark_session(master: str = "local[2]") -> Any:
    """A small embedded Spark session on 127.0.0.1 for tests."""
    from .spark.audit import session
    spark = session(master)
    spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    return spark


_COMPARED = ("rule", "cluster", "topic", "partition", "severity", "message", "suppressed")


def finding_rows(findings: Any) -> set[tuple]:
    """(rule, cluster, topic, partition, severity, message, suppressed) of audit findings."""
    return {tuple(r[c] for c in _COMPARED) for r in findings.collect()}


def local_finding_rows(source: str, policy: Any, **options: Any) -> set[tuple]:
    """``finding_rows`` of the in-process audit engine."""
    from .spark.local import audit_locally
    findings, _ = audit_locally(source, policy, **options)
    return {tuple(r[c] for c in _COMPARED) for r in findings}


def lint_rows(paths: list[Path], policy: str | None = None, select: list[str] | None = None
              ) -> set[tuple]:
    """The same tuples from ``policylint lint``, one snapshot file at a time."""
    out = set()
    for path in paths:
        cluster = _cluster_of(path)
        result = lint([str(path)], policy=policy, select=select, today=TODAY)
        out |= {(f.rule, cluster, f.topic, f.partition, f.severity, f.message, f.suppressed)
                for f in result.findings}
    return out


def _cluster_of(path: Path) -> str | None:
    from .sources import ParseError, parse, read
    try:
        docs = parse(read(Path(path), 2**30))
    except ParseError:
        return None
    return docs[0].data.get("cluster") if docs and isinstance(docs[0].data, dict) else None


def check_spark_parity(spark: Any, params: list[Any], root: Path,
                       engines: tuple[str, ...] = ("native", "fallback", "local")) -> int:
    """Audits the snapshots of every case whose linted files are all snapshots (one fleet
    per policy, each case's cluster renamed apart) and asserts the audit reports what
    ``policylint lint`` reports on the same files, on each engine: Spark's native rules,
    Spark's generic path, and the in-process engine. Returns the number of cases
    compared."""
    from .policy import load as load_policy
    from .registry import all_rules
    from .sources import detect, parse, read
    from .spark.audit import audit, read as read_fleet

    groups: dict[str, list[tuple[str, Path]]] = defaultdict(list)  # policy -> snapshots
    fleets: dict[str, int] = {}
    compared = 0
    for n, param in enumerate(params):
        rule, case = param.values
        if not {"snapshot", "profile"} & set(all_rules()[rule].reads.targets) \
                or {"cluster", "current", "base"} & set(case):
            continue
        case_dir = Path(root) / "cases" / f"{n:03d}"
        write_files(case_dir, case["files"])
        snapshots = []
        for name in case["files"]:
            docs = parse(read(case_dir / name, 2**20))
            if not docs or any(detect(d.data) != "snapshot" for d in docs):
                break
            data = docs[0].data
            data["cluster"] = f"case{n:03d}-{data.get('cluster')}"
            snapshots.append(data)
        else:
            compared += 1
            key = json.dumps(case.get("policy"), sort_keys=True, default=str)
            fleet_dir = Path(root) / "fleets" / str(fleets.setdefault(key, len(fleets)))
            for i, data in enumerate(snapshots):
                path = fleet_dir / f"case{n:03d}-{i}.json"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(data))
                groups[key].append((rule, path))
    for key, members in groups.items():
        policy = None
        if json.loads(key) is not None:
            (Path(root) / "policy.yaml").write_text(yaml.safe_dump(json.loads(key)))
            policy = str(Path(root) / "policy.yaml")
        rules = sorted({rule for rule, _ in members})
        expected: set[tuple] = set()
        for rule, path in members:
            expected |= lint_rows([path], policy, [rule])
        wanted = {(rule, _cluster_of(path)) for rule, path in members}
        fleet = read_fleet(spark, str(members[0][1].parent))
        for engine in engines:
            if engine == "local":
                rows = local_finding_rows(str(members[0][1].parent), load_policy(policy),
                                          select=rules, today=TODAY)
            else:
                rows = finding_rows(audit(fleet, load_policy(policy), select=rules,
                                          today=TODAY, engine=engine))
            found = {f for f in rows if f[:2] in wanted}
            assert found == expected, (engine, sorted(found ^ expected)[:10])
    return compared
