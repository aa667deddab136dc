"""``lint()``: the library entry point behind ``policylint lint``."""

from __future__ import annotations

import datetime as dt
import gc
from pathlib import Path

from . import policy as policies
from . import sources
from .engine import Context, Result, run, selected_rules
from .model import ClusterProfile, Snapshot
from .registry import check_selectors
from .sources import InputError, reassignment, snapshot, strimzi
from .sources.document import Document


def lint(paths: list[str], *, cluster: str | None = None, current: str | None = None,
         policy: str | None = None, select: list[str] | None = None,
         ignore: list[str] | None = None, allow_rf_change: bool = False,
         max_file_size: int = sources.DEFAULT_MAX_FILE_SIZE, base: str | None = None,
         today: dt.date | None = None) -> Result:
    """Lint files and directories; with ``base`` (a git ref) also compare their topic
    manifests with the same topics at that ref. Raises InputError, PolicyError or
    RegistryError for problems with the call itself (exit 2)."""
    chosen = policies.load(policy)
    check_selectors((select or []) + (ignore or []))
    rules = selected_rules(chosen, select, ignore)
    # Decoding builds millions of small containers and none of them are cyclic: the cyclic
    # garbage collector would only rescan them, 3-5x the decoding time.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        files = list(sources.walk(paths))
        # the order in which their errors are asked for: the linted files, then the cluster
        order = [path for path, _ in files] + ([Path(cluster)] if cluster else [])
        with sources.Ahead(order, max_file_size, sources.schema_errors) as ahead:
            # Every file is decoded before any is validated: validation leaves many small
            # holes in the heap, and decoding a large file into them is slower.
            parsed = sources.parse_files(files, max_file_size)
            cluster_docs = None if cluster is None else sources.parse_context(
                cluster, max_file_size)
            inputs = sources.load(parsed, ahead)
            ctx = Context(policy=chosen, manifests=inputs.manifests, plans=inputs.plans,
                          allow_rf_change=allow_rf_change)
            ctx.profile, ctx.snapshot = _cluster(inputs, cluster, cluster_docs, ahead)
        if current is not None:
            ctx.current = _current(current, max_file_size)
        if base is not None:
            from .sources.git import files_at
            ctx.base = sources.base_manifests(files_at(base, paths), max_file_size)
            ctx.base_ref = base
        targets = {
            "manifest": inputs.manifests,
            "plan": inputs.plans,
            "snapshot": inputs.snapshots,
            "profile": [s.profile for s in inputs.snapshots] + inputs.profiles(),
        }
        return run(ctx, targets, rules, inputs.findings, len(inputs.files), today)
    finally:
        if gc_was_enabled:
            gc.enable()


def _cluster(inputs: sources.Inputs, cluster: str | None, docs: list[Document] | None,
             ahead: sources.Ahead
             ) -> tuple[ClusterProfile | None, Snapshot | None]:
    """The cluster context: ``--cluster`` (its ``docs``), else the one snapshot or Strimzi
    Kafka linted."""
    if cluster is not None:
        found = sources.context_documents(cluster, docs, ahead)
        kafkas = [doc for kind, doc in found if kind == "strimzi-kafka"]
        pools = [doc for kind, doc in found if kind == "strimzi-nodepool"] + inputs.pools
        snapshots = [doc for kind, doc in found if kind == "snapshot"]
        if len(snapshots) + len(kafkas) != 1:
            raise InputError(f"--cluster {cluster}: expected one ClusterSnapshot or Strimzi "
                             f"Kafka resource, found {len(snapshots) + len(kafkas)}")
        if snapshots:
            snap = snapshot.snapshot(snapshots[0], set(), set())
            return snap.profile, snap
        return strimzi.cluster_profiles(kafkas, pools)[0], None
    candidates: list[tuple[ClusterProfile, Snapshot | None]] = [
        (s.profile, s) for s in inputs.snapshots] + [(p, None) for p in inputs.profiles()]
    if len(candidates) > 1:
        names = ", ".join(sorted({p.doc.source.name for p, _ in candidates if p.doc}))
        raise InputError(f"{len(candidates)} cluster descriptions among the inputs ({names}): "
                         "choose the cluster context with --cluster FILE")
    return candidates[0] if candidates else (None, None)


def _current(path: str, max_file_size: int) -> dict[tuple[str, int], list[int]]:
    """The ``--current`` assignment. The Kafka tool prints it between two lines of prose;
    a file saved from that output is accepted as it is."""
    try:
        plans = [doc for kind, doc in sources.load_context(path, max_file_size)
                 if kind == "reassignment"]
    except InputError:
        plans = []
    if len(plans) != 1:
        plans = [_json_line(Path(path), max_file_size)]
    return reassignment.assignment(reassignment.plan(plans[0], set()))


def _json_line(path: Path, max_file_size: int) -> Document:
    """The assignment JSON line of a file saved from the Kafka tool's output."""
    text = sources.read(path, max_file_size).text
    for line in text.splitlines():
        if line.lstrip().startswith("{"):
            try:
                doc = sources.parse(sources.SourceFile(sources.display_name(path), line,
                                                       "json"))[0]
            except sources.ParseError:
                break
            if sources.detect(doc.data) == "reassignment" and \
                    not sources.validator("reassignment").errors(doc.data):
                return doc
            break
    raise InputError(f"--current {path}: expected the current assignment JSON printed by "
                     "kafka-reassign-partitions.sh")
