"""``policylint plan`` end to end (the planner itself is ``policylint.planner``): read the
snapshot and sizes, make the plan, lint it against the same snapshot, split it into
batches and say what it does. The CLI parses the options and writes what this returns."""

from __future__ import annotations

import fnmatch
import glob
import json
import os
import re
import stat
from typing import NamedTuple

from .planner import PlanError, Request, make, read_snapshot
from .planner.batches import one_at_a_time, split, throttled
from .planner.report import text
from .words import count


class Written(NamedTuple):
    files: list[tuple[str, str]]  # (path, text): the plan, its rollback, its batches
    plan: str  # the plan's JSON (printed when no --output)
    summary: str
    #: what lint found in the plan (``engine.Result``; None: no plan); findings: nothing
    #: is written
    linted: object
    #: files an earlier run of the same --output wrote that this one does not (its batches)
    stale: list[str] = []


def plan_json(plan: dict) -> str:
    """Kafka's format, one partition per line (diffs stay readable; the tool reads it)."""
    rows = ",\n".join("  " + json.dumps(p, separators=(",", ":")) for p in plan["partitions"])
    return '{"version":1,"partitions":[\n' + rows + ("\n" if rows else "") + "]}\n"


def log_dir_sizes(path: str) -> dict[tuple[str, int], int]:
    """Partition sizes from ``kafka-log-dirs.sh --describe`` output (its JSON line, after
    the lines it prints first): the largest replica of each partition."""
    from .sources import InputError
    from .sources.document import ParseError
    from .sources.jsondoc import refuse_lone_surrogates
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise InputError(f"--log-dirs {path}: {exc.strerror or exc}") from None
    found = [line for line in lines if line.lstrip().startswith("{")]
    try:
        refuse_lone_surrogates(found[-1] if found else "")
    except ParseError as exc:
        raise InputError(f"--log-dirs {path}: {exc}") from None
    try:
        data = json.loads(found[-1]) if found else None
        sizes: dict[tuple[str, int], int] = {}
        for broker in data["brokers"]:
            for log_dir in broker.get("logDirs") or ():
                for p in log_dir.get("partitions") or ():
                    if p.get("isFuture"):
                        continue
                    topic, _, number = str(p["partition"]).rpartition("-")
                    key = (topic, int(number))
                    sizes[key] = max(sizes.get(key, 0), int(p["size"]))
    except (TypeError, KeyError, ValueError, IndexError, AttributeError):
        raise InputError(f"--log-dirs {path}: not the JSON kafka-log-dirs.sh --describe "
                         "prints ({\"brokers\": [{\"broker\", \"logDirs\": [...]}]})") from None
    return sizes


def brokers_spec(text_: str) -> dict[int, str | None]:
    """``1:eu-1a,2:eu-1b`` or ``1,2,3``: broker ids with their racks."""
    from .sources import InputError
    brokers: dict[int, str | None] = {}
    for item in filter(None, (i.strip() for i in text_.split(","))):
        match = re.fullmatch(r"(\d{1,10})(?::(\S+))?", item)
        if not match:
            raise InputError(f"{item!r} is no broker: give ID or ID:RACK")
        brokers[int(match[1])] = match[2]
    return brokers


def run(snapshot_path: str, request: Request, *, brokers: str | None, log_dirs: str | None,
        policy: str | None, output: str | None, rollback: str | None,
        max_per_broker: int | None, batch_size: int | None, throttle: int | None,
        what: str, one_replica: bool = False) -> Written:
    from . import policy as policies
    from .sources import start_of
    snapshot = read_snapshot(snapshot_path, brokers_spec(brokers) if brokers else None)
    if policy is None:  # the snapshot's repository's, as lint finds it: it judges the plan
        found = policies.discover(start_of([snapshot_path]))
        policy = str(found) if found is not None else None
    chosen = policies.load(policy, start_of([snapshot_path]))
    not_allowed = sorted(t for t in request.rf if not chosen.allows_rf_change(t))
    if not_allowed:
        raise PlanError(f"--rf {not_allowed[0]}: the policy does not allow an RF change for "
                        "it (allow: {rf_change: [...]} in the policy, as PL201 judges)")
    unknown = sorted(set(request.rf) - set(snapshot.topics))
    if unknown:
        raise PlanError(f"--rf {unknown[0]}: no such topic in the snapshot")
    for pattern in request.topics:
        if not any(fnmatch.fnmatchcase(t, pattern) for t in snapshot.topics):
            raise PlanError(f"--topics {pattern}: matches no topic of the snapshot")
    sizes_by_key = log_dir_sizes(log_dirs) if log_dirs else None
    request = request._replace(
        sizes=sizes_by_key,
        rack_mode=chosen.rules.get("PL401", {}).get("mode", request.rack_mode),
        max_skew=chosen.rules.get("PL403", {}).get("max_skew", request.max_skew))
    made = make(snapshot, request)
    sizes = [sizes_by_key.get(k, 0) for k in made.keys] if sizes_by_key else None
    plan = plan_json(made.plan())
    stale = _earlier(output, rollback)
    if not made.changed:  # nothing to move: an empty plan (that Kafka refuses to run)
        return Written([(output, plan)] if output else [], "",
                       text(made, what, sizes, [], throttle) +
                       _how_to_run(made, [], [], output, throttle), None, stale)
    linted = _lint(plan, snapshot_path, snapshot, made.brokers, policy, bool(request.rf),
                   output or "-", request.in_flight)  # "-": the plan printed, no file
    batches = one_at_a_time(made, sizes) if one_replica else \
        split(made, max_per_broker, batch_size, sizes)
    summary = text(made, what, sizes, batches, throttle)
    files: list[tuple[str, str]] = []
    if output and not _regular_target(output):  # /dev/stdout: nothing written beside it
        files.append((output, plan))
        if rollback:
            files.append((rollback, plan_json(made.plan("before"))))
    elif output:
        files.append((output, plan))
        files.append((rollback or _beside(output, "rollback"), plan_json(made.plan("before"))))
        if request.leaders_only:  # what kafka-leader-election.sh elects once it has run
            files.append((_beside(output, "election"), json.dumps({"partitions": [
                {"topic": made.keys[i][0], "partition": made.keys[i][1]}
                for i in made.changed]}, separators=(",", ":")) + "\n"))
        if len(batches) > 1:
            for k, batch in enumerate(batches, 1):
                files.append((_beside(output, f"batch-{k}"),
                              plan_json(made.plan(only=batch.entries, steps=batch.steps))))
    elif rollback:
        files.append((rollback, plan_json(made.plan("before"))))
    summary += _how_to_run(made, batches, files, output, throttle)
    return Written(files, plan, summary, linted, stale)


def _beside(path: str, what: str) -> str:
    stem, ext = os.path.splitext(path)
    return f"{stem}.{what}{ext or '.json'}"


def _regular_target(path: str) -> bool:
    """Whether ``path`` is (or will be) a regular file, so that files may go beside it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def _earlier(output: str | None, rollback: str | None) -> list[str]:
    """The files a run with the same ``--output`` writes: its rollback and its batches."""
    if not output or not _regular_target(output):
        return []
    stem, ext = os.path.splitext(_beside(output, "batch-0"))
    batches = glob.glob(glob.escape(stem[:-len("batch-0")]) + "batch-*" + glob.escape(ext))
    return sorted({rollback or _beside(output, "rollback"), _beside(output, "election"),
                   *batches})


def _lint(plan: str, snapshot_path: str, snapshot, brokers: dict, policy: str | None,
          rf_change: bool, name: str, in_flight: bool):
    """What ``policylint lint`` finds in the plan against the same snapshot, as given, with
    the brokers the plan adds or brings in (``brokers``) joining it, as ``lint --add`` has
    them (shown as the file ``name``; PL306 left out when the operator plans around a
    reassignment in flight)."""
    from .linter import lint
    from .sources import unsaved
    listed = snapshot.profile.brokers if snapshot_path.endswith(".json") else {}
    joining = {b: r for b, r in brokers.items() if listed.get(b, object()) != r}
    # the plan (and a snapshot read from kafka-topics.sh --describe output, as a
    # ClusterSnapshot) are read from memory, as the editor's unsaved files are: no file
    # is written; the folder is one no file system has
    folder = os.path.join(os.path.abspath(os.sep), "policylint-plan-in-memory")
    texts = {os.path.join(folder, "plan.json"): plan}
    cluster = snapshot_path
    if not snapshot_path.endswith(".json"):
        cluster = os.path.join(folder, "snapshot.json")
        texts[cluster] = json.dumps(_as_snapshot(snapshot))
    held = unsaved.set(texts)
    try:
        result = lint([os.path.join(folder, "plan.json")], cluster=cluster, policy=policy,
                      allow_rf_change=rf_change, baseline="", joining=joining or None)
    finally:
        unsaved.reset(held)
    result.findings = [f for f in result.findings if not f.suppressed
                       and not (in_flight and f.rule == "PL306")]
    for finding in result.findings:
        finding.file = name
    return result


def _as_snapshot(snapshot) -> dict:
    """A snapshot read from ``kafka-topics.sh --describe`` output, as a ClusterSnapshot."""
    profile = snapshot.profile
    return {"kind": "ClusterSnapshot", "version": 1, "cluster": profile.name,
            "brokers": [{"id": b, **({"rack": r} if r is not None else {})}
                        for b, r in sorted(profile.brokers.items())],
            "config": profile.config,
            **({"kafka_version": profile.kafka_version} if profile.kafka_version else {}),
            "topics": [{"name": t.name, "config": t.config, "partitions": [
                {"partition": p.partition, "replicas": p.replicas,
                 **({"isr": p.isr} if p.isr is not None else {}),
                 "adding": p.adding, "removing": p.removing,
                 **({"uncertain": p.uncertain} if p.uncertain else {})}
                for p in t.partitions]}
                for t in snapshot.topics.values()]}


def _how_to_run(made, batches, files, output, throttle) -> str:
    if not made.changed:
        return "  nothing to move: the cluster already meets the goal" + (
            f"; {output} holds an empty plan (nothing to run)\n" if output else "\n")
    if not output:
        return ""
    plans = [path for path, _ in files if ".batch-" in path] or [output]
    rate = f" --throttle {throttle}" if throttle else ""
    lines = ["  to run it (each batch once the one before is complete):"]
    for k, path in enumerate(plans, 1):
        lines.append(f"    kafka-reassign-partitions.sh --bootstrap-server HOST:PORT "
                     f"--reassignment-json-file {path} --execute{rate}")
        lines.append(f"    kafka-reassign-partitions.sh --bootstrap-server HOST:PORT "
                     f"--reassignment-json-file {path} --verify   # removes the throttle")
        if throttle and len(batches) >= k:
            configs = throttled(made, batches[k - 1])
            senders = {b for i in batches[k - 1].entries for b in made.before[i]}
            lines.append(f"      it sets leader/follower.replication.throttled.replicas on "
                         f"{count(len(configs), 'topic')} and the rates on "
                         f"{count(len(senders), 'broker')}")
    election = [path for path, _ in files if ".election" in path]
    if election:  # the order is written; leadership moves when elected
        lines.append(f"    kafka-leader-election.sh --bootstrap-server HOST:PORT --election-type "
                     f"PREFERRED --path-to-json-file {election[0]}   # no data moves")
    rollback = [path for path, _ in files if ".rollback" in path]
    if rollback:
        lines.append(f"  to roll back: the same with {rollback[0]}")
    return "\n".join(lines) + "\n"

