"""The fleet audit without Spark: the same ingest (``snapshot_rows``: each file read by
``policylint.sources``, cut into the normalised tables' rows), the same rebuild of each
snapshot from those rows and the same rule checks (``check_snapshot``) as Spark's generic
path, and the same policy, in one process. ``--engine auto`` takes it for a fleet small
enough to read at once. Nothing here imports pyspark.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections import defaultdict
from functools import lru_cache
from typing import Any, Iterator

from ..engine import selected_rules
from ..policy import CompiledPolicy, Policy

TABLES = ("clusters", "brokers", "topics", "partitions", "quarantined")
SNAPSHOT_FILES = r"(?i)\.(json|ya?ml)$"
SNAPSHOT_TARGETS = {"snapshot", "profile"}
#: the findings table's columns, in order (``tables.FINDINGS`` types them for Spark)
FINDING_COLUMNS = ("rule", "name", "severity", "cluster", "captured_at", "topic", "partition",
                   "message", "source", "suppressed", "justification")
#: the order both engines write findings in
ORDER = ("cluster", "captured_at", "rule", "topic", "partition", "message", "source")


def audit_rules(policy: Policy, select: list[str] | None, ignore: list[str] | None,
                today: dt.date | None = None) -> tuple[CompiledPolicy, list]:
    """The policy compiled for the audit, and the snapshot rules it runs."""
    rules = [r for r in selected_rules(policy, select, ignore)
             if SNAPSHOT_TARGETS & set(r.reads.targets) or r.code in ("PL100", "PL101")]
    compiled = policy.compile(rules, today or dt.date.today())
    checked = [r for r in rules if r.code not in ("PL100", "PL101")
               and r.applies(compiled.options[r.code])]
    return compiled, checked


def snapshot_files(source: str) -> list[str]:
    """The snapshot files under ``source`` (a file or a directory walked recursively)."""
    if os.path.isfile(source):
        return [source]
    if not os.path.isdir(source):
        from ..sources import InputError
        raise InputError(f"{source}: no such file or directory")
    pattern = re.compile(SNAPSHOT_FILES)
    return sorted(os.path.join(d, f) for d, _, files in os.walk(source) for f in files
                  if pattern.search(f))


def audit_locally(source: str, policy: Policy, select: list[str] | None = None,
                  ignore: list[str] | None = None, today: dt.date | None = None
                  ) -> tuple[list[dict], dict[str, list[str]]]:
    """The findings of the snapshot files under ``source``, as rows of FINDING_COLUMNS in
    the order the engines write them; and each cluster's capture times."""
    compiled, checked = audit_rules(policy, select, ignore, today)
    tables: dict[str, list[tuple]] = defaultdict(list)
    for path in snapshot_files(source):
        with open(path, "rb") as f:
            data = f.read()
        for name, values in snapshot_rows(f"file:{os.path.abspath(path)}", data):
            tables[name].append(values)
    rules = [(r, compiled.options[r.code]) for r in checked]
    refused = "PL101" in compiled.rules
    raw = [found for snap in _snapshots(tables)
           for found in check_snapshot(snap, rules, policy, refused)]
    sources = {(c[0], c[1]): c[4] for c in tables["clusters"]}
    rows = [(*found[:6], sources.get(found[1:3]), found[6]) for found in raw]
    rows += [(q[0], q[1], q[2], q[3], q[4], q[5], q[7], q[6]) for q in tables["quarantined"]
             if q[0] in compiled.rules]
    captures: dict[str, list[str]] = defaultdict(list)
    for c in tables["clusters"]:
        captures[c[0]].append(c[1])
    return sort_findings(apply_policy(rows, compiled)), captures


def _snapshots(tables: dict[str, list[tuple]]) -> Iterator[dict]:
    """Each snapshot as the row Spark's generic path builds by joining the tables."""
    brokers, topics, parts = defaultdict(list), defaultdict(dict), defaultdict(list)
    for b in tables["brokers"]:
        brokers[b[:2]].append({"id": b[2], "rack": b[3]})
    for p in tables["partitions"]:
        parts[p[:3]].append(dict(zip(("partition", "replicas", "isr", "adding", "removing",
                                      "uncertain"), p[3:])))
    for t in tables["topics"]:
        topics[t[:2]][t[2]] = {"name": t[2], "config": t[3], "partitions": parts.get(t[:3])}
    for key3 in parts:  # partitions of a topic the topics table lacks
        topics[key3[:2]].setdefault(key3[2], {"name": key3[2], "config": None,
                                              "partitions": parts[key3]})
    for c in tables["clusters"]:
        key = c[:2]
        yield {"cluster": c[0], "captured_at": c[1], "kafka_version": c[2], "config": c[3],
               "source": c[4], "brokers": brokers.get(key) or None,
               "topics": list(topics[key].values()) or None}


def apply_policy(rows: list[tuple], policy: CompiledPolicy) -> list[dict]:
    """Names, severities and exemptions, as the Spark engine applies them. ``rows``: (rule,
    cluster, captured_at, topic, partition, message, source, raised severity or None)."""
    out = []
    for rule, cluster, captured, topic, partition, message, source, raised in rows:
        exemption = policy.exemption(rule, topic) if topic is not None else None
        severity = policy.severities[rule] if rule in policy.fixed or raised is None \
            else raised
        out.append(dict(zip(FINDING_COLUMNS, (
            rule, policy.rules[rule].name, severity, cluster, captured, topic, partition,
            message, source, exemption is not None,
            exemption.reason if exemption is not None else None))))
    return out


def _nulls_first(values: Any) -> tuple:
    """A sort key of ``values`` that puts nulls first, as Spark sorts."""
    return tuple((v is not None, v if v is not None else "") for v in values)


def sort_findings(rows: list[dict]) -> list[dict]:
    """In ORDER, nulls first."""
    return sorted(rows, key=lambda row: _nulls_first(row[c] for c in ORDER))


def summarize(findings: list[dict]) -> list[dict]:
    """Counts per cluster, capture time, rule and severity (suppressed left out), sorted."""
    counts: dict[tuple, int] = defaultdict(int)
    for f in findings:
        if not f["suppressed"]:
            counts[(f["cluster"], f["captured_at"], f["rule"], f["severity"])] += 1
    return [dict(cluster=k[0], captured_at=k[1], rule=k[2], severity=k[3], findings=n)
            for k, n in sorted(counts.items(), key=lambda kv: _nulls_first(kv[0]))]


def snapshot_rows(path: str, data: bytes) -> list[tuple[str, tuple]]:
    """The table rows of one snapshot file, as (table, row) pairs, read by
    ``policylint.sources`` as ``lint`` reads it; what cannot be read becomes PL100/PL101
    rows."""
    from ..sources import detect, load_bytes

    def key(data: dict) -> tuple[str | None, str]:
        cluster, captured = data.get("cluster"), data.get("captured_at")
        return (cluster if isinstance(cluster, str) else None,
                captured if isinstance(captured, str) else "")

    inputs = load_bytes(path, data)
    out = []
    for finding in inputs.findings:
        doc = finding.at[0] if finding.at else None
        if doc is not None and detect(doc.data) != "snapshot":
            continue  # another kind of document: not the audit's
        finding.locate()
        where = f"{path}:{finding.line}:{finding.column}" if finding.line else path
        cluster, captured = key(doc.data) if doc is not None else (None, None)
        out.append(("quarantined", (finding.rule, cluster, captured, None, None,
                                    finding.message, None, where)))
    for snap in inputs.snapshots:
        profile = snap.profile
        keys = (profile.name, snap.captured_at or "")
        out.append(("clusters", keys + (profile.kafka_version, _strings(profile.config),
                                        path)))
        out.extend(("brokers", keys + (b, rack))
                   for b, rack in (profile.brokers or {}).items())  # unknown: none listed
        for topic in snap.topics.values():
            out.append(("topics", keys + (topic.name, _strings(topic.config))))
            out.extend(("partitions", keys + (topic.name, p.partition, p.replicas, p.isr,
                                              p.adding, p.removing, p.uncertain))
                       for p in topic.partitions)
    if _SURROGATE_ESCAPE.search(data) or _text(path) != path:
        out = [(table, _text(row)) for table, row in out]
    return out


# Lone surrogates (JSON's "\ud800", a file name that is not UTF-8) are no Unicode text, and
# no table holds them: each becomes U+FFFD, as Spark makes it of a Python string, so that
# both engines read the same names. Only a file that may hold one is looked through.
_SURROGATE_ESCAPE = re.compile(rb"\\(?:u|U0000)[dD][89a-fA-F]")


def _text(value: Any) -> Any:
    """``value`` with each lone surrogate of its strings as U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, (tuple, list)):
        return type(value)(map(_text, value))
    if isinstance(value, dict):
        return {_text(k): _text(v) for k, v in value.items()}
    return value


def _strings(config: dict) -> dict:
    """Kafka config values as Kafka keeps them: strings."""
    return {k: v if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
            for k, v in config.items()}


def check_snapshot(row: dict, rules: list[tuple[Any, dict]], policy: Any,
                   refused: bool = False) -> Iterator[tuple]:
    """The findings of ``rules`` on the snapshot rebuilt from ``row``; and, if ``refused``,
    a PL101 for each of its values the snapshot's schema refuses."""
    from ..engine import Context
    from ..sources import SourceFile, parse, snapshot, split_errors, validate

    data = {"kind": "ClusterSnapshot", "version": 1, "cluster": row["cluster"],
            "brokers": [{"id": b["id"], "rack": b["rack"]} for b in row["brokers"] or ()],
            "config": row["config"] or {},
            **({"kafka_version": row["kafka_version"]} if row["kafka_version"] else {}),
            "topics": [{"name": t["name"], "config": t["config"] or {},
                        "partitions": [_partition(p) for p in t["partitions"] or ()]}
                       for t in row["topics"] or ()]}
    doc = parse(SourceFile(row.get("source") or row["cluster"], _json(data), "json"))[0]
    # a table's rows were never held to the snapshot's schema (a file's were, when read):
    # what it refuses is a PL101 and is left out, as lint leaves it out; a refused part of
    # the cluster leaves nothing to judge
    errors = validate("snapshot", doc)
    bad, fatal = split_errors(errors, "topics", "partitions")
    for path, message in errors if refused else ():
        yield ("PL101", row["cluster"], row["captured_at"], *_refused(data, path, message))
    if fatal:
        return
    snap = snapshot.snapshot(doc, {k[0] for k in bad if len(k) == 1},
                             {k for k in bad if len(k) == 2})
    ctx = Context(policy=policy, profile=snap.profile, snapshot=snap)
    for rule, options in rules:
        for kind, target in (("snapshot", snap), ("profile", snap.profile)):
            if kind in rule.reads.targets:
                for f in rule.check(target, ctx, options):
                    yield (rule.code, row["cluster"], row["captured_at"], f.topic, f.partition,
                           f.message, f.severity if f.severity != rule.severity else None)


def _refused(data: dict, path: tuple, message: str) -> tuple:
    """(topic, partition, message, severity) of a schema error of a rebuilt snapshot, said
    of its topic and partition: their places in the rebuilt lists mean nothing to a user."""
    from ..schema import format_path
    topic = partition = None
    if path[:1] == ("topics",) and len(path) > 1:
        entry = data["topics"][path[1]]
        topic, path = entry["name"], path[2:]
        if path[:1] == ("partitions",) and len(path) > 1:
            partition, path = entry["partitions"][path[1]]["partition"], path[2:]
    return topic, partition, f"{format_path(path)}: {message}" if path else message, None


def _json(data: dict) -> str:
    """``data`` as JSON, by msgspec: a tenth of ``json.dumps``' time. A lone surrogate, which
    the ingest leaves none of (a plugin's table may), is U+FFFD, as Spark reads it."""
    import msgspec
    try:
        return msgspec.json.encode(data).decode()
    except UnicodeEncodeError:
        return msgspec.json.encode(_text(data)).decode()


def _partition(p: dict) -> dict:
    out = {"partition": p["partition"], "replicas": p["replicas"],
           "adding": p["adding"] or [], "removing": p["removing"] or []}
    if p["isr"] is not None:
        out["isr"] = p["isr"]
    if p["uncertain"]:
        out["uncertain"] = p["uncertain"]
    return out


# --- writing the tables as Spark does: partitioned by cluster, JSON lines or Parquet -------

_UNSAFE = set('"#%\'*/:=?\\\x7f{[]^')


@lru_cache(maxsize=4096)  # once per cluster, not once per finding
def _partition_dir(value: str | None) -> str:
    """``cluster=VALUE`` as Spark (Hive) names a partition directory."""
    if value is None or value == "":
        return "cluster=__HIVE_DEFAULT_PARTITION__"
    return "cluster=" + "".join(f"%{ord(c):02X}" if c in _UNSAFE or ord(c) < 32 else c
                                for c in value)


def write_table(rows: list[dict], path: str, fmt: str, columns: tuple[str, ...],
                by_cluster: bool) -> None:
    """``rows`` under ``path`` (replaced whole), one file per cluster when ``by_cluster``."""
    import shutil
    import tempfile
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".policylint-")
    try:
        groups: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            groups[_partition_dir(row["cluster"]) if by_cluster else ""].append(row)
        kept = [c for c in columns if not (by_cluster and c == "cluster")]
        for folder, group in groups.items():
            os.makedirs(os.path.join(tmp, folder), exist_ok=True)
            target = os.path.join(tmp, folder, f"part-00000.{fmt}")
            if fmt == "json":
                with open(target, "w", encoding="utf-8") as out:
                    for row in group:  # as Spark writes JSON: nulls left out, no spaces
                        out.write(json.dumps({c: row[c] for c in kept if row[c] is not None},
                                             ensure_ascii=False, separators=(",", ":")) + "\n")
            else:
                _parquet(group, kept, target)
        open(os.path.join(tmp, "_SUCCESS"), "w").close()
        if os.path.isdir(path):
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _parquet(rows: list[dict], columns: list[str], target: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    types = {"partition": pa.int32(), "suppressed": pa.bool_(), "findings": pa.int64()}
    schema = pa.schema([(c, types.get(c, pa.string())) for c in columns])
    pq.write_table(pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows],
                                        schema=schema), target)
