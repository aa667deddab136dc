"""``lint()``, the library entry point behind ``policylint lint``: ``load`` what a run
reads, then ``judge`` it, both by one ``settings.Settings`` value."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from . import policy as policies
from .engine import Context, Result, Unchecked, Weighed, run, weigh
from .settings import Settings, resolve
from .sources import Inputs
from .sources.loader import place_base, read_inputs
from .sources.yamldoc import max_nodes


def lint(paths: list[str], *, keep: list | None = None, judged: set[str] | None = None,
         **options: Any) -> Result:
    """Lint files and directories, each topic and plan against its own cluster: ``load``
    then ``judge`` with the settings ``options`` resolve to (``settings.resolve``: the
    ``--cluster`` files, ``base`` for diff mode, the policy, ...). ``keep``, ``judged``: as
    ``judge`` takes them. Raises InputError, BaselineError, PolicyError or RegistryError for
    problems with the call itself (exit 2)."""
    chosen = resolve(paths, **options)
    return judge(load(paths, chosen), chosen, judged=judged, keep=keep)


def load(paths: list[str], settings: Settings) -> Inputs:
    """Everything a run over ``paths`` reads, as models grouped by cluster: the files, the
    clusters, with ``settings.base`` the manifests at that ref, the joining brokers, and
    what the change does to the policy that judges it (PL125). InputError or
    BaselineError for problems with the call itself."""
    bound = max_nodes.set(settings.max_yaml_values)
    at_base: list[tuple[str, bytes]] = []
    try:
        inputs = read_inputs(paths, list(settings.clusters), settings.current,
                             settings.max_file_size, settings.policy.clusters,
                             settings.stdin_name, list(settings.exclude),
                             settings.force_exclude, settings.respect_gitignore)
        if settings.base is not None:
            from .sources import base_manifests
            from .sources.git import files_at
            at_base = files_at(settings.base, paths)
            place_base(inputs, base_manifests(at_base, settings.max_file_size))
    finally:
        max_nodes.reset(bound)
    if settings.joining:
        _join(inputs.groups, dict(settings.joining))
    if settings.tree is not None:
        inputs.findings += _gate(settings, at_base, inputs.files, _declared_pairs(
            inputs.groups) if settings.base is not None else ())
    return inputs


#: the findings of a file's reading that say nothing but of that file: its syntax, its
#: schema
_OF_ITS_OWN = frozenset({"PL100", "PL101"})


def judge(inputs: Inputs, settings: Settings, judged: set[str] | None = None,
          keep: list | None = None, elsewhere: Weighed | None = None,
          topics: dict[int, list] | None = None) -> Result:
    """The rules of ``settings`` over what ``load`` read, each group against its cluster,
    less what the baseline records. ``judged``: the files (as shown) whose contents are
    judged, the others read as their surroundings only (the clusters an editor's file is
    placed among), with what the others' subjects weigh in the rules that weigh them
    (``elsewhere``: ``weighed``, else taken as none); None: all. ``keep``: a list the run's
    model is appended to, for a caller that ends its process without freeing it object by
    object (half a second for a million-entry plan). ``topics``: the judged files' topics
    in each group (by index), when the caller knows them (an edit's ``loader.Spliced``): no
    pass over every topic picks them out."""
    unchecked = Unchecked()
    for plan in inputs.unplaced:  # PL123: plans checked without their cluster
        unchecked.add("PL123", plan.where(), None, "its cluster (--cluster, or the policy's "
                      "clusters: paths)", n=len(plan.moves))
    runs, groups = _runs(inputs, settings, unchecked, judged, topics=topics)
    if keep is not None:
        keep.append(runs)
    # another file's finding of its syntax or schema is none of the judged files': not
    # ranked again (PL118's, which one file's topics may join or leave, are)
    read = inputs.findings if judged is None else [
        f for f in inputs.findings if f.file is None or f.file in judged
        or f.rule not in _OF_ITS_OWN]
    result = run(runs, list(settings.rules), settings.policy, read,
                 len(inputs.files), settings.today, inputs.skipped, unchecked, elsewhere)
    result.read, result.groups, result.policy = inputs.files, groups, settings.described
    if judged is not None:  # what cross-file rules said of the surroundings: kept apart
        result.elsewhere = [f for f in result.findings if f.file not in judged]
        result.findings = [f for f in result.findings if f.file in judged]
    if settings.baseline:
        from .baseline import apply, load as load_baseline
        from .reporters import repo_relative
        result.findings, baselined, fixed = apply(
            result.findings, load_baseline(settings.baseline, settings.tree), repo_relative)
        result.baseline = {"baselined": baselined, "fixed": fixed}
    return result


def weighed(inputs: Inputs, settings: Settings, besides: set[str]) -> Weighed:
    """What the subjects of every file but ``besides`` weigh in the rules that weigh
    others (``engine.weigh``): what ``judge`` of ``besides`` alone is given."""
    runs, _ = _runs(inputs, settings, None, besides, False)
    return weigh(runs, list(settings.rules), settings.policy, settings.today)


def alike_names(inputs: Inputs, settings: Settings, name: str
                ) -> list[tuple[Callable, list[dict[str, set[str]]]]]:
    """For each rule whose findings compare the names of a cluster's topics
    (``Reads.names_alike``: ``orders.v1`` beside ``orders_v1``), its key, and for each group
    (by index) the topic names of every file but ``name`` by that key: what
    ``renamed_alike`` compares that file's names with, while the others are unchanged."""
    found = []
    for key in {r.reads.names_alike for r in settings.rules if r.reads.names_alike}:
        groups = []
        for group in inputs.groups:
            by_key: dict[str, set[str]] = {}
            for spec in group.manifests:
                if spec.doc is not None and spec.doc.source.name != name:
                    by_key.setdefault(key(spec.name), set()).add(spec.name)
            groups.append(by_key)
        found.append((key, groups))
    return found


def renamed_alike(alike: list[tuple[Callable, list[dict[str, set[str]]]]],
                  renamed: dict[int, tuple[set[str], set[str]]]) -> bool:
    """Whether a topic name a file gave or gives a group (``renamed``: by its index, the
    names before and after), not both, is alike another file's topic's other name there
    (``alike``: ``alike_names``): that file's findings may change."""
    return any(groups[j].get(key(n), set()) - {n} for key, groups in alike
               for j, (gave, gives) in renamed.items() for n in gave ^ gives)


def _runs(inputs: Inputs, settings: Settings, unchecked: Unchecked | None,
          files: set[str] | None = None, of_them: bool = True,
          topics: dict[int, list] | None = None) -> tuple[list[tuple], list[tuple]]:
    """(context, targets) of each group, the targets of the ``files`` (None: all; ``of_them``
    False: of the other files; ``topics``: their topics by group, known), what they leave
    unchecked counted in ``unchecked`` (None: not asked); and (group, context) of every
    group."""
    runs, groups = [], []
    shared = Unchecked() if unchecked is None else unchecked  # each context holds one
    for j, group in enumerate(inputs.groups):
        cluster_ = group.cluster
        ctx = Context(policy=settings.policy, profile=cluster_.profile if cluster_ else None,
                      snapshot=cluster_.snapshot if cluster_ else None,
                      current=inputs.current, manifests=group.manifests, plans=group.plans,
                      allow_rf_change=settings.allow_rf_change, unchecked=shared,
                      changes=group.changes)
        if settings.base is not None:
            ctx.base, ctx.base_ref = group.base, settings.base
        targets = group.targets()
        if files is not None:
            targets = {kind: topics[j] if topics is not None and kind == "manifest" else
                       [t for t in items if t.doc is None or (t.doc.source.name in files)
                        is of_them] for kind, items in targets.items()}
            ctx.judged = targets["manifest"]
        if group.label is not None and unchecked is not None:  # PL118, PL121: checked
            for spec in targets["manifest"]:  # without their cluster
                unchecked.add(group.unplaced_by, spec.where("name"), spec.name,
                              f"its cluster {group.label} among the inputs")
        runs.append((ctx, targets))
        groups.append((group, ctx))
    return runs, groups


def _join(groups, joining: dict[int, str | None]) -> None:
    """The brokers that join, added to the one cluster the run's plans are checked against
    (InputError where that is not one cluster that lists its brokers)."""
    from .sources import InputError
    clusters = list({id(g.cluster): g.cluster for g in groups
                     if g.plans and g.cluster is not None}.values())
    if len(clusters) != 1:
        raise InputError("--add: " + ("no plan among the inputs is placed on a cluster: give "
                                      "it with --cluster FILE" if not clusters else
                                      f"the run's plans are for {len(clusters)} clusters (" +
                                      ", ".join(c.name for c in clusters) +
                                      "): lint each with its own --cluster and --add"))
    profile = clusters[0].profile
    if profile.brokers is None:
        raise InputError(f"--add: cluster {profile.name} does not list its brokers (a "
                         "Strimzi Kafka with node pools): check the plan against a snapshot "
                         "of it (policylint snapshot)")
    brokers = dict(profile.brokers)
    for broker, rack in joining.items():
        brokers[broker] = rack if rack is not None else brokers.get(broker)
    profile.brokers, profile.broker_count = brokers, len(brokers)


def _declared_pairs(groups) -> list[tuple]:
    """(the same topic's manifest at the base or None, manifest) of each manifest."""
    pairs = []
    for group in groups:
        base = {}
        for spec in group.base:
            base.setdefault(spec.name, spec)
        pairs += [(base.get(spec.name), spec) for spec in group.manifests]
    return pairs


def _gate(settings: Settings, at_base: list[tuple[str, bytes]], names: list[str],
          declared) -> list:
    """PL125: what the working tree changes of the policy, baseline, suppressions and
    suppressing annotations (``declared``: (base or None, head) manifests) that the policy
    read at the base (``settings.tree``) judges it by."""
    from . import gate
    from .baseline import BaselineError, load as load_baseline
    chosen, baseline = settings.policy, settings.baseline
    found = policies.discover(settings.start) if settings.policy_file is None else \
        Path(settings.policy_file)
    name = policies.display_name(found) if found else "the policy"
    try:
        head = policies.load(settings.policy_file, settings.start)
        changes = list(gate.policy_changes(chosen, head))
    except policies.PolicyError as exc:
        changes = [(f"the policy of this change does not load ({exc})", True, ())]
        head = chosen
    head_baseline = head.baseline if baseline == chosen.baseline else baseline
    if head_baseline and os.path.isfile(head_baseline):
        text = open(head_baseline, encoding="utf-8", errors="replace").read()
        try:
            changes += gate.baseline_changes(
                policies.display_name(Path(head_baseline)), text,
                load_baseline(baseline, settings.tree) if baseline else set(),
                load_baseline(head_baseline))
        except BaselineError as exc:
            changes.append((f"the baseline of this change does not load ({exc})", True, ()))
    base_texts = {file: data.decode("utf-8", "replace") for file, data in at_base}
    changes += gate.suppression_changes(base_texts, gate.read_texts(names))
    changes += gate.annotation_changes(declared)
    doc = policies.document(found) if found and found.is_file() else None
    return gate.findings(changes, doc, name)


def placed(spec, group, ctx: Context) -> str:
    """What one topic declaration is judged against, and where each part comes from."""
    from . import kafka_configs
    from .kafka_configs import span
    cluster = group.cluster
    if cluster is not None:
        against = f"cluster {cluster.name} ({cluster.file}" + \
            (f", scope {cluster.scope}/" if cluster.scope else "") + ")"
    elif group.label is not None:
        against = f"no cluster: {group.label} is none the inputs describe ({group.unplaced_by})"
    else:
        against = "no cluster among the inputs (give it with --cluster or its Kafka resource)"
    window = ctx.kafka_window(spec)
    version = ctx.profile.kafka_version if ctx.profile is not None else None
    release = f"Kafka {window[0]} (the cluster's {version})" if \
        kafka_configs.has_version(version) else \
        f"Kafka {window[0]} (--kafka-version or the policy)" if len(window) == 1 else \
        f"Kafka {span(window)} (no input says which)"
    origin = f" {spec.origin}" if spec.origin else ""
    return f"topic {spec.name}{origin} ({spec.doc.source.name}): {against}; {release}"
