"""Runs the selected rules over the model and applies the policy. No I/O."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from .model import SEVERITY_RANK, ClusterProfile, Finding, PartitionState, Plan, Snapshot, \
    TopicSpec
from .policy import Policy
from .registry import all_rules, matches
from .rule import Rule
from .rules.kafka import PlanColumns, effective_min_isr, join_states


@dataclass
class Context:
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
    unchecked: Counter = field(default_factory=Counter)  # code -> subjects it could not check
    _by_name: dict[str, TopicSpec] | None = None
    _base_by_name: dict[str, TopicSpec] | None = None
    _shared: dict[tuple, Any] = field(default_factory=dict)

    def manifest(self, topic: str) -> TopicSpec | None:
        """The (first) linted manifest of a topic."""
        if self._by_name is None:
            self._by_name = {}
            for spec in self.manifests:
                self._by_name.setdefault(spec.name, spec)
        return self._by_name.get(topic)

    def base_manifest(self, topic: str) -> TopicSpec | None:
        """The (first) manifest of a topic at the base ref, in diff mode."""
        if self._base_by_name is None:
            self._base_by_name = {}
            for spec in self.base or ():
                self._base_by_name.setdefault(spec.name, spec)
        return self._base_by_name.get(topic)

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

    def shared(self, compute: Callable[..., Any], *args: Any) -> Any:
        """``compute(*args)``, computed once per run and shared by every rule that asks: a
        view of a million-entry plan is worth building once, not once per rule. The
        arguments are objects of this run (they are told apart by identity)."""
        key = (compute, *map(id, args))
        if key not in self._shared:
            self._shared[key] = compute(*args)
        return self._shared[key]

    def states(self, plan: Plan) -> list[PartitionState | None]:
        """The snapshot's state of each partition a plan moves (None: not in the snapshot)."""
        return self.shared(join_states, self.shared(PlanColumns, plan), self.snapshot)


@dataclass
class Result:
    findings: list[Finding]
    files: int
    unchecked: dict[str, int]
    rules: list[tuple[Rule, str]] = field(default_factory=list)  # (rule run, its severity)
    context: Context | None = None  # what the rules saw: the model of every input

    def counts(self) -> dict[str, int]:
        counts = Counter(f.severity for f in self.findings if not f.suppressed)
        return {s: counts.get(s, 0) for s in SEVERITY_RANK} | {
            "suppressed": sum(f.suppressed for f in self.findings)}

    def failed(self, fail_on: str) -> bool:
        floor = SEVERITY_RANK[fail_on]
        return any(not f.suppressed and SEVERITY_RANK[f.severity] >= floor
                   for f in self.findings)


def selected_rules(policy: Policy, select: list[str] | None = None,
                   ignore: list[str] | None = None) -> list[Rule]:
    return [rule for rule in all_rules().values()
            if policy.enabled(rule)
            and (not select or matches(rule, select))
            and not (ignore and matches(rule, ignore))]


def run(ctx: Context, targets: dict[str, list[Any]], rules: list[Rule],
        source_findings: Iterable[Finding] = (), files: int = 0,
        today: dt.date | None = None) -> Result:
    """``targets`` maps a target kind (see ``policylint.rule``) to the objects to check."""
    today = today or dt.date.today()
    by_code = {rule.code: rule for rule in rules}
    findings = [f for f in source_findings if f.rule in by_code]
    for rule in rules:
        options = ctx.policy.options(rule)
        for kind in rule.targets:
            for target in (targets.get(kind, ()) if kind != "run" else (ctx,)):
                findings.extend(rule.check(target, ctx, options))
    findings.extend(_expired_exemptions(ctx.policy, today, by_code))
    exemptions = [e for e in ctx.policy.exemptions if e.expires is None or e.expires >= today]
    for finding in findings:
        rule = by_code[finding.rule]
        finding.name = rule.name
        finding.severity = ctx.policy.severity(rule)
        _locate(finding)
        _suppress(finding, rule, exemptions)
    findings.sort(key=Finding.sort_key)
    # PL201 is always reported (the JSON contract); other rules when they skipped something
    unchecked = {"PL201": 0} | {code: n for code, n in sorted(ctx.unchecked.items()) if n}
    return Result(findings, files, unchecked,
                  [(rule, ctx.policy.severity(rule)) for rule in rules], ctx)


def _expired_exemptions(policy: Policy, today: dt.date, rules: dict[str, Rule]
                        ) -> Iterable[Finding]:
    expired = rules.get("PL120")
    if expired is None:
        return
    for ex in policy.exemptions:
        if ex.expires is not None and ex.expires < today:
            yield expired.finding(
                f"exemption of {ex.rule} for {', '.join(ex.topics)} expired on "
                f"{ex.expires.isoformat()} and no longer applies (reason given: {ex.reason})",
                at=ex.at)


def _locate(finding: Finding) -> None:
    if finding.at is None:
        return
    doc, path = finding.at
    finding.file = doc.source.name
    where = doc.locate(path)
    if where is not None:
        finding.line, finding.column = where


def _suppress(finding: Finding, rule: Rule, exemptions: list) -> None:
    keys = {rule.code, rule.name, "all"}
    doc = finding.at[0] if finding.at else None
    if doc is not None and finding.line is not None:
        disables = doc.source.disables()
        for line in (finding.line, finding.line - 1):
            if line in disables and keys & disables[line][0]:
                _suppressed(finding, "inSource",
                            disables[line][1] or "disabled by an inline comment")
                return
    if doc is not None and isinstance(doc.data, dict):
        annotations = (doc.data.get("metadata") or {}).get("annotations") or {}
        listed = annotations.get("policylint.io/disable")
        if isinstance(listed, str) and keys & {c.strip() for c in listed.split(",")}:
            _suppressed(finding, "inSource", "disabled by the policylint.io/disable annotation")
            return
    for ex in exemptions:
        if ex.covers(rule.code, finding.topic):
            _suppressed(finding, "external", ex.reason)
            return


def _suppressed(finding: Finding, kind: str, justification: str) -> None:
    finding.suppressed, finding.suppression, finding.justification = True, kind, justification
