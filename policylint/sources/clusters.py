"""Clusters in one run. A GitOps repository holds several: each topic manifest and plan is
checked against its own cluster.

- A cluster is described by a ClusterSnapshot (its ``cluster`` field names it) or a cluster
  resource (a Strimzi ``Kafka`` with the ``KafkaNodePool``s labelled for it, a CFK ``Kafka``,
  a topicctl cluster config, ...: name and namespace), from the linted files or from
  ``--cluster`` files. A description belongs to its directory (its scope): descriptions of
  one name and namespace are one cluster when one's directory holds the other's (a
  ``--cluster`` file's scope is the whole run), two clusters when they sit in sibling
  directories (two environments). Snapshots of one cluster taken at different times
  describe it together (the latest is its state); a snapshot and a ``Kafka`` of the same
  name too (the snapshot's brokers are the truth). Two descriptions of one kind of the same
  cluster in one scope are PL121.
- A topic declaration belongs to the cluster it names (Strimzi's ``strimzi.io/cluster``
  label, CFK's ``kafkaClusterRef``, ...), the one of that name nearest to its file; a name
  that is none of the run's clusters is PL118.
- A plan, or a topic that names no cluster, belongs to the cluster of the only
  ``--cluster``, else to the one cluster described in its nearest directory that describes
  any, else to the cluster whose policy ``clusters:`` globs match its path. A plan none of
  them places, in a run that describes clusters, is PL123.
"""

from __future__ import annotations

import fnmatch
import posixpath
from typing import Any

from msgspec import Struct, field

from ..model import Change, ClusterProfile, Plan, Snapshot, TopicSpec
from .document import Document


class Cluster(Struct, eq=False):
    profile: ClusterProfile
    snapshot: Snapshot | None
    file: str       # the file that describes it (display name)
    explicit: bool  # described by a --cluster file
    scope: str = ""  # the directory it belongs to ("": the whole run)
    #: described twice in one scope (PL121), differently: which one a topic is written for
    #: is not known, so its topics are judged against neither
    contested: bool = False

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def namespace(self) -> str | None:
        return self.profile.namespace

    def is_named(self, name: str, namespace: str | None) -> bool:
        return self.name == name and (namespace is None or self.namespace is None
                                      or namespace == self.namespace)


class Group(Struct, eq=False):
    """The linted inputs of one cluster (None: no cluster, or one the run does not have)."""
    cluster: Cluster | None
    label: str | None = None  # the cluster a manifest names when it is none of the run's
    #: a Terraform module's own cluster (its directory, the cluster it names), when no
    #: cluster of the run takes its topics (see ``Placement.of_manifest``)
    scope: tuple | None = None
    manifests: list[TopicSpec] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    profiles: list[ClusterProfile] = field(default_factory=list)
    base: list[TopicSpec] = field(default_factory=list)  # diff mode: manifests at the ref
    changes: list[Change] = field(default_factory=list)  # of change sets (Terraform plans)
    #: the rule that says why its topics have no cluster to be judged against: PL118 (a
    #: cluster none of the inputs describe), PL121 (one described twice, differently)
    unplaced_by: str = "PL118"

    def targets(self) -> dict[str, list]:
        """What the rules check, by target kind (see ``policylint.rule``)."""
        return {"manifest": self.manifests, "plan": self.plans, "snapshot": self.snapshots,
                "profile": [s.profile for s in self.snapshots] + self.profiles}


Described = tuple[Any, str, bool, bool]  # (Snapshot or Kafka profile, file, explicit, linted)


def describe(described: list[Described]) -> tuple[list[Cluster], list[tuple[str, Any, str]]]:
    """The run's clusters, and (code, duplicate description, first file) of each second
    description of a cluster (PL121)."""
    clusters: list[Cluster] = []
    duplicates: list[tuple[str, Any, str]] = []
    for item, file, explicit, linted in described:
        profile = item.profile if isinstance(item, Snapshot) else item
        scope = posixpath.dirname(file) if linted else ""
        same = next((c for c in clusters if c.name == profile.name
                     and c.namespace == profile.namespace
                     and (_under(file, c.scope) or _under(c.file, scope))), None)
        if same is None:
            snap = item if isinstance(item, Snapshot) else None
            clusters.append(Cluster(profile, snap, file, explicit, scope))
            continue
        if len(scope) < len(same.scope):
            same.scope = scope  # the wider of the two
        same.explicit |= explicit
        if isinstance(item, Snapshot):
            if same.snapshot is None:  # a Kafka's cluster, captured
                same.profile, same.snapshot = item.profile, item
            elif _captured(item) != _captured(same.snapshot):
                if _captured(item) > _captured(same.snapshot):
                    same.profile, same.snapshot = item.profile, item
            elif linted:
                duplicates.append(("snapshot", item, same.file))
        elif linted and same.snapshot is None:
            duplicates.append(("kafka", item, same.file))
            same.contested |= (item.broker_count, item.brokers, item.config) != (
                same.profile.broker_count, same.profile.brokers, same.profile.config)
    return clusters, duplicates


def _captured(snapshot: Snapshot) -> str:
    return snapshot.captured_at or ""


class Placement:
    """Which cluster each manifest and plan belongs to."""

    def __init__(self, clusters: list[Cluster], globs: dict[str, list[str]]):
        self.clusters, self.globs = clusters, globs
        explicit = [c for c in clusters if c.explicit]
        self.given = explicit[0] if len(explicit) == 1 else None

    def of_manifest(self, spec: TopicSpec) -> tuple[Cluster | None, str | None,
                                                     tuple | None]:
        """Where a topic belongs, as (cluster, label, scope) (a ``Group``'s): (cluster, None,
        None); (None, the label, None) when its label names none of the run's clusters
        while it has some; or, for a Terraform topic no cluster of the run takes, (None,
        None, its module's directory and the cluster it names there). A module's provider
        configurations, and the cluster resources its topics refer to, are its own: two
        environments' modules declaring the same topics declare them for two clusters, and
        one module's two provider aliases are two clusters; a module's topics are placed where
        the call of the module that declares them is."""
        placed = spec.placed_at or spec.doc.source.name
        if spec.cluster is not None and self.clusters:
            named = [c for c in self.clusters if c.is_named(spec.cluster, spec.namespace)]
            if named:
                return (named[0] if len(named) == 1 else _nearest(named, placed)), None, None
            if not spec.cluster_by_reference:
                return None, spec.cluster, None
        cluster = self.of_file(placed)
        if cluster is None and spec.cluster_by_reference:
            return None, None, (posixpath.dirname(placed), spec.cluster)
        return cluster, None, None

    def of_file(self, file: str) -> Cluster | None:
        """The cluster of a plan or unlabelled manifest; None when nothing decides."""
        if self.given is not None:
            return self.given
        if not self.clusters:
            return None
        folder = posixpath.dirname(file)
        while True:
            near = [c for c in self.clusters if _under(c.file, folder)]
            if len(near) == 1:
                return near[0]
            if near or not folder:
                break
            folder = posixpath.dirname(folder)
        for name, globs in self.globs.items():
            if any(fnmatch.fnmatchcase(file, glob) for glob in globs):
                return next((c for c in self.clusters if c.name == name), None)
        return None

    def names(self, files: bool = False) -> str:
        return ", ".join(sorted({f"{c.name} ({c.file})" if files else c.name
                                 for c in self.clusters}))


def _nearest(clusters: list[Cluster], file: str) -> Cluster:
    """Of clusters of one name, the one whose directory shares most of ``file``'s path."""
    parts = file.split("/")[:-1]

    def shared(cluster: Cluster) -> int:
        theirs = cluster.file.split("/")[:-1]
        n = 0
        while n < min(len(parts), len(theirs)) and parts[n] == theirs[n]:
            n += 1
        return n
    return max(clusters, key=shared)  # the first of equals


def _under(file: str, folder: str) -> bool:
    return not folder or file.startswith(folder + "/")


def duplicate(kind: str, item: Any, first: str, contested: bool = False
              ) -> tuple[str, tuple[Document, tuple]]:
    """The PL121 message about a second description of a cluster, and where it is."""
    profile = item.profile if isinstance(item, Snapshot) else item
    what = "a snapshot of cluster" if kind == "snapshot" else "the Kafka resource"
    where = f" (namespace {profile.namespace})" if profile.namespace else ""
    when = f" captured at {_captured(item)!r}" if kind == "snapshot" else ""
    at = (item.doc, ("cluster",)) if kind == "snapshot" else (item.doc, ("metadata", "name"))
    use = ("the two differ, so its topics are judged against neither (which one each is "
           "written for is not known): keep one, or give each its own directory"
           if contested else "policylint uses the first description and ignores this one")
    return f"{what} {profile.name}{where}{when} is also described in {first}; {use}", at
