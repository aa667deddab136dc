"""Everything one lint run reads: the linted files, the cluster context and the ``--current``
baseline. This is the one place that decides how they are read, helper process included."""

from __future__ import annotations

from pathlib import Path

from ..model import ClusterProfile, Snapshot
from . import (DEFAULT_MAX_FILE_SIZE, InputError, Inputs, context_documents, load,
               parse_context, parse_files, schema_errors, snapshot, strimzi, walk)
from .ahead import Ahead
from .current import current_assignment
from .document import Document


def read_inputs(paths: list[str], cluster: str | None = None, current: str | None = None,
                max_size: int = DEFAULT_MAX_FILE_SIZE) -> Inputs:
    """The model of a run's files with its cluster context and baseline. InputError for
    problems with the call itself (a missing path, a broken context file)."""
    files = list(walk(paths))
    # the order in which their errors are asked for: the linted files, then the cluster
    order = [path for path, _ in files] + ([Path(cluster)] if cluster else [])
    with Ahead(order, max_size, schema_errors) as ahead:
        # Every file is decoded before any is validated: validation leaves many small
        # holes in the heap, and decoding a large file into them is slower.
        parsed = parse_files(files, max_size)
        cluster_docs = None if cluster is None else parse_context(cluster, max_size)
        inputs = load(parsed, ahead)
        inputs.profile, inputs.snapshot = _cluster(inputs, cluster, cluster_docs, ahead)
    if current is not None:
        inputs.current = current_assignment(current, max_size)
    return inputs


def _cluster(inputs: Inputs, cluster: str | None, docs: list[Document] | None,
             ahead: Ahead) -> tuple[ClusterProfile | None, Snapshot | None]:
    """The cluster context: ``--cluster`` (its ``docs``), else the one snapshot or Strimzi
    Kafka linted."""
    if cluster is not None:
        found = context_documents(cluster, docs or [], ahead)
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
