"""Everything one lint run reads: the linted files, the clusters and the ``--current``
baseline, grouped by cluster. This is the one place that decides how they are read."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable
from itertools import compress, count, repeat
from operator import is_, not_
from pathlib import Path
from typing import NamedTuple

from msgspec import structs

from . import (DEFAULT_MAX_FILE_SIZE, InputError, Inputs, Parsed, context_documents,
               display_name, formats, kind_of, load, parse_context, parse_files, snapshot,
               source_finding, strimzi, walk)
from .clusters import Cluster, Group, Placement, describe, duplicate
from .current import current_assignment
from .document import Document
from .formats import Fields
from ..model import ClusterProfile, Snapshot, TopicSpec


def read_inputs(paths: list[str], clusters: list[str] = (), current: str | None = None,
                max_size: int = DEFAULT_MAX_FILE_SIZE,
                placement: dict[str, list[str]] | None = None,
                stdin_name: str | None = None, exclude: list[str] = (),
                force_exclude: bool = False, respect_gitignore: bool = True) -> Inputs:
    """The model of a run's files, grouped by cluster (``Inputs.groups``), with the
    baseline. ``clusters``: the ``--cluster`` files; ``placement``: the policy's cluster
    path globs; ``exclude``, ``force_exclude``, ``respect_gitignore``: what walks leave out
    (``walk``).
    InputError for problems with the call itself (a missing path, a broken context
    file)."""
    files = list(walk(paths, stdin_name, exclude, force_exclude, respect_gitignore))
    given = {os.path.realpath(c) for c in clusters}
    walked = {os.path.realpath(path) for path, _, _ in files} if clusters else set()
    context = [Path(c) for c in clusters if os.path.realpath(c) not in walked]
    parsed = parse_files(files, max_size)
    for (path, _, _), (name, _, docs) in zip(files, parsed):  # --cluster files linted too
        if given and os.path.realpath(path) in given:
            _check_cluster_file(name, [] if isinstance(docs, Exception) else
                                [(kind_of(d), d) for d in docs])
    inputs = load(parsed)
    found = [(str(c), context_documents(str(c), parse_context(str(c), max_size)))
             for c in context]
    run_clusters, profiles = _clusters(inputs, found, {display_name(Path(c)) for c in clusters})
    inputs.placement = Placement(run_clusters, placement or {})
    inputs.groups = _grouped(inputs, profiles, run_clusters, inputs.placement)
    if current is not None:
        inputs.current = {**(inputs.current or {}), **current_assignment(current, max_size)}
    return inputs


def _clusters(inputs: Inputs, found: list[tuple[str, list]], given: set[str]
              ) -> tuple[list[Cluster], list[ClusterProfile]]:
    """The run's clusters, from the linted files and the ``--cluster`` files (``found``:
    their recognised documents), and the profiles of the linted cluster resources; PL119
    and PL121 findings about the linted ones."""
    for name, kinds in found:
        _check_cluster_file(name, kinds)
    context = [(kind, doc) for _, kinds in found for kind, doc in kinds]
    pools = inputs.related["nodepool"] + [doc for kind, doc in context
                                          if formats.role(kind) == "nodepool"]
    related = {**inputs.related, "nodepool": pools}
    profiles = [p for kind, doc, fields in inputs.kafkas
                for p in _profile(kind, doc, fields, related)]
    described = [(s, s.doc.source.name, s.doc.source.name in given, True)
                 for s in inputs.snapshots]
    described += [(p, p.doc.source.name, p.doc.source.name in given, True) for p in profiles]
    for kind, doc in context:
        role = formats.role(kind)
        if role == "snapshot":
            described += [(s, doc.source.name, True, False) for s in _snapshots(kind, doc)]
        elif role == "cluster":
            described += [(p, doc.source.name, True, False)
                          for p in _profile(kind, doc, Fields(doc), related)]
    clusters, duplicates = describe(described)
    contested = {c.file for c in clusters if c.contested}
    for kind, item, first in duplicates:
        message, at = duplicate(kind, item, first, first in contested)
        inputs.findings.append(source_finding("PL121", message, item.doc.source.name, at=at))
    for kind, doc, _ in inputs.kafkas:
        if kind == "strimzi-kafka" and strimzi.uses_node_pools(doc) and \
                not strimzi.has_broker_pools(doc, pools):
            inputs.findings.append(source_finding(
                "PL119", f"Kafka {doc.data['metadata']['name']} uses node pools and no "
                "KafkaNodePool with the broker role is labelled for it among the inputs: its "
                "broker count is unknown (Strimzi ignores spec.kafka.replicas then), so rules "
                "that need it are unchecked for its topics; lint its node pools with it",
                doc.source.name, at=(doc, ("metadata", "name"))))
    return clusters, profiles


def _check_cluster_file(name: str, kinds: list[tuple[str | None, Document]]) -> None:
    """InputError naming what a --cluster file is, when it describes no cluster."""
    roles = [formats.role(kind) for kind, _ in kinds]
    if "snapshot" in roles or "cluster" in roles:
        return
    what = sorted({formats.role(kind) or "unrecognised" for kind, _ in kinds})
    said = {"topics": "topic declarations", "plan": "a reassignment plan",
            "unrecognised": "no document policylint reads"}
    found = ", ".join(said.get(w, f"a {w} document") for w in what) or "nothing"
    raise InputError(f"--cluster {name}: holds {found}, not a cluster: give a "
                     "ClusterSnapshot, a cluster profile or a Kafka cluster resource")


def _profile(kind: str, doc: Document, fields: Fields, related: dict) -> list[ClusterProfile]:
    """A cluster resource's profile (none when what it needs broke its schema)."""
    try:
        profile = formats.format_of(kind).profile(doc, fields, related)
    except formats.REFUSED:
        return []
    named = isinstance(profile.name, str) and profile.name and \
        isinstance(profile.namespace, (str, type(None)))
    return [profile] if named else []  # a cluster is known by its name


def _snapshots(kind: str, doc: Document) -> list[Snapshot]:
    if kind == "snapshot":
        return [snapshot.snapshot(doc)]
    return formats.format_of(kind).snapshots(doc)


def _grouped(inputs: Inputs, profiles: list[ClusterProfile], clusters: list[Cluster],
             placement: Placement) -> list[Group]:
    groups: dict[object, Group] = {id(c): Group(c) for c in clusters}

    def group(cluster: Cluster | None, label: str | None = None,
              scope: tuple | None = None) -> Group:
        key = id(cluster) if cluster is not None else ("label", label, scope)
        if key not in groups:
            groups[key] = Group(cluster, label, scope)
        return groups[key]

    for spec in inputs.manifests:
        cluster, unknown, scope = placement.of_manifest(spec)
        if cluster is not None and cluster.contested:  # which of its two? neither
            contested = group(None, f"{cluster.name} (described twice)", ("contested",))
            contested.unplaced_by = "PL121"
            contested.manifests.append(spec)
            continue
        group(cluster, unknown, scope).manifests.append(spec)
    inputs.findings += _unknown_clusters(groups.values(), placement)
    for plan in inputs.plans:
        cluster = placement.of_file(plan.doc.source.name)
        if cluster is None and clusters:
            inputs.findings.append(source_finding(
                "PL123", f"which cluster is this plan for? The inputs describe "
                f"{len(clusters)} ({placement.names(files=True)}) and none is its own, so the "
                f"rules that need its cluster skip its {len(plan.moves)} entries: give it with "
                "--cluster FILE, or map the plan's path to a cluster under clusters: in the "
                "policy", plan.doc.source.name, at=plan.where()))
            inputs.unplaced.append(plan)
        group(cluster).plans.append(plan)
    for change in inputs.changes:
        group(*placement.of_manifest(change.after or change.before)).changes.append(change)
    for snap in inputs.snapshots:
        group(_own(clusters, snap.profile)).snapshots.append(snap)
    for profile in profiles:
        group(_own(clusters, profile)).profiles.append(profile)
    return list(groups.values())


class Spliced(NamedTuple):
    """Where ``replaced`` put one file's topics: for each list of topics it made (the run's,
    key -1, and each group's, by index), that list, the position of the file's topics in it
    (None: unknown, the file has none there) and those topics. The next edit of the file
    takes them out and puts its own back there without a pass over the list. ``before``:
    the file's topics it took out of each group."""
    name: str
    lists: dict[int, tuple[list, int | None, list]]
    before: dict[int, list[TopicSpec]]

    def renamed(self) -> dict[int, tuple[set[str], set[str]]]:
        """By a group's index, the topic names the file gave it before, and gives now."""
        return {j: ({s.name for s in self.before[j]}, {s.name for s in mine})
                for j, (_, _, mine) in self.lists.items() if j >= 0}

    def by_group(self) -> dict[int, list[TopicSpec]]:
        """The file's topics in each group, by the group's index."""
        return {j: mine for j, (_, _, mine) in self.lists.items() if j >= 0}


def replaced(inputs: Inputs, parsed: Parsed, last: Spliced | None = None
             ) -> tuple[Inputs, Spliced] | None:
    """``inputs`` with one file read again (``parsed``: its documents now), when what it
    holds, before and after, is topic declarations alone (or text that does not parse,
    being typed), each placed on a cluster or a cluster's name among the inputs, of a topic
    no plan checked against that cluster moves (what no other file's model depends on: a
    plan's entries read their topics' declarations); None otherwise: read them all again.
    The editor's per-edit path: the other files' models are kept as they are. ``last``:
    what the last edit of a file returned, the way its topics are found again."""
    name, _, docs = parsed
    if name not in inputs.files or any(name == n for n, _ in inputs.skipped) or \
            posixpath.basename(name).startswith("kustomization") or name in _holders(inputs):
        return None
    # a file that does not parse (being typed) holds no topics, and its PL100
    if not isinstance(docs, Exception) and \
            any(formats.role(kind_of(doc)) != "topics" for doc in docs):
        return None
    alone = load([parsed], inputs.related)
    if alone.changes or alone.files != [name]:
        return None
    known = last.lists if last is not None and last.name == name else {}
    # the located subjects of the PL118 findings' topics (an unchanged file's are not
    # located again), by group, in the order of its topics
    located = {id(g): f.subjects for g, f in zip(_unplaced(inputs.groups), (
        f for f in inputs.findings if f.rule == "PL118")) if f.subjects}
    groups, subjects, back, before = [], {}, {}, {}
    for j, group in enumerate(inputs.groups):
        kept, cut, back[j], gone = _without(group.manifests, name, known.get(j))
        before[j] = gone
        if gone and (group.unplaced_by == "PL121" or _moved(group, gone)):
            return None  # a cluster described twice (PL121); a topic a plan moves
        groups.append(structs.replace(group, manifests=kept))
        if id(group) in located:
            subjects[id(groups[-1])] = cut(located[id(group)])
    joining: dict[int, list[TopicSpec]] = {}  # index of a group -> the file's topics
    for spec in alone.manifests:
        cluster, unknown, scope = inputs.placement.of_manifest(spec)
        at = next((i for i, g in enumerate(groups) if g.label == unknown and (
            g.cluster is cluster if cluster is not None else
            g.cluster is None and g.scope == scope)), None)
        if at is None or _moved(groups[at], [spec]) or \
                cluster is not None and cluster.contested:
            return None  # a group of its own: a whole read makes it (and its PL118)
        joining.setdefault(at, []).append(spec)
    lists = {j: (g.manifests, None, []) for j, g in enumerate(groups)}
    for j, specs in joining.items():
        i = _insert(groups[j].manifests, specs, inputs.files, name, back[j])
        lists[j] = groups[j].manifests, i, specs
        if id(groups[j]) in subjects:  # theirs located when the finding is made
            subjects[id(groups[j])][i:i] = [None] * len(specs)
    # a cluster none of the inputs describe: one finding for all its topics, at the first
    unknown = _unknown_clusters(groups, inputs.placement, subjects)
    manifests, _, at, _ = _without(inputs.manifests, name, known.get(-1))
    lists[-1] = manifests, _insert(manifests, alone.manifests, inputs.files, name, at), \
        alone.manifests
    spliced = Spliced(name, lists, before)
    return structs.replace(
        inputs, groups=groups, manifests=manifests,
        findings=[f for f in inputs.findings if f.file != name and f.rule != "PL118"]
        + unknown + alone.findings), spliced


#: the roles of documents that only describe a cluster: no other file's model reads them
#: before every file is read (a ConfigMap's values, a module's call are read into topics)
_DESCRIBING = frozenset({"cluster", "nodepool", "snapshot"})
#: the findings made once the run's clusters are known (``_clusters``, ``_grouped``)
_OF_THE_CLUSTERS = frozenset({"PL118", "PL119", "PL121", "PL123"})


def redescribed(inputs: Inputs, parsed: Parsed, placement: dict[str, list[str]] | None
                ) -> Inputs | None:
    """``inputs`` with one file that describes clusters alone (Kafka resources, node
    pools, snapshots; or text that does not parse, being typed), before and after, read
    again (``parsed``): every other file's topics and plans kept as they are, the clusters
    and their groups made again, as a whole read makes them. ``placement``: the policy's
    cluster path globs. None otherwise: read them all again. The editor's path for an edit
    of a cluster file, whose every topic is judged again but no other file read."""
    name, _, docs = parsed
    if name not in inputs.files or posixpath.basename(name).startswith("kustomization") or \
            inputs.current is not None or name in _declaring(inputs):
        return None  # (a current assignment is kept whole: its file is not known)
    if not isinstance(docs, Exception) and \
            any(formats.role(kind_of(doc)) not in _DESCRIBING for doc in docs):
        return None
    alone = load([parsed])
    if alone.files != [name] or alone.skipped:
        return None

    def swap(kept: list, new: list, file_of: Callable) -> list:
        """The others' items of ``kept``, with ``new`` where a whole read puts them."""
        others = [item for item in kept if file_of(item) != name]
        at = _after(others, inputs.files, name, file_of)
        return others[:at] + new + others[at:]

    again = structs.replace(
        inputs, unplaced=[], groups=[],
        findings=swap([f for f in inputs.findings if f.rule not in _OF_THE_CLUSTERS],
                      alone.findings, lambda f: f.file),
        kafkas=swap(inputs.kafkas, alone.kafkas, lambda k: k[1].source.name),
        snapshots=swap(inputs.snapshots, alone.snapshots, lambda s: s.doc.source.name),
        related={**inputs.related, "nodepool": swap(
            inputs.related["nodepool"], alone.related["nodepool"], lambda d: d.source.name)})
    clusters, profiles = _clusters(again, [], set())
    again.placement = Placement(clusters, placement or {})
    again.groups = _grouped(again, profiles, clusters, again.placement)
    return again


def _declaring(inputs: Inputs) -> set[str]:
    """The files whose documents other files' models read or depend on: topics, plans,
    ConfigMaps, module calls."""
    return {s.doc.source.name for s in inputs.manifests if s.doc is not None} | \
        {p.doc.source.name for p in inputs.plans} | \
        {d.source.name for role, docs in inputs.related.items() if role not in _DESCRIBING
         for d in docs} | \
        {(c.after or c.before).doc.source.name for c in inputs.changes}


def _without(specs: list[TopicSpec], name: str, last: tuple | None
             ) -> tuple[list[TopicSpec], Callable[[list], list], int | None, list[TopicSpec]]:
    """``specs`` without the file ``name``'s topics (a new list); how to cut a list aligned
    with ``specs`` alike; where the file's topics go back, when known; and those topics.
    ``last``: the file's entry in the ``Spliced`` of its last edit: when ``specs`` is the
    list it made, the file's topics are where it put them, and nowhere else."""
    if last is not None and last[0] is specs:
        _, at, mine = last
        if at is None:  # none of the file's here
            return list(specs), list, None, []
        end = at + len(mine)
        if len(specs[at:end]) == len(mine) and all(map(is_, specs[at:end], mine)):
            return specs[:at] + specs[end:], lambda aligned: aligned[:at] + aligned[end:], \
                at, mine
    keep = [s.doc is None or s.doc.source.name != name for s in specs]
    return list(compress(specs, keep)), lambda aligned: list(compress(aligned, keep)), None, \
        list(compress(specs, map(not_, keep)))


def _moved(group: Group, specs: list[TopicSpec]) -> bool:
    """Whether a plan checked against the group moves a topic of ``specs`` (its entries
    read their topics' declarations)."""
    return any(spec.name in plan.topics for plan in group.plans for spec in specs)


def _unplaced(groups: Iterable[Group]) -> list[Group]:
    """The groups of the topics that name a cluster none of the inputs describe (PL118)."""
    return [g for g in groups if g.label is not None and g.unplaced_by == "PL118"
            and g.manifests]


def _unknown_clusters(groups: Iterable[Group], placement: Placement,
                      located: dict[int, list] | None = None) -> list:
    """PL118: for each cluster that topics name and none of the inputs describe, one
    finding (one cause) at the first of them. ``located``: by a group's ``id``, its topics'
    subjects, in their order, None where not located yet (an edit's: ``replaced``)."""
    located = located or {}
    found = []
    for group in _unplaced(groups):
        specs = group.manifests
        names, n = [spec.name for spec in specs[:5]], len(specs)
        shown = ", ".join(names) + (f" and {n - 5} more" if n > 5 else "")
        they = f"topic {names[0]} names" if n == 1 else f"{n} topics ({shown}) name"
        finding = source_finding(
            "PL118", f"{they} cluster {group.label}, which is none of the clusters among the "
            f"inputs ({placement.names()}): rules that need its cluster skip "
            f"{'it' if n == 1 else 'them'}; lint with that cluster's Kafka resource "
            "or snapshot", specs[0].doc.source.name, at=specs[0].where("cluster"))
        finding.topic = names[0] if n == 1 else None
        if n > 1:
            subjects = located.get(id(group)) or [None] * n
            for i in list(compress(count(), map(is_, subjects, repeat(None)))):  # C speed
                subjects[i] = _subject(specs[i], specs[i].where("cluster"))
            finding.subjects = subjects
        found.append(finding)
    return found


def _insert(specs: list[TopicSpec], new: list[TopicSpec], files: list[str], name: str,
            at: int | None = None) -> int:
    """``new`` (the file ``name``'s) into ``specs`` where a whole read puts them: in the
    order ``files`` are walked (``at``: that place, known). Where they went."""
    if at is None:
        at = _after(specs, files, name, lambda s: s.doc.source.name if s.doc else None)
    specs[at:at] = new
    return at


def _after(items: list, files: list[str], name: str, file_of: Callable) -> int:
    """Where a whole read puts the file ``name``'s items among the other files' ``items``:
    before the first of a file walked after it (``files``, in the order they are walked)."""
    order = {file: i for i, file in enumerate(files)}
    mine, get = order[name], order.get
    return next((i for i, item in enumerate(items) if get(file_of(item), -1) > mine),
                len(items))


def _holders(inputs: Inputs) -> set[str]:
    """The files whose documents are more than topic declarations (clusters, plans,
    snapshots, documents other files refer to)."""
    return {d.source.name for d in (*(k[1] for k in inputs.kafkas),
                                    *(p.doc for p in inputs.plans),
                                    *(s.doc for s in inputs.snapshots),
                                    *(d for docs in inputs.related.values() for d in docs))
            if d is not None} | {c.after.doc.source.name if c.after else
                                 c.before.doc.source.name for c in inputs.changes}


def place_base(inputs: Inputs, specs: list[TopicSpec]) -> None:
    """Diff mode: each manifest at the base ref joins the group of its cluster, placed as
    the manifests of the working tree are."""
    for spec in specs:
        where = inputs.placement.of_manifest(spec)
        same = next((g for g in inputs.groups if (g.cluster, g.label, g.scope) == where), None)
        if same is None:  # (clusters compare by identity)
            same = Group(*where)
            inputs.groups.append(same)
        same.base.append(spec)


def _own(clusters: list[Cluster], profile: ClusterProfile) -> Cluster | None:
    return next((c for c in clusters if c.name == profile.name
                 and c.namespace == profile.namespace), None)


def _subject(spec: TopicSpec, at: tuple) -> dict:
    """One of the topics a finding stands for, located."""
    line, column = at[0].locate(at[1]) or (None, None)
    return {"topic": spec.name, "file": spec.doc.source.name, "line": line, "column": column}
