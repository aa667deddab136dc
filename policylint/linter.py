"""``lint()``: the library entry point behind ``policylint lint``."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

from . import policy as policies
from .engine import Context, Result, Unchecked, run, selected_rules
from .registry import check_selectors
from .sources import DEFAULT_MAX_FILE_SIZE, start_of
from .sources.loader import place_base, read_inputs
from .sources.yamldoc import MAX_NODES, max_nodes


def lint(paths: list[str], *, cluster: str | list[str] | None = None,
         current: str | None = None, policy: str | None = None,
         select: list[str] | None = None, ignore: list[str] | None = None,
         allow_rf_change: bool = False, max_file_size: int = DEFAULT_MAX_FILE_SIZE,
         base: str | None = None, today: dt.date | None = None,
         keep: list | None = None, stdin_name: str | None = None,
         baseline: str | None = None, exclude: list[str] | None = None,
         force_exclude: bool = False, respect_gitignore: bool = True,
         kafka_version: str | None = None, max_yaml_values: int | None = None,
         judged: set[str] | None = None, policy_from: str = "base",
         joining: dict[int, str | None] | None = None) -> Result:
    """Lint files and directories, each topic and plan against its own cluster (``cluster``:
    the ``--cluster`` files); with ``base`` (a git ref) also compare topic manifests with
    the same topics at that ref. ``keep``: a list the run's model is appended to, for a
    caller that ends its process without freeing it object by object (half a second for a
    million-entry plan). ``stdin_name``: how standard input (a path ``-``) is shown;
    ``baseline``: a baseline file (else the policy's; "": none), whose findings are left
    out; ``exclude``: patterns directory walks leave out, besides the policy's and what git
    ignores (``force_exclude``: named files too; ``respect_gitignore=False``: what git
    ignores is walked); ``kafka_version``: the release of clusters that do not say their
    own, over the policy's; ``max_yaml_values``: the most values a YAML file may hold
    (each is kept to locate findings), else 2,000,000; ``judged``: the files (as shown)
    whose contents are judged, the others read as their surroundings only (the clusters an
    editor's file is placed among); None: all. With ``base``, the policy, what it extends
    and its baseline are read at that ref (``policy_from``: "head" for the working tree's,
    or another git ref),
    and what the working tree changes of them is reported (PL125, ``policylint.gate``).
    ``joining``: brokers (id -> rack) that join the cluster the run's plans are checked
    against, as ``plan --add`` brings them in. Raises
    InputError, BaselineError, PolicyError or RegistryError for
    problems with the call itself (exit 2)."""
    start = start_of(paths)
    ref = base if policy_from == "base" else None if policy_from == "head" else policy_from
    tree = policies.GitTree(ref, start) if ref is not None else None
    chosen = policies.load(policy, start, tree)
    if kafka_version is not None:
        chosen.kafka_version = kafka_version
    check_selectors((select or []) + (ignore or []), chosen.custom_rules)
    rules = selected_rules(chosen, select, ignore)
    clusters = [cluster] if isinstance(cluster, str) else list(cluster or [])
    bound = max_nodes.set(max_yaml_values or MAX_NODES)
    at_base: list[tuple[str, bytes]] = []
    try:
        inputs = read_inputs(paths, clusters, current, max_file_size, chosen.clusters,
                             stdin_name, chosen.exclude + list(exclude or []), force_exclude,
                             respect_gitignore)
        if base is not None:
            from .sources import base_manifests
            from .sources.git import files_at
            at_base = files_at(base, paths)
            place_base(inputs, base_manifests(at_base, max_file_size))
    finally:
        max_nodes.reset(bound)
    if joining:
        _join(inputs.groups, joining)
    baseline = chosen.baseline if baseline is None else baseline
    if tree is not None:
        inputs.findings += _gate(chosen, tree, policy, start, baseline, at_base, inputs.files,
                                 _declared_pairs(inputs.groups) if base is not None else ())
    unchecked = Unchecked()
    placed: list[tuple] = []
    for plan in inputs.unplaced:  # PL123: plans checked without their cluster
        unchecked.add("PL123", plan.where(), None, "its cluster (--cluster, or the policy's "
                      "clusters: paths)", n=len(plan.moves))
    runs = []
    for group in inputs.groups:
        cluster_ = group.cluster
        ctx = Context(policy=chosen, profile=cluster_.profile if cluster_ else None,
                      snapshot=cluster_.snapshot if cluster_ else None,
                      current=inputs.current, manifests=group.manifests, plans=group.plans,
                      allow_rf_change=allow_rf_change, unchecked=unchecked,
                      changes=group.changes)
        if base is not None:
            ctx.base, ctx.base_ref = group.base, base
        if group.label is not None:  # PL118, PL121: checked without their cluster
            for spec in group.manifests:
                unchecked.add(group.unplaced_by, spec.where("name"), spec.name,
                              f"its cluster {group.label} among the inputs")
        targets = group.targets()
        if judged is not None:
            targets = {kind: [t for t in items if t.doc is None or t.doc.source.name in judged]
                       for kind, items in targets.items()}
        runs.append((ctx, targets))
        placed += [(spec, group, ctx) for spec in group.manifests]
    if keep is not None:
        keep.append(runs)
    result = run(runs, rules, chosen, inputs.findings, len(inputs.files), today,
                 inputs.skipped, unchecked)
    result.read, result.placed = inputs.files, placed
    result.policy = chosen.source + (f" at {ref}" if tree is not None else "")
    if tree is not None and tree.outside:  # out of the change's reach: judges as it is
        result.policy += (f"; read from disk, outside the git work tree: "
                          f"{', '.join(tree.outside)}")
    if judged is not None:  # what cross-file rules said of the surroundings is not asked
        result.findings = [f for f in result.findings if f.file in judged]
    if baseline:
        from .baseline import apply, load
        from .reporters import repo_relative
        result.findings, baselined, fixed = apply(result.findings, load(baseline, tree),
                                                  repo_relative)
        result.baseline = {"baselined": baselined, "fixed": fixed}
    return result


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


def _gate(chosen, tree, policy: str | None, start, baseline: str | None,
          at_base: list[tuple[str, bytes]], names: list[str], declared) -> list:
    """PL125: what the working tree changes of the policy, baseline, suppressions and
    suppressing annotations (``declared``: (base or None, head) manifests) that the base
    ``tree`` judges it by."""
    from . import gate
    from .baseline import BaselineError, load as load_baseline
    found = policies.discover(start) if policy is None else Path(policy)
    name = policies.display_name(found) if found else "the policy"
    try:
        head = policies.load(policy, start)
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
                load_baseline(baseline, tree) if baseline else set(),
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
