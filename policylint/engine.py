"""Runs the selected rules over the model and applies the policy. No I/O."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from functools import cached_property
from typing import Any, Iterable, Iterator, NamedTuple

from msgspec import Struct, field

from .kafka import unknown_fields
from .model import SEVERITY_RANK, Change, ClusterProfile, Finding, Fix, Plan, Snapshot, TopicSpec
from .policy import CompiledPolicy, Policy
from .registry import all_rules, matches
from .rule import Rule
from .suppressions import ANNOTATION, Suppressions
from .views import Names, Questions, clashes, names_of


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


class Context(Questions, Struct):
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
    #: (one name given twice, two names sharing a metric name) among ``manifests``: told
    #: by ``run`` from the names of the topics it leaves out (``Weighed.names``), else found
    #: when first asked (``Questions.name_clashes``)
    clashes: tuple[bool, bool] | None = None
    #: the manifests whose findings are this run's, when it judges some files' alone
    #: (``linter.judge``): the rules that compare each with its live topic walk no others;
    #: None: all (``Questions.judged_manifests``)
    judged: list[TopicSpec] | None = None
    #: what the run's questions remember (``views.Questions``: ``memo``, ``view``): the
    #: inputs above are the run's, everything made of them is kept here
    _views: dict[Any, dict] = field(default_factory=dict)


class Result(Struct, dict=True):
    findings: list[Finding]
    files: int
    unchecked: dict[str, int]
    rules: list[tuple[Rule, str]] = field(default_factory=list)  # (rule run, its severity)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why) not linted
    #: with a baseline: its findings left out ("baselined") and those now gone ("fixed")
    baseline: dict[str, int] | None = None
    #: the files read, as shown (a report must not replace one of them)
    read: list[str] = field(default_factory=list)
    #: the subjects rules could not check (``unchecked_subjects`` says them)
    unchecked_by: Unchecked | None = None
    #: (group, its context) of each group of the run: what its topics are judged against
    groups: list[tuple] = field(default_factory=list)
    #: which policy judged, and where it was read from (``-v`` says it)
    policy: str = ""
    #: a run that judges some files (``linter.judge``): what it said of the others, apart
    #: (a topic another file declares again, a cluster setting every topic breaks)
    elsewhere: list[Finding] = field(default_factory=list)
    #: per ``Finding.cause`` the run's subjects inherit, whether every one of them breaks
    #: its rule (unsuppressed): with the others' (``Weighed``), what makes their findings
    #: one at the cause
    all_break: dict[Any, bool] = field(default_factory=dict)

    @cached_property
    def unchecked_subjects(self) -> list[dict]:
        """Each subject a rule could not check: rule, file, line, topic, the input it needs;
        located when first asked (an edit in the editor does not ask)."""
        return self.unchecked_by.located() if self.unchecked_by is not None else []

    def placed(self) -> Iterator[tuple]:
        """(declaration, its group, its context) of each topic, for ``-v`` and the editor to
        say what it was judged against (``linter.placed``): found only when asked."""
        return ((spec, group, ctx) for group, ctx in self.groups for spec in group.manifests)

    def of_file(self, name: str | None) -> list[tuple[int, Finding]]:
        """The findings of the file ``name``, each with its place in ``findings``: grouped
        once for the list (an editor publishes each of a folder's files from one run; a
        list assigned anew is grouped anew)."""
        made = self.__dict__.get("_by_file")
        if made is None or made[0] is not self.findings:
            grouped: dict[str | None, list[tuple[int, Finding]]] = {}
            for i, f in enumerate(self.findings):
                grouped.setdefault(f.file, []).append((i, f))
            made = self.__dict__["_by_file"] = (self.findings, grouped)
        return made[1].get(name, [])

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
    # the rules with something to check (PL122 judges only their suppressions)
    ran = {rule.code for rule in rules if rule.applies(policy.options[rule.code])}
    for ctx, _ in runs:
        ctx.running = frozenset(ran)
    for (ctx, targets), names in zip(runs, elsewhere.names if elsewhere else ()):
        ctx.clashes = clashes(names, targets.get("manifest", []))
    shapes = _shapes(runs)
    for rule in rules:
        if rule.code not in ran:
            continue
        options = policy.options[rule.code]
        for run_, shape in zip(runs, shapes):
            for kind in rule.reads.targets:
                findings.extend(rule.check_all(_checked(rule, kind, run_, shape), run_[0],
                                               options))
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
    broken = Counter(f.cause for f in findings if f.cause is not None and not f.suppressed)
    all_break = {cause: broken[cause] >= n for cause, n in inheritors.items()}
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
                  unchecked_by=unchecked if isinstance(unchecked, Unchecked) else None,
                  all_break=all_break)


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
    their rule (unsuppressed), of the subjects a run leaves out (``weigh``); and the names
    of the topics it leaves out, by run."""
    inheritors: Counter = Counter()
    breaking: Counter = Counter()
    names: tuple[Names, ...] = ()


def weigh(runs: list[tuple[Context, dict[str, list[Any]]]], rules: list[Rule],
          chosen: Policy, today: dt.date | None = None) -> Weighed:
    """What the subjects of ``runs`` weigh in the rules that weigh others
    (``Reads.weighs_others``): a run that judges only some files is given it for the
    others, so that a finding is where a whole run puts it."""
    rules = [r for r in rules if r.reads.weighs_others]
    policy = chosen.compile(rules, today or dt.date.today())
    suppressions, breaking = Suppressions(policy), Counter()
    shapes = _shapes(runs)  # each subject weighed as ``run`` judges it
    for rule in rules:
        if not rule.applies(policy.options[rule.code]):
            continue
        for run_, shape in zip(runs, shapes):
            run_[0].running = frozenset(r.code for r in rules)
            for kind in rule.reads.targets:
                for finding in rule.check_all(_checked(rule, kind, run_, shape), run_[0],
                                              policy.options[rule.code]):
                    if finding.cause is not None:
                        suppressions.apply(finding, _finish(finding, policy))
                        breaking[finding.cause] += not finding.suppressed
    return Weighed(sum((ctx.inheritors for ctx, _ in runs), Counter()), breaking,
                   tuple(names_of(targets.get("manifest", [])) for _, targets in runs))


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


def _shapes(runs: list[tuple[Context, dict[str, list[Any]]]]) -> list[tuple[list, list]]:
    """For each run, its manifests with replica lists of their own (most have none:
    Strimzi's never do), and those with unknown values (template placeholders), with
    which."""
    return [([m for m in targets.get("manifest", ()) if m.assignment],
             [(m, u) for m in targets.get("manifest", ())
              if (u := unknown_fields(m, ctx.profile))]) for ctx, targets in runs]


def _checked(rule: Rule, kind: str, run: tuple[Context, dict[str, list[Any]]],
             shape: tuple[list, list]) -> Any:
    """What ``rule`` checks of a run's targets of ``kind`` (``shape``: ``_shapes``'): not a
    manifest without the fields it reads, nor one whose value it needs is unknown (counted
    unchecked)."""
    ctx, targets = run
    with_lists, unknown = shape
    reads = rule.reads
    checked = targets.get(kind, ()) if kind != "run" else (ctx,)
    if kind == "manifest" and reads.replica_lists_only:
        checked = with_lists
    if kind == "manifest" and reads.config_keys is not None:
        keys = reads.config_keys
        checked = [m for m in checked if m.config and not keys.isdisjoint(m.config)]
    if kind == "manifest" and reads.needs and unknown:
        checked = _judgeable(checked, unknown, rule, ctx.unchecked)
    return checked


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
