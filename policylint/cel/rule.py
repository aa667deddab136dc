"""A CEL rule as the engine runs it (``CelRule``): its subjects judged by its batch where
it holds, else rule by rule, each validation on its own, as a ValidatingAdmissionPolicy's;
a value no input states counted unchecked."""

from __future__ import annotations

import re
import time
from itertools import chain, repeat
from typing import Any, NamedTuple, Sequence

from ..model import Finding
from ..rule import Reads, Rule
from .kinds import KINDS, environment, subjects_of

#: a rule whose evaluations have taken this long in one run stops, with a note
BUDGET_SECONDS = 30.0


class Check(NamedTuple):
    program: Any
    text: str  # the expression as written
    message: str | None
    message_program: Any | None
    field: str | None


class CelRule(Rule):
    """A rule of the policy's ``cel_rules``: one instance per entry."""

    def __init__(self, entry: dict, checks: list[Check], matches: list[Any], source: str,
                 variables: list[tuple[str, Any]] = ()):
        self.entry = entry  # as the policy writes it (normalized): what an export takes
        self.code, self.name = entry["code"], entry["name"]
        self.severity = entry.get("severity", "error")
        self.applies_to = entry["applies_to"]
        kind = KINDS[self.applies_to]
        self.binds = kind.binds
        self.description = entry.get("description", "")
        self.help = entry.get("help", "")
        self.url = entry.get("url")
        self.field = entry.get("field")
        self.expressions = [v["expression"] for v in entry["validations"]]
        self.source = source
        self.checks, self.matches = checks, matches
        self.variables = list(variables)
        self.own = has_own(entry)
        self.batch: Any = None  # the program it shares with the rules beside it
        self.params = entry.get("params") or {}
        self.cluster_params = entry.get("cluster_params") or {}
        self.failure_policy = entry.get("failurePolicy")
        self.failure_message = entry.get("failureMessage")
        self.spent = 0.0
        # a snapshot topic's rf, partitions and assignment come from its partitions: the
        # audit leaves them out for a rule that reads none of them
        texts = " ".join(self.expressions + [m["expression"] for m in
                                             entry.get("matchConditions") or ()] +
                         [v.get("messageExpression", "") for v in entry["validations"]] +
                         [v["expression"] for v in entry.get("variables") or ()])
        partitions = self.applies_to == "partitions" or bool(
            re.search(r"\b(rf|partitions|assignment|stated)\b", texts))
        # a rule that judges a topic by its config and its cluster's settings alone (not
        # its name, labels or file; not a cluster's name) gives every topic of one shape
        # the same verdict: the audit checks each distinct shape once (spark.shapes)
        by_shape = self.applies_to in ("topics", "clusters") and not partitions and \
            not self.cluster_params and not re.search(
                r"\btopic\.(name|labels|annotations|file|format|managed)\b|"
                r"\bcluster\.name\b|\[\s*[\"']name[\"']|\bobject\b|\bchange\b", texts)
        self.reads = Reads(targets=kind.targets, partitions=partitions,
                           spark_frame="configs" if by_shape else None)
        self.entry = entry

    # -- what a rule class says of itself ---------------------------------------------------

    def documentation(self) -> str:
        lines = [self.description or f"A CEL rule of the policy {self.source}.",
                 "", "## What it does",
                 f"Applies to {self.applies_to.replace('_', ' ')}; reports each one for which "
                 "an expression is false:", ""]
        lines += [f"- `{e}`" for e in self.expressions]
        if self.help:
            lines += ["", "## Why is this bad?", self.help]
        return "\n".join(lines)

    def summary(self) -> str:
        return self.description.splitlines()[0] if self.description else \
            f"CEL rule of {self.source}: {' '.join(self.expressions[0].split())[:80]}"

    def help_uri(self) -> str | None:
        return self.url

    # -- checking -----------------------------------------------------------------------

    def check(self, target: Any, ctx: Any, options: dict) -> Any:
        return self.check_all((target,), ctx, options)

    def check_all(self, targets: Sequence[Any], ctx: Any, options: dict) -> Any:
        if self.spent > BUDGET_SECONDS:
            return ()
        # a target its batch holds for gives nothing to say
        pending = self.batch.pending(targets, ctx) if self.batch else zip(targets, repeat(None))
        return chain.from_iterable(self._checked(target, ctx, verdicts)
                                   for target, verdicts in pending)

    def _checked(self, target: Any, ctx: Any, held: list[bool] | None) -> Any:
        if self.spent > BUDGET_SECONDS:
            return
        for k, subject in enumerate(subjects_of(self.applies_to, target, ctx)):
            if held and held[k]:
                continue
            started = time.perf_counter()
            found = self._judge(subject.bindings, subject.at, subject.label, ctx,
                                self._own(subject.bindings) if self.own else
                                subject.activation())
            self.spent += time.perf_counter() - started
            yield from found
            if self.spent > BUDGET_SECONDS:
                yield Finding(self.code, self.name, "note",
                              f"{self.code} stopped after {BUDGET_SECONDS:.0f} s of evaluation "
                              "in this run: the rest is unchecked (simplify its expressions)",
                              subject.at(self.field))
                return

    def _judge(self, bindings: dict, at: Any, label: tuple, ctx: Any,
               activation: Any) -> list[Finding]:
        for condition in self.matches:
            value, error = _evaluated(condition, activation)
            if error is not None:
                return self._unchecked(error, at, label, ctx)
            if value is not True:
                return []
        found, unknown = [], False
        for check in self.checks:  # each judged on its own, as a ValidatingAdmissionPolicy's
            value, error = _evaluated(check.program, activation)
            if error is not None:
                if not _unknown(error):
                    found += self._unchecked(error, at, label, ctx)
                elif not unknown:  # the subject counted once, whatever else is unknown
                    unknown = True
                    ctx.unchecked.add(self.code, at(self.field), label[0],
                                      f"a value it reads that no input states ({short(error)})")
                continue
            if value is not True:
                found.append(self._false(check, activation, at, label))
        return found

    def _false(self, check: Check, activation: Any, at: Any, label: tuple) -> Finding:
        """The finding of a validation that is false for a subject: its message (or the
        value of its messageExpression), at its field."""
        message = check.message
        if check.message_program is not None:
            said, error = _evaluated(check.message_program, activation)
            if error is None and isinstance(said, str) and said.strip():
                message = said
        message = message or f"{check.text} is false"
        topic, partition, name = label
        if name and name not in message:
            message = f"{name}: {message}"
        return self.finding(message, at=at(check.field or self.field), topic=topic,
                            partition=partition)

    def _own(self, bindings: dict) -> Any:
        """The subject's activation with this rule's ``params`` (its cluster's over them) and
        ``variables``, each evaluated once, in order (one may read those before it); one
        that cannot be evaluated is left out, as a value no input states."""
        env = environment(self.binds + ("variables", "params"))
        cluster = bindings.get("cluster") or {}
        params = {**self.params, **self.cluster_params.get(cluster.get("name"), {})}
        values: dict = {}
        for name, program in self.variables:
            value, error = _evaluated(program, env.Activation(
                {**bindings, "variables": values, "params": params}))
            if error is None:
                values[name] = value
        return env.Activation({**bindings, "variables": values, "params": params})

    def _unchecked(self, error: str, at: Any, label: tuple, ctx: Any) -> list[Finding]:
        """A value no input states is unknown: the subject is counted, not judged. Any
        other evaluation error is as the rule's ``failurePolicy`` says (that of a
        ValidatingAdmissionPolicy): ``Fail`` a finding at the rule's severity, ``Ignore``
        the subject counted unchecked, unset a note of the rule's own; its
        ``failureMessage`` said before the reason."""
        if _unknown(error) or self.failure_policy == "Ignore":
            ctx.unchecked.add(self.code, at(self.field), label[0],
                              f"a value it reads that no input states ({short(error)})"
                              if _unknown(error) else f"an evaluation error ({short(error)})")
            return []
        topic, partition, name = label
        said = f"{self.failure_message}: {short(error)}" if self.failure_message else \
            f"{self.code} could not be evaluated: {short(error)}"
        return [Finding(self.code, self.name,
                        self.severity if self.failure_policy == "Fail" else "note",
                        f"{name + ': ' if name else ''}{said}", at(self.field), topic,
                        partition)]


def _evaluated(program: Any, activation: Any) -> tuple[Any, str | None]:
    """(value, None), or (None, why not): an error value, or the evaluator's own refusal
    (its iteration budget exceeded, a value it cannot hold)."""
    try:
        value = program.eval(activation)
    except Exception as exc:  # the evaluator's RuntimeError
        return None, str(exc)
    if value.type().name() == "ERROR":
        return None, str(value.value())
    try:
        return value.value(), None
    except Exception as exc:
        return None, str(exc)


def _unknown(error: str) -> bool:
    return error.startswith("NOT_FOUND") or "No value with name" in error or \
        "no such key" in error.lower()


def short(error: str) -> str:
    return error.split(": ", 1)[-1].strip()[:200]


def has_own(entry: dict) -> bool:
    """Whether a rule binds ``variables`` and ``params`` of its own (an activation per rule
    and subject; the others share one per subject)."""
    return bool(entry.get("variables") or entry.get("params") or entry.get("cluster_params"))
