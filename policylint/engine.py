"""Runs the selected rules over the model and applies the policy. No I/O."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from functools import lru_cache
from itertools import chain, compress, count, repeat
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from msgspec import Struct, field

from . import kafka_configs, platforms
from .kafka import (Stated, as_int, cluster_setting, effective_min_isr, manifest_min_isr,
                    manifest_rf, manifest_rf_stated, min_isr_is_default, smallest_rf,
                    mixed_topics, snapshot_topic_rf, unknown_fields)
from .model import (KEY, SEVERITY_RANK, Change, ClusterProfile, Finding, Fix, Plan, Ref,
                    Snapshot, TopicSpec)
from .policy import CompiledPolicy, Policy
from .registry import all_rules, matches
from .rule import Rule
from .schema import memo_key
from .suppressions import ANNOTATION, Suppressions
from .views import PlanView, ReplicaLists


class MinIsrSubject(Struct, frozen=True):
    """A snapshot topic the min ISR rules judge."""
    topic: str
    rf: int
    min_isr: int
    at: Ref
    #: the minISR is Kafka's built-in 1, nothing sets it: the cluster that does not ("" when
    #: the run has none for it); None when something sets it
    default: str | None = None
    #: the minISR is the cluster's broker default
    inherited: bool = False


class TopicConfig(NamedTuple):
    """One topic's config as written: ``key_at(key)`` and ``value_at(key)`` locate it."""
    topic: str
    config: dict[str, Any]
    doc: Any
    path: tuple
    moved: dict | None  # a manifest's ``config_paths``

    def key_at(self, key: str) -> Ref:
        if self.moved and key in self.moved:
            return (self.doc, self.moved[key][1])
        return (self.doc, self.path + (key, KEY))

    def value_at(self, key: str) -> Ref:
        if self.moved and key in self.moved:
            return (self.doc, self.moved[key][0])
        return (self.doc, self.path + (key,))


class ConfigEntry(NamedTuple):
    """One key of a topic's config, judged by its Kafka ``release``: ``status`` as
    ``kafka_configs.status`` says it, ``problem`` why Kafka refuses its value (or None).
    When no input says the cluster's release, it is judged on every release of the window
    (``kafka_configs.window``): ``release`` is the newest with that verdict, and ``only``
    is (the releases with it, those without) where they differ, else None."""
    config: TopicConfig
    key: str
    value: Any
    release: str
    status: str
    problem: str | None
    only: tuple[tuple[str, ...], tuple[str, ...]] | None = None


class Unchecked(Counter):
    """Rule code -> how many subjects it could not check; and which (``subjects``): each
    one's rule, where it is written, its topic, and the input that would let it be checked."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.subjects: list[tuple] = []

    def add(self, code: str, at: Any = None, topic: str | None = None,
            needs: str | None = None, n: int = 1) -> None:
        self[code] += n
        self.subjects.append((code, at, topic, needs))

    def located(self) -> list[dict]:
        """The subjects as the JSON output gives them, sorted."""
        found = []
        for code, at, topic, needs in self.subjects:
            where = at[0].locate(at[1]) if at is not None else None
            found.append({"rule": code, "file": at[0].source.name if at else None,
                          "line": where[0] if where else None, "topic": topic,
                          "needs": needs})
        return sorted(found, key=lambda s: (s["file"] or "", s["line"] or 0, s["rule"],
                                            s["topic"] or ""))


class Context(Struct):
    """What rules may know besides their target: the cluster, the baselines, the policy."""
    policy: Policy = field(default_factory=Policy)
    profile: ClusterProfile | None = None
    snapshot: Snapshot | None = None
    current: dict[tuple[str, int], list[int]] | None = None
    manifests: list[TopicSpec] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    allow_rf_change: bool = False
    base: list[TopicSpec] | None = None  # diff mode: the manifests at the base ref
    base_ref: str | None = None
    changes: list[Change] = field(default_factory=list)  # of change sets (Terraform plans)
    unchecked: Unchecked = field(default_factory=Unchecked)  # code -> subjects not checked
    #: Finding.cause -> how many subjects inherit that value, broken or not: a cause is one
    #: finding at its source only when every one of them breaks the rule
    inheritors: Counter = field(default_factory=Counter)
    #: the codes of the rules this run runs (None: all), where a rule judges for several
    #: (a CEL batch)
    running: frozenset | None = None
    #: what the run's questions below remember (``memo``, ``view``): the inputs above are
    #: the run's, everything made of them is kept here
    _views: dict[Any, dict] = field(default_factory=dict)

    def manifest(self, topic: str) -> TopicSpec | None:
        """The (first) linted manifest of a topic."""
        return self.view(_first_by_name, self.manifests).get(topic)

    def change_of(self, before: TopicSpec) -> Change | None:
        """The change set's change whose earlier side is ``before`` (None: not a change
        set's)."""
        return self.view(_by_before, self.changes).get(id(before))

    def base_manifest(self, topic: str) -> TopicSpec | None:
        """The (first) manifest of a topic at the base ref, in diff mode."""
        return self.view(_first_by_name, self.base).get(topic) if self.base else None

    def allows_rf_change(self, topic: str) -> bool:
        return self.allow_rf_change or self.policy.allows_rf_change(topic)

    def topic_config(self, topic: str) -> dict[str, Any]:
        """A topic's config: from the snapshot, else from its manifest."""
        if self.snapshot is not None and topic in self.snapshot.topics:
            return self.snapshot.topics[topic].config
        spec = self.manifest(topic)
        return spec.config if spec is not None else {}

    def min_isr(self, topic: str) -> int:
        return effective_min_isr(self.topic_config(topic), self.profile)

    def profile_for(self, target: Any) -> ClusterProfile | None:
        """The cluster a target is judged against: a snapshot its own, others the run's."""
        return target.profile if isinstance(target, Snapshot) else self.profile

    def kafka_version(self, target: Any) -> str | None:
        """The Kafka version an input states for a target's cluster, as written: its
        cluster's, else the one ``--kafka-version`` or the policy's ``kafka_version`` says;
        None when none does."""
        profile = self.profile_for(target)
        for version in (profile.kafka_version if profile is not None else None,
                        self.policy.kafka_version):
            if kafka_configs.has_version(version):
                return str(version)
        return None

    def kafka_window(self, target: Any) -> tuple[str, ...]:
        """The known Kafka releases a target is judged by: the one of its stated version
        (``kafka_version``), else every release of the policy's ``kafka_versions`` window
        (3.0 to the newest by default)."""
        profile = self.profile_for(target)  # the window is its cluster's: once per run
        made = self.memo(Context.kafka_window)  # id(profile) -> its window
        found = made.get(id(profile))
        if found is None:
            version = self.kafka_version(target)
            found = made[id(profile)] = (kafka_configs.resolve(version),) \
                if version is not None else kafka_configs.window(self.policy.kafka_versions)
        return found

    def kafka_release(self, target: Any) -> str:
        """The release a target's topic configs are judged by where one release is asked
        for: the cluster's, else the newest of its window."""
        return self.kafka_window(target)[-1]

    def topic_rf(self, snapshot: Snapshot, topic: Any) -> int | None:
        """A snapshot topic's replication factor as the cluster holds it
        (``kafka.snapshot_topic_rf``: the most common current RF of its partitions), once
        per topic: several rules ask for it. A manifest that declares another RF is drift
        between the declaration and the cluster (PL202 on the manifest), not the snapshot's
        to answer for."""
        made = self.memo(Context.topic_rf)  # id(topic) -> its RF
        if id(topic) not in made:
            made[id(topic)] = snapshot_topic_rf(topic, None)
        return made[id(topic)]

    def mixed_topics(self, snapshot: Snapshot) -> set[int]:
        """The snapshot's topics (by ``id``) whose partitions hold different replica
        counts (``kafka.mixed_topics``), once per run."""
        return self.view(_mixed_topics, snapshot)

    def topic_configs(self, target: Any) -> list[TopicConfig]:
        """The config of a manifest, or of each topic of a snapshot, with where it is
        (those that set something; built once per target)."""
        made = self.memo(Context.topic_configs)  # id(target) -> its configs
        found = made.get(id(target))
        if found is None:
            found = made[id(target)] = _topic_configs(target)
        return found

    def config_issues(self, target: Any) -> list[ConfigEntry]:
        """The config keys of a manifest, or of the topics of a snapshot, that a topic
        config rule may report: judged by the Kafka release of their cluster, those that
        are no topic config of it (unknown, broker-level, removed), deprecated, or with a
        value Kafka refuses. Keys with a vendor prefix that the policy
        (``configs.allow_prefixes``), the cluster (Confluent Server) or the topic's platform
        (Confluent Cloud) allows are left out. Built once per target, from a judgement
        made once per distinct config: a repository repeats the same few."""
        made = self.memo(Context.config_issues)  # id(target) -> its issues
        found = made.get(id(target))
        if found is None:
            configs = self.topic_configs(target)
            releases = self.kafka_window(target) if configs else ()
            profile = self.profile_for(target)
            prefixes = tuple(self.policy.config_prefixes) + \
                (profile.vendor_configs if profile is not None else ()) + \
                (target.vendor_configs + platforms.config_prefixes(
                    platforms.of(self.policy, target)) if isinstance(target, TopicSpec)
                 else ())
            found = made[id(target)] = [
                tuple.__new__(ConfigEntry, (config, *issue)) for config in configs
                for issue in _judged_config(releases, prefixes, config.config)]
        return found

    def by_metric_name(self, target: Any) -> dict[str, list[str]]:
        """Kafka's metric name of a topic (``.`` written ``_``) -> the topic names with it,
        sorted: of a snapshot's topics, or (any other target) of the run's manifests."""
        return self.view(_by_metric_name, target.topics if isinstance(target, Snapshot)
                          else self.manifests)

    def plan_view(self, plan: Plan) -> PlanView:
        """The plan's entries as columns, joined to the snapshot (built once per run)."""
        return self.view(PlanView, plan, self.snapshot)

    def replica_lists(self, target: Any, final: bool = False) -> ReplicaLists:
        """Every replica list of a plan, snapshot or manifest, judged once per distinct list
        (``.failing(verdict)``). ``final``: a snapshot's target replicas (replicas -
        removing) rather than its replicas."""
        return self.view(ReplicaLists, target, final and isinstance(target, Snapshot))

    def min_isr_subjects(self, snapshot: Snapshot, breaks: Callable[[int, int], Any]
                         ) -> Iterator[MinIsrSubject]:
        """The topics of a snapshot for which ``breaks(smallest current RF, effective
        minISR)`` holds, topic-level."""
        for topic, rf, min_isr in self._min_isr_topics(snapshot):
            if breaks(rf, min_isr):
                own = "min.insync.replicas" in topic.config
                at = topic.where("config", "min.insync.replicas") if own \
                    else topic.where("name")
                yield MinIsrSubject(topic.name, rf, min_isr, at,
                                    _default(topic.config, snapshot.profile),
                                    not own and as_int(snapshot.profile.config.get(
                                        "min.insync.replicas")) is not None)

    def _min_isr_topics(self, snapshot: Snapshot) -> list[tuple]:
        """(topic, smallest current RF, effective minISR) of each topic of a snapshot with
        a known RF, once per snapshot: three rules ask."""
        made = self.memo(Context._min_isr_topics)  # id(snapshot) -> its topics
        found = made.get(id(snapshot))
        if found is None:
            profile = snapshot.profile
            found = made[id(snapshot)] = [
                (t, rf, effective_min_isr(t.config, profile))
                for t in snapshot.topics.values() if (rf := smallest_rf(t)) is not None]
        return found

    def declared(self, spec: TopicSpec) -> tuple[Stated, Stated]:
        """A declaration's RF and effective minISR, with where each comes from, once per
        declaration: the min ISR rules (and PL209, PL203) ask for the same."""
        made = self.memo(Context.declared)  # id(manifest) -> its values
        found = made.get(id(spec))
        if found is None:
            found = made[id(spec)] = (manifest_rf_stated(spec, self.profile),
                                      manifest_min_isr(spec, self.profile))
        return found

    def topic_min_isr(self, topic: str) -> Stated:
        """A topic's effective min.insync.replicas, where a plan entry finds it: the
        snapshot's topic, else its declaration, else its cluster (``kafka.Stated``)."""
        if self.snapshot is not None and topic in self.snapshot.topics:
            config, source = self.snapshot.topics[topic].config, \
                f"the snapshot {self.snapshot.doc.source.name}"
            at = self.snapshot.topics[topic].where("config", "min.insync.replicas")
        else:
            spec = self.manifest(topic)
            config, source = (spec.config, f"the manifest of {topic}") \
                if spec is not None else ({}, "")
            at = spec.config_at("min.insync.replicas") if spec is not None else None
        if "min.insync.replicas" in config:
            return Stated(as_int(config["min.insync.replicas"]), at, source)
        return cluster_setting(self.profile, "min.insync.replicas")

    def entry_rf(self, plan: Plan, i: int) -> tuple[int | None, str]:
        """(current RF, where it comes from) of plan entry ``i``'s partition: the
        snapshot's (KIP-860), else the current assignment's (``--current``), else the RF
        its topic's declaration states (at the base ref in diff mode); None: unknown."""
        view = self.plan_view(plan)
        move = plan.moves[i]
        if view.states[i] is not None:
            return view.current_rfs[i], "the snapshot"
        if self.current and move[:2] in self.current:
            return len(self.current[move[:2]]), "the current assignment"
        spec = self.base_manifest(move.topic)
        if spec is not None:
            return manifest_rf(spec, self.profile), \
                f"the manifest of {move.topic} at {self.base_ref}"
        spec = self.manifest(move.topic)
        return (None if spec is None else manifest_rf(spec, self.profile),
                f"the manifest of {move.topic}")

    def memo(self, owner: Any) -> dict:
        """A dict kept for this run under ``owner`` (the function or object that fills it):
        what a caller remembers across the run's targets (CEL's subjects and verdicts)."""
        found = self._views.get(owner)
        if found is None:
            found = self._views[owner] = {}
        return found

    def view(self, build: Callable[..., Any], *args: Any) -> Any:
        """``build(*args)``, once per run: the arguments are objects of this run, told
        apart by identity."""
        views = self.memo(build)
        key = id(args[0]) if len(args) == 1 else tuple(map(id, args))
        view = views.get(key)
        if view is None:
            view = views[key] = build(*args)
        return view


def _default(config: dict, profile: ClusterProfile | None) -> str | None:
    """(see ``MinIsrSubject.default``)"""
    if not min_isr_is_default(config, profile):
        return None
    return profile.name if profile is not None else ""


def _judged_config(releases: tuple[str, ...], prefixes: tuple, config: dict
                   ) -> tuple[tuple, ...]:
    key = memo_key(config)
    try:
        return _window_issues(releases, prefixes, key)
    except TypeError:  # a value that is no scalar (the schema refused it): judged anew
        return _window_issues.__wrapped__(releases, prefixes, key)


@lru_cache(maxsize=4096)
def _window_issues(releases: tuple[str, ...], prefixes: tuple, config: tuple
                   ) -> tuple[tuple, ...]:
    """(key, value, release, status, problem, only) of the keys of one config worth
    reporting on some release of ``releases`` (see ``ConfigEntry``). A key no release
    knows has one verdict on all of them, said once (a hostile config of 20,000 such keys
    is not judged 20,000 times per release)."""
    ever = kafka_configs.ever_known()
    never = {key for key, _ in config[0] if key not in ever and not (
        prefixes and key.startswith(prefixes))}
    alien = tuple((key, value, releases[-1], kafka_configs.status(key, releases[-1]), None,
                   None) for key, value in config[0] if key in never)
    if len(releases) == 1:
        return tuple(issue + (None,) for issue in _config_issues(
            releases[0], prefixes, config, never)) + alien
    verdicts: dict[str, dict[str, tuple]] = {}  # key -> release -> its issue
    for release in releases:
        for issue in _config_issues(release, prefixes, config, never):
            verdicts.setdefault(issue[0], {})[release] = issue
    found = list(alien)
    for by_release in verdicts.values():
        newest = by_release[max(by_release, key=releases.index)]
        # the releases with the newest one's verdict (its status, and a refusal or none)
        alike = tuple(r for r in releases if r in by_release and by_release[r][3] == newest[3]
                      and bool(by_release[r][4]) == bool(newest[4]))
        found.append(newest + (None if len(alike) == len(releases) else
                               (alike, tuple(r for r in releases if r not in alike)),))
    return tuple(found)


def _config_issues(release: str, prefixes: tuple, config: tuple, never: set = frozenset()
                   ) -> tuple[tuple, ...]:
    """(key, value, release, status, problem) of the keys of one config worth reporting
    (but those in ``never``); ``config``: its ``memo_key`` (its items, and their values'
    types)."""
    found = []
    for key, value in config[0]:
        if prefixes and key.startswith(prefixes) or key in never:
            continue
        status = kafka_configs.status(key, release)
        problem = kafka_configs.judge(release, key, value)[0]
        if status != "known" or problem:
            found.append((key, value, release, status, problem))
    return tuple(found)


def topic_config(item: Any) -> TopicConfig:
    """A manifest's or a snapshot topic's config, with where it is written."""
    if isinstance(item, TopicSpec):
        path, moved = item.paths["config"], item.config_paths
    else:
        path, moved = item.path + ("config",), None
    # NamedTuple's own __new__ is a Python call: a snapshot has many topics
    return tuple.__new__(TopicConfig, (item.name, item.config, item.doc, path, moved))


def _topic_configs(target: Any) -> list[TopicConfig]:
    items = target.topics.values() if isinstance(target, Snapshot) else (target,)
    return [topic_config(item) for item in items if item.config]


def _by_metric_name(source: dict | list) -> dict[str, list[str]]:
    """(see ``Context.by_metric_name``) ``source``: a snapshot's topics, or manifests."""
    found: dict[str, list[str]] = {}
    for name in source if isinstance(source, dict) else (spec.name for spec in source):
        found.setdefault(name.replace(".", "_"), []).append(name)
    # most names share their metric name with no other: nothing to sort or de-duplicate
    return {metric: same if len(same) == 1 else sorted(set(same))
            for metric, same in found.items()}


class Result(Struct):
    findings: list[Finding]
    files: int
    unchecked: dict[str, int]
    rules: list[tuple[Rule, str]] = field(default_factory=list)  # (rule run, its severity)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why) not linted
    #: with a baseline: its findings left out ("baselined") and those now gone ("fixed")
    baseline: dict[str, int] | None = None
    #: the files read, as shown (a report must not replace one of them)
    read: list[str] = field(default_factory=list)
    #: each subject a rule could not check: rule, file, line, topic, the input it needs
    unchecked_subjects: list[dict] = field(default_factory=list)
    #: (declaration, its group, its context) of each topic, for ``-v`` to say what it was
    #: judged against (``linter.placed``): said only when asked
    placed: list[tuple] = field(default_factory=list)
    #: which policy judged, and where it was read from (``-v`` says it)
    policy: str = ""

    def counts(self) -> dict[str, int]:
        counts = Counter(f.severity for f in self.findings if not f.suppressed)
        return {s: counts.get(s, 0) for s in SEVERITY_RANK} | {
            "suppressed": sum(f.suppressed for f in self.findings)}

    def failed(self, fail_on: str) -> bool:
        floor = SEVERITY_RANK[fail_on]
        return any(not f.suppressed and SEVERITY_RANK[f.severity] >= floor
                   for f in self.findings)


#: a file policylint cannot read is reported whatever the selection (as ruff reports a file
#: it cannot parse): nothing in it was checked, and a run that says nothing would pass
ALWAYS = frozenset({"PL100"})


def _first_by_name(specs: list[TopicSpec]) -> dict[str, TopicSpec]:
    found: dict[str, TopicSpec] = {}
    for spec in specs:
        found.setdefault(spec.name, spec)
    return found


def _by_before(changes: list[Change]) -> dict[int, Change]:
    return {id(c.before): c for c in changes if c.before is not None}


def _mixed_topics(snapshot: Snapshot) -> set[int]:
    return mixed_topics(snapshot.topics.values())


def selected_rules(policy: Policy, select: list[str] | None = None,
                   ignore: list[str] | None = None) -> list[Rule]:
    return [rule for rule in [*all_rules().values(), *policy.custom_rules]
            if rule.code in ALWAYS or (
                policy.enabled(rule)
                and (not select or matches(rule, select))
                and not (ignore and matches(rule, ignore)))]


def run(runs: list[tuple[Context, dict[str, list[Any]]]], rules: list[Rule],
        chosen: Policy, source_findings: Iterable[Finding] = (), files: int = 0,
        today: dt.date | None = None, skipped: list[tuple[str, str]] | None = None,
        unchecked: Counter | None = None, elsewhere: Weighed | None = None) -> Result:
    """Runs the rules over each (context, targets) of a run, one per cluster: ``targets``
    maps a target kind (see ``policylint.rule``) to the objects to check. The contexts
    share the ``chosen`` policy and the ``unchecked`` count. ``elsewhere``: what the
    subjects the targets leave out weigh (``weigh``), when they are some files' only."""
    policy = chosen.compile(rules, today or dt.date.today())
    findings = [f for f in source_findings if f.rule in policy.rules]
    # the manifests with replica lists of their own: most have none (Strimzi's never do)
    assigned = [[m for m in targets.get("manifest", ()) if m.assignment] for _, targets in runs]
    # the rules with something to check (PL122 judges only their suppressions)
    ran = {rule.code for rule in rules if rule.applies(policy.options[rule.code])}
    for ctx, _ in runs:
        ctx.running = frozenset(ran)
    # the manifests with unknown values (template placeholders), and which
    blind = [[(m, u) for m in targets.get("manifest", ())
              if (u := unknown_fields(m, ctx.profile))] for ctx, targets in runs]
    for rule in rules:
        if rule.code not in ran:
            continue
        options = policy.options[rule.code]
        for (ctx, targets), with_lists, unknown in zip(runs, assigned, blind):
            reads = rule.reads
            for kind in reads.targets:
                checked = targets.get(kind, ()) if kind != "run" else (ctx,)
                if kind == "manifest" and reads.replica_lists_only:
                    checked = with_lists
                if kind == "manifest" and reads.config_keys is not None:
                    keys = reads.config_keys
                    checked = [m for m in checked if m.config and not keys.isdisjoint(m.config)]
                if kind == "manifest" and reads.needs and unknown:
                    checked = _judgeable(checked, unknown, rule, ctx.unchecked)
                findings.extend(rule.check_all(checked, ctx, options))
    _plan_fixes(findings, runs, policy)
    findings.extend(_expired_exemptions(policy))
    # how a tool names a declaration (a Terraform resource address): its findings say it
    origins = {(id(m.doc), m.name): m.origin for _, targets in runs
               for m in targets.get("manifest", ()) if m.origin}
    suppressions = Suppressions(policy)
    for finding in findings:
        rule = _finish(finding, policy)
        if origins and finding.at is not None and finding.cause is None:
            origin = origins.get((id(finding.at[0]), finding.topic))
            if origin and origin not in finding.message:
                finding.message += f" ({origin})"
        suppressions.apply(finding, rule)
    inheritors = sum((ctx.inheritors for ctx, _ in runs), Counter())
    findings = _one_per_cause(findings, policy, suppressions, origins, inheritors,
                              elsewhere or Weighed())
    if "PL122" in policy.rules:  # the suppressions that suppressed nothing
        known = {**all_rules(), **{r.code: r for r in chosen.custom_rules}}
        unused = list(suppressions.unused(
            (item.doc for _, targets in runs for items in targets.values() for item in items
             if item.doc is not None),
            (m.doc for _, targets in runs for m in targets.get("manifest", ())
             if ANNOTATION in m.annotations),
            {**known, **{r.name: r for r in known.values()}}, ran, policy.rules["PL122"]))
        for finding in unused:
            suppressions.apply(finding, _finish(finding, policy))
        findings += unused
    findings.sort(key=Finding.sort_key)
    # PL201 is always reported (the JSON contract); other rules when they skipped something
    counted = {"PL201": 0} | {code: n for code, n in sorted((unchecked or {}).items()) if n}
    return Result(findings, files, counted,
                  [(rule, policy.severities[rule.code]) for rule in rules], skipped or [],
                  unchecked_subjects=unchecked.located() if isinstance(unchecked, Unchecked)
                  else [])


class PlanFix:
    """The repair of a plan (``policylint.planner.repair``), worked out when ``--fix``
    asks for it: every finding it resolves carries the same one."""

    def __init__(self, plan: Plan, ctx: Context):
        self.plan, self.ctx, self._done = plan, ctx, None

    def repair(self):
        if self._done is None:
            from .planner.repair import repair
            self._done = repair(self.plan, self.ctx)
        return self._done


def _plan_fixes(findings: list[Finding], runs: list, policy: CompiledPolicy) -> None:
    """Findings on plan entries of rules whose findings a repaired plan resolves carry the
    plan's repair as their fix, where the plan's cluster (its brokers) is known."""
    fixing = {code for code, rule in policy.rules.items() if rule.plan_fix}
    plans = {id(plan.doc): (plan, ctx) for ctx, targets in runs
             if ctx.profile is not None and ctx.profile.brokers
             for plan in targets.get("plan", ()) if not _brings_in(plan, ctx)} \
        if fixing else {}
    if not plans:
        return
    made: dict[int, Fix] = {}
    for finding in findings:
        if finding.rule in fixing and finding.fix is None and finding.at is not None \
                and finding.repairable:
            found = plans.get(id(finding.at[0]))
            if found is not None:
                plan, ctx = found
                key = id(plan.doc)
                if key not in made:
                    made[key] = Fix("repair", (plan.doc, ("partitions",)), PlanFix(plan, ctx))
                finding.fix = made[key]


def _brings_in(plan: Plan, ctx: Context) -> bool:
    """Whether the plan names a broker its cluster does not have: one that joins (``lint
    --add`` says so) or a typo, which no repair can tell apart. Its only repair would move
    the replicas off it, undoing an expansion, so none is offered."""
    known = ctx.profile.brokers.keys()
    return any(b >= 0 and b not in known
               for replicas in ctx.replica_lists(plan).distinct for b in replicas)


#: how many subjects of a finding that stands for several its message names
NAMED = 5


class Weighed(NamedTuple):
    """Per ``Finding.cause``: how many subjects inherit it, and how many of them break
    their rule (unsuppressed), of the subjects a run leaves out (``weigh``)."""
    inheritors: Counter = Counter()
    breaking: Counter = Counter()


def weigh(runs: list[tuple[Context, dict[str, list[Any]]]], rules: list[Rule],
          chosen: Policy, today: dt.date | None = None) -> Weighed:
    """What the subjects of ``runs`` weigh in the rules that weigh others
    (``Reads.weighs_others``): a run that judges only some files is given it for the
    others, so that a finding is where a whole run puts it."""
    rules = [r for r in rules if r.reads.weighs_others]
    policy = chosen.compile(rules, today or dt.date.today())
    suppressions, breaking = Suppressions(policy), Counter()
    for rule in rules:
        if not rule.applies(policy.options[rule.code]):
            continue
        for ctx, targets in runs:
            ctx.running = frozenset(r.code for r in rules)
            for kind in rule.reads.targets:
                for finding in rule.check_all(targets.get(kind, ()), ctx,
                                              policy.options[rule.code]):
                    if finding.cause is not None:
                        suppressions.apply(finding, _finish(finding, policy))
                        breaking[finding.cause] += not finding.suppressed
    return Weighed(sum((ctx.inheritors for ctx, _ in runs), Counter()), breaking)


def _one_per_cause(findings: list[Finding], policy: CompiledPolicy,
                   suppressions: Suppressions, origins: dict,
                   inheritors: Counter, elsewhere: Weighed) -> list[Finding]:
    """The findings of subjects that inherit one value (``Finding.cause``) as one finding
    at that value, naming them, when every subject that inherits it breaks the rule; when
    only some do, each keeps its finding at its own value (``Finding.alone``), naming where
    the inherited one comes from. A subject whose own suppression hides its finding keeps
    it, suppressed."""
    groups: dict[tuple, list[Finding]] = {}
    kept = []
    for finding in findings:
        if finding.cause is None or finding.suppressed:
            kept.append(finding)
        else:
            groups.setdefault(finding.cause, []).append(finding)
    for cause, members in groups.items():
        if members[0].alone is not None and len(members) + elsewhere.breaking[cause] < \
                inheritors[cause] + elsewhere.inheritors[cause]:
            for member in members:
                member.message, member.at, member.related = member.alone
                member.cause = member.cause_at = member.alone = None
                suppressions.apply(member, _finish(member, policy))
                kept.append(member)
            continue
        lead = members[0]
        names = sorted({m.topic + (f" ({origin})" if (origin := origins.get(
            (id(m.at[0]), m.topic))) else "") for m in members if m.topic})
        shown = ", ".join(names[:NAMED]) + (f" and {len(names) - NAMED} more"
                                            if len(names) > NAMED else "")
        subjects = "topic" if len(names) == 1 else "topics"
        one = Finding(lead.rule, lead.name, lead.severity,
                      f"{lead.message} ({len(names)} {subjects}: {shown})", lead.cause_at)
        one.subjects = [{"topic": m.topic, "file": m.file, "line": m.line,
                         "column": m.column} for m in members]
        suppressions.apply(one, _finish(one, policy))
        kept.append(one)
    return kept


def _finish(finding: Finding, policy: CompiledPolicy) -> Rule:
    """A finding named, ranked by the policy and located; its rule."""
    rule = policy.rules[finding.rule]
    finding.name = rule.name
    raised = finding.severity if finding.severity != rule.severity else None
    finding.severity = policy.severity(rule.code, raised)
    finding.locate()
    return rule


def _judgeable(manifests: list, unknown: list[tuple], rule: Rule, unchecked: Counter) -> list:
    """The manifests a rule can judge: not those where a value it needs is unknown (counted
    under ``unchecked``)."""
    needs = rule.reads.needs
    skip = {id(m) for m, fields in unknown if fields & needs}
    for m, fields in unknown:
        if id(m) in skip:
            field = min(fields & needs)
            unchecked.add(rule.code, m.where(field), m.name,
                          f"a value for {', '.join(sorted(fields & needs))} "
                          f"({_unknowable(m, field)})")
    return [m for m in manifests if id(m) not in skip] if skip else manifests


def _unknowable(spec: TopicSpec, field: str) -> str:
    """What is written where a declaration's value is unknown, and how to give it."""
    doc, path = spec.where(field)
    written = doc.get(path) if doc is not None else None
    shown = f" `{' '.join(written.split())[:60]}`" if isinstance(written, str) else ""
    if spec.kind.startswith("Terraform"):
        return (f"a Terraform expression policylint cannot evaluate{shown}: lint the JSON of "
                "`terraform show -json` of a plan")
    return f"a template placeholder{shown}: lint the rendered output"


def _expired_exemptions(policy: CompiledPolicy) -> Iterable[Finding]:
    expired = policy.rules.get("PL120")
    if expired is None:
        return
    for ex in policy.expired:
        yield expired.finding(
            f"exemption of {ex.rule} for {', '.join(ex.topics)} expired on "
            f"{ex.expires.isoformat()} and no longer applies (reason given: {ex.reason})",
            at=ex.at)
