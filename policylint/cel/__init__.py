"""A team's own rules as CEL expressions in the policy file (``cel_rules:``).

Each entry is shaped as Kubernetes' ``ValidatingAdmissionPolicy``: a ``code`` and ``name``
of the team's own, a ``severity``, what it ``applies_to`` (topics, partitions,
plan_entries, clusters, changes), optional ``matchConditions`` and one or more
``validations`` (``expression`` with ``message`` or ``messageExpression``). The policy
loader compiles them once (``compile_rules``) with the CEL C++ implementation
(cel-expr-python: type-checked at load, RE2 regexes, bounded recursion), imported only
when a policy has such rules; a rule that does not compile, or names a field the model
does not have, is a policy error at its line. ``CelRule`` then goes through the engine as
any rule: locations, suppressions, baselines, ``--select``, severities, SARIF.
"""

from __future__ import annotations

import pickle
import re
import time
from bisect import bisect_right
from itertools import chain, repeat
from typing import Any, NamedTuple, Sequence

from ..model import Finding, Plan, Snapshot, TopicSpec
from ..rule import Reads, Rule
from . import subjects
from .subjects import KINDS, NAMES

#: comprehensions (``all``, ``exists``, ``map``...) nested deeper cost a product of list
#: sizes per evaluation: refused at load
MAX_NESTING = 2
#: a rule whose evaluations have taken this long in one run stops, with a note
BUDGET_SECONDS = 30.0
_MACROS = re.compile(r"\.\s*(all|exists|exists_one|map|filter|transformList|transformMap)"
                     r"\s*\(")
_STRINGS = re.compile(r"(?s)[rR]?('''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"
                      r"\"(?:\\.|[^\"\\\n])*\")")
_FIELD = re.compile(r"(?<![.\w])(topic|partition|entry|cluster|change)\s*\.\s*\??\s*"
                    r"([A-Za-z_]\w*)")


class CelError(Exception):
    """An expression that does not compile: ``path`` in the policy entry, its message and
    where in the expression (line, column; 1-based), where the compiler says."""

    def __init__(self, path: tuple, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.path, self.line, self.column = path, line, column


class _Check(NamedTuple):
    program: Any
    text: str  # the expression as written
    message: str | None
    message_program: Any | None
    field: str | None


class CelRule(Rule):
    """A rule of the policy's ``cel_rules``: one instance per entry."""

    def __init__(self, entry: dict, checks: list[_Check], matches: list[Any], source: str,
                 variables: list[tuple[str, Any]] = ()):
        self.entry = entry  # as the policy writes it (normalized): what an export takes
        self.code, self.name = entry["code"], entry["name"]
        self.severity = entry.get("severity", "error")
        self.applies_to = entry["applies_to"]
        self.binds, targets = KINDS[self.applies_to]
        self.description = entry.get("description", "")
        self.help = entry.get("help", "")
        self.url = entry.get("url")
        self.field = entry.get("field")
        self.expressions = [v["expression"] for v in entry["validations"]]
        self.source = source
        self.checks, self.matches = checks, matches
        self.variables = list(variables)
        self.own = _has_own(entry)
        self.batch: _Batch | None = None  # the program it shares with the rules beside it
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
        self.reads = Reads(targets=targets, partitions=partitions,
                           spark_frame="configs" if by_shape else None)
        self.entry = entry

    def __reduce__(self) -> tuple:  # to Spark's executors: compiled again there
        return _rebuilt, (self.entry, self.source)

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
        for k, subject in enumerate(_subjects_of(self.applies_to, target, ctx)):
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
                                      f"a value it reads that no input states ({_short(error)})")
                continue
            if value is not True:
                found.append(self._false(check, activation, at, label))
        return found

    def _false(self, check: _Check, activation: Any, at: Any, label: tuple) -> Finding:
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
        env = _env(self.binds + ("variables", "params"))
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
                              f"a value it reads that no input states ({_short(error)})"
                              if _unknown(error) else f"an evaluation error ({_short(error)})")
            return []
        topic, partition, name = label
        said = f"{self.failure_message}: {_short(error)}" if self.failure_message else \
            f"{self.code} could not be evaluated: {_short(error)}"
        return [Finding(self.code, self.name,
                        self.severity if self.failure_policy == "Fail" else "note",
                        f"{name + ': ' if name else ''}{said}", at(self.field), topic,
                        partition)]


class _Batch:
    """Rules of one ``applies_to`` that share their activation, as one CEL program that
    holds when every one of them holds: per rule ``M ? (V1 && V2 ...) : true`` (its
    matchConditions M, its validations V), all joined by ``&&``. Evaluated once per subject
    instead of once per rule and expression: a subject it holds for (the usual) gives no
    finding and reads no absent value; any other (a false validation, a value no input
    states, an error: ``?:`` and ``&&`` let no error become true) is judged rule by rule,
    as without it, so the verdicts are the same.

    The program sees only the fields its rules read (``reads``), so the evaluator converts
    a few values per subject, not whole maps, and the answers of the constant patterns
    Python matches as RE2 does (``patterns``: CEL would compile them again each time).
    Where those fields do not name the subject (no topic name, no partition number: a
    judgement of its shape), its verdict is kept by their values, and a subject of a shape
    already judged is not evaluated again. Where they do, subjects that share their other
    maps (a cluster's) are judged up to ``_RUN`` at a time by one evaluation of
    ``listed``, ``SUBJECTS.all(topic, PROGRAM)``: each evaluation costs a few microseconds
    before it reads a value."""

    def __init__(self, rules: list[CelRule], program: Any, reads: dict | None,
                 patterns: dict[str, tuple] | None = None, listed: Any = None):
        self.rules, self.program, self.reads, self.listed = rules, program, reads, listed
        self.subject = rules[0].binds[0]  # the variable of the subject itself (topic...)
        self.by_shape = reads is not None and not _names_subject(reads)
        reads = reads or {}
        self.own_fields = reads.get(self.subject, ())
        self.others = {root: fields for root, fields in reads.items() if root != self.subject}
        # its program's ``ROOT["matches #N"]``, per root: (key, field, pattern)
        self.patterns: dict[str, list[tuple]] = {}
        for key, (root, field, pattern) in (patterns or {}).items():
            self.patterns.setdefault(root, []).append((key, field, pattern))
        self.by_value = tuple(k for k in self.own_fields if k not in _SHARED)
        self.absent = (...,) * len(self.by_value)
        self.by_identity = tuple(k for k in self.own_fields if k in _SHARED)
        self.passed: _Pass | None = None  # the pass over targets it is worked out in
        for rule in rules:
            rule.batch = self

    def pending(self, targets: Sequence[Any], ctx: Any) -> list[tuple[Any, list[bool]]]:
        """The targets for which a rule of the batch may not hold, each with per subject
        whether they all hold (see ``_Pass``)."""
        return self.passed.pending(targets, ctx).get(self, [])

    def verdicts(self, block: list[tuple], ctx: Any, by_shape: dict) -> list[bool]:
        """Per subject of ``block`` (its target, its number there, its maps: of a topic's
        own, the fields its pass reads) whether every rule holds."""
        if self.reads is None:  # a rule reads a whole map: the subject's
            return [_holds(self.program, _subjects_of(self.rules[0].applies_to, target,
                                                      ctx)[k].activation())
                    for target, k, _ in block]
        if self.by_shape or self.listed is None:
            return [self._verdict(maps, by_shape) for _, _, maps in block]
        found: list[bool] = []
        run, start = 1, 0
        while start < len(block):
            end, maps = start + 1, block[start][2]
            while end < len(block) and end - start < run and (not self.others or all(
                    block[end][2][root] is maps[root] for root in self.others)):
                end += 1
            bound = {root: self._values(maps[root], root, fields)
                     for root, fields in self.others.items()}
            own = [self._values(item[2][self.subject], self.subject, self.own_fields)
                   for item in block[start:end]]
            held = end - start > 1 and _holds(self.listed, data={**bound, _SUBJECTS: own})
            said = [True] * (end - start) if held else [  # else one by one
                _holds(self.program, data={**bound, self.subject: values}) for values in own]
            # a run that holds grows, one that does not (a subject a rule reports, a value
            # no input states, CEL's iteration budget exceeded) shrinks
            run = min(2 * run, _RUN) if held or (end - start == 1 and said[0]) else \
                max(run // 4, 1)
            found += said
            start = end
        return found

    def _verdict(self, maps: dict, by_shape: dict) -> bool:
        """Whether every rule holds for one subject: kept by its shape where no field
        read names it."""
        key = None
        if self.by_shape:
            # the subject's own fields by value (pickle's bytes tell 1 from 1.0 and True,
            # and a date from its text, as CEL does; ``...`` where absent); maps made once
            # per run and shared (a topic's config maps, its cluster's, its topic's) by
            # identity
            own = maps[self.subject]
            try:
                key = (pickle.dumps([*map(own.get, self.by_value, self.absent)], 5),
                       *map(id, map(own.get, self.by_identity)),
                       *[id(maps[root]) for root in self.others])
            except Exception:  # a value pickle cannot hold: judged on its own
                pass
            else:
                verdict = by_shape.get(key)
                if verdict is not None:
                    return verdict
        verdict = _holds(self.program, data={root: self._values(maps[root], root, fields)
                                             for root, fields in self.reads.items()})
        if key is not None:
            by_shape[key] = verdict
        return verdict

    def _values(self, given: dict, root: str, fields: tuple[str, ...]) -> dict:
        """What the program is handed of a map: the fields it reads alone (conversion on
        demand costs less than an Activation made for one evaluation), and beside them
        RE2's answers where Python's are the same (patterns.py): none where a field is no
        text (the program then fails, and the subject is judged rule by rule) or a text
        too long for Python's backtracking or CEL's strings (a lone surrogate)."""
        values = {k: given[k] for k in fields if k in given}
        for key, field, pattern in self.patterns.get(root, ()):
            value = values.get(field)
            if isinstance(value, str) and len(value) <= pattern.longest and \
                    (value.isascii() or not _SURROGATE.search(value)):
                values[key] = pattern.regex.search(value) is not None
        return values


_SURROGATE = re.compile("[\ud800-\udfff]")


#: a batch's subjects judged by one evaluation, at most; the variable that lists them
_RUN, _SUBJECTS = 64, "subjects__"


class _Pass:
    """The batches of one ``applies_to``, worked out together in one pass over a list of
    targets, once per run and list (the engine hands every rule of a kind the same list):
    each subject's fields that any of them reads made once, each batch judging them a
    block at a time. A rule reads only the targets its batch does not hold for."""

    def __init__(self, batches: list[_Batch]):
        self.batches, self.kind = batches, batches[0].rules[0].applies_to
        for batch in batches:
            batch.passed = self

    def pending(self, targets: Sequence[Any], ctx: Any) -> dict[_Batch, list]:
        memo = ctx.memo(self)  # per run: identities are told apart within one
        if not memo:  # per list of targets; per batch, its verdicts by shape
            memo.update(targets={}, shapes={batch: {} for batch in self.batches})
        by_targets, shapes = memo["targets"], memo["shapes"]
        found = by_targets.get(id(targets))
        if found is None:  # the list kept with its verdicts: its id stays its own
            started = time.perf_counter()
            # the batches with a rule this run runs (--select)
            batches = [batch for batch in self.batches if ctx.running is None or
                       any(rule.code in ctx.running for rule in batch.rules)]
            found = by_targets[id(targets)] = (
                targets, self._judged(targets, ctx, batches, shapes))
            rules = [rule for batch in batches for rule in batch.rules]
            spent = (time.perf_counter() - started) / len(rules)
            for rule in rules:
                rule.spent += spent
        return found[1]

    def _judged(self, targets: Sequence[Any], ctx: Any, batches: list[_Batch],
                shapes: dict) -> dict[_Batch, list]:
        said: dict[_Batch, list[bool]] = {batch: [] for batch in batches}
        spans, block, n = [], [], 0  # per target its first subject's number; to judge
        # of a topic's own map, the fields its batches read
        fields = tuple({field for batch in batches if batch.reads is not None
                        for field in batch.reads.get("topic", ())}) \
            if self.kind == "topics" else None
        for target in targets:
            spans.append((target, n))
            for k, (maps, _) in enumerate(_subjects(self.kind, target, ctx, fields)):
                block.append((target, k, maps))
                n += 1
                if len(block) == _BLOCK:
                    self._judge(block, ctx, shapes, said)
                    block = []
        self._judge(block, ctx, shapes, said)
        spans.append((None, n))
        starts = [start for _, start in spans]
        pending: dict[_Batch, list] = {}
        for batch, verdicts in said.items():  # the targets of its subjects that break it
            found = pending[batch] = []
            at = -1
            while (at := _index(verdicts, False, at + 1)) is not None:
                i = bisect_right(starts, at) - 1
                (target, start), (_, end) = spans[i], spans[i + 1]
                found.append((target, verdicts[start:end]))
                at = end - 1
        return pending

    def _judge(self, block: list[tuple], ctx: Any, shapes: dict, said: dict) -> None:
        for batch, verdicts in said.items():
            verdicts += batch.verdicts(block, ctx, shapes[batch])


def _index(items: list, value: Any, start: int) -> int | None:
    try:
        return items.index(value, start)
    except ValueError:
        return None


#: subjects whose fields are held at once, at most (a snapshot's million partitions)
_BLOCK = 1024


#: a topic's maps made once per distinct config (``subjects._configs``), shared by its
#: topics: a verdict kept by shape tells them apart by identity
_SHARED = ("config", "configs")


#: fields that name a subject: a verdict that reads one is a subject's own
_IDENTITY = {"topic": ("name", "file", "assignment"), "partition": ("partition", "topic"),
             "entry": ("partition", "topic")}


def _names_subject(reads: dict) -> bool:
    return any(field in _IDENTITY.get(root, ()) for root, fields in reads.items()
               for field in fields)


def _holds(program: Any, activation: Any = None, data: dict | None = None) -> bool:
    try:
        value = program.eval(activation) if data is None else program.eval(data=data)
        return value.value() is True  # only a bool is True (an error is its text)
    except Exception:  # the evaluator's refusal, a value Python cannot hold: rule by rule
        return False


def _batched(rules: list[CelRule], sources: list[dict]) -> None:
    """Programs per ``applies_to`` for the rules without variables or params of their own
    (their activation is the subject's): one for those whose verdict a subject's shape
    decides (``_Batch.by_shape``), one for the others, where there are two of them or the
    verdicts can be kept by shape."""
    groups: dict[tuple, list[tuple[CelRule, dict, dict | None]]] = {}
    for rule, entry in zip(rules, sources):
        if not rule.own:
            texts = [v["expression"] for v in entry["validations"]] + \
                [m["expression"] for m in entry.get("matchConditions") or ()]
            # a change's object and oldObject may be null: its maps are not narrowed
            reads = None if rule.applies_to == "changes" else fields_read(texts, rule.binds)
            named = reads is None or _names_subject(reads)
            groups.setdefault((rule.applies_to, named), []).append((rule, entry, reads))
    made: dict[str, list[_Batch]] = {}
    for (kind, named), members in groups.items():
        if named and len(members) < 2:
            continue
        parts, reads = [], {}
        for _, entry, read in members:
            holds = " && ".join(f"({v['expression']})" for v in entry["validations"])
            matches = [f"({m['expression']})" for m in entry.get("matchConditions") or ()]
            parts.append(f"(({' && '.join(matches)}) ? ({holds}) : true)" if matches
                         else f"({holds})")
            for root, fields in (read or {}).items():
                reads[root] = reads.get(root, set()) | set(fields)
        if any(read is None for _, _, read in members):
            reads = None  # a rule reads a whole map: the program sees the subject's
        patterns: dict[str, tuple] = {}
        if reads is not None:  # handed its values: its patterns' answers among them
            parts = [_hoisted(part, KINDS[kind][0], patterns) for part in parts]
        text = " && ".join(parts)
        binds = KINDS[kind][0]
        try:  # in the kind's environment: a variable it does not read need not be bound
            program = _env(binds).compile(text)
        except Exception:  # each compiled on its own: judged one by one, as before
            continue
        listed = None
        if named and reads is not None:  # where no shape decides
            try:
                listed = _env(binds + (_SUBJECTS,)).compile(
                    f"{_SUBJECTS}.all({binds[0]}, {text})")
            except Exception:  # a subject at a time
                pass
        made.setdefault(kind, []).append(_Batch(
            [rule for rule, _, _ in members], program,
            {root: tuple(sorted(f)) for root, f in reads.items()} if reads is not None
            else None, patterns, listed))
    for batches in made.values():
        _Pass(batches)


_CALL = re.compile(r"(?<![.\w])(topic|partition|entry|cluster)\s*\.\s*([A-Za-z_]\w*)\s*\.\s*"
                   r"matches\s*\(")
_SPACE, _CLOSE = re.compile(r"\s*"), re.compile(r"\s*\)")


def _hoisted(text: str, binds: tuple[str, ...], found: dict[str, tuple]) -> str:
    """``text`` with each ``ROOT.FIELD.matches(CONSTANT)`` whose pattern Python answers as
    RE2 does (``patterns.translated``) read as ``ROOT["matches #N"]`` instead (a key no
    field has), what it asks added to ``found``: (root, field, pattern). As written where a
    comprehension or ``cel.bind`` could give a variable's name to another value."""
    from .patterns import translated
    code = _STRINGS.sub(lambda m: " " * len(m.group(0)), text)
    if _MACROS.search(code) or re.search(r"\bbind\s*\(", code):
        return text
    out, last = [], 0
    for call in _CALL.finditer(code):
        literal = _STRINGS.match(text, _SPACE.match(text, call.end()).end())
        close = literal and _CLOSE.match(text, literal.end())
        if call.group(1) not in binds or not close:
            continue
        try:  # the literal's text, as CEL reads its escapes
            pattern = translated(_env(binds).compile(literal.group(0)).eval(data={}).value())
        except Exception:
            continue
        if pattern is not None:
            key = f"matches #{len(found)}"
            found[key] = (call.group(1), call.group(2), pattern)
            out += [text[last:call.start()], f'{call.group(1)}["{key}"]']
            last = close.end()
    return "".join(out) + text[last:]


def fields_read(texts: list[str], binds: tuple[str, ...]
                ) -> dict[str, tuple[str, ...]] | None:
    """Per variable the expressions read, the fields they read of it (``topic.rf``,
    ``has(topic.rf)``, ``topic.?rf``); None where one reads a variable otherwise
    (``topic["rf"]``, ``size(cluster)``), as a whole."""
    code = " ".join(_STRINGS.sub(lambda m: " " * len(m.group(0)), t) for t in texts)
    reads: dict[str, set] = {}
    for found in _FIELD.finditer(code):
        if found.group(1) in binds:
            if _is_method(code, found.end()):
                return None
            reads.setdefault(found.group(1), set()).add(found.group(2))
    for root in binds:
        if re.search(rf"(?<![.\w]){root}\b(?!\s*\.\s*\??\s*[A-Za-z_])", code):
            return None
    return {root: tuple(sorted(fields)) for root, fields in reads.items()}


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


def _short(error: str) -> str:
    return error.split(": ", 1)[-1].strip()[:200]


def _subjects_of(kind: str, target: Any, ctx: Any) -> list[_Subject]:
    """The subjects of a target for the rules of one ``applies_to``, built once per run and
    target for all those rules."""
    cache = ctx.memo(_subjects_of)
    found = cache.get((kind, id(target)))
    if found is None:  # the target is kept with them: its id stays its own
        found = cache[(kind, id(target))] = (target, [
            _Subject(kind, maps, *place[0](*place[1:]))
            for maps, place in _subjects(kind, target, ctx)])
    return found[1]


class _Subject:
    """What a rule judges: its maps by variable (``bindings``), where its fields are
    written (``at(field)``), its label (topic, partition, name), and the activation of its
    maps, made when a rule first evaluates them whole (most subjects are judged by a
    batch's own activation)."""

    __slots__ = ("kind", "bindings", "at", "label", "_activation")

    def __init__(self, kind: str, bindings: dict, at: Any, label: tuple):
        self.kind, self.bindings, self.at, self.label = kind, bindings, at, label
        self._activation = None

    def activation(self) -> Any:
        if self._activation is None:
            self._activation = _env(KINDS[self.kind][0]).Activation(self.bindings)
        return self._activation


# -- subjects of each kind: (maps, place) ----------------------------------------------
# A subject's place, (describe, *args), says where its fields are written and its label
# (made for a subject a rule reports).

def _subjects(kind: str, target: Any, ctx: Any, fields: tuple[str, ...] | None = None):
    """``fields``: of a topic's own map, those alone, where a pass reads a few (None: the
    whole map, made once per run)."""
    if kind == "topics":
        if isinstance(target, TopicSpec):
            yield ({"topic": _memo(ctx, subjects.topic_of_spec, target, ctx) if fields is None
                    else subjects.topic_of_spec(target, ctx, fields),
                    "cluster": _memo(ctx, subjects.cluster, ctx.profile)}, (_spec, target))
        elif isinstance(target, Snapshot):
            cluster = _memo(ctx, subjects.cluster, target.profile)
            for topic in target.topics.values():
                yield ({"topic": _memo(ctx, subjects.topic_of_state, topic, target, ctx)
                        if fields is None else
                        subjects.topic_of_state(topic, target, ctx, fields),
                        "cluster": cluster}, (_state, topic))
    elif kind == "partitions" and isinstance(target, Snapshot):
        cluster = _memo(ctx, subjects.cluster, target.profile)
        for topic in target.topics.values():
            topic_map = _memo(ctx, subjects.topic_of_state, topic, target, ctx)
            for p in topic.partitions:
                yield ({"partition": subjects.partition(topic, p), "topic": topic_map,
                        "cluster": cluster}, (_partition, topic, p))
    elif kind == "plan_entries" and isinstance(target, Plan):
        cluster = _memo(ctx, subjects.cluster, ctx.profile)
        for i, move in enumerate(target.moves):
            yield ({"entry": subjects.entry(target, i, ctx),
                    "topic": _plan_topic(ctx, move.topic), "cluster": cluster},
                   (_entry, target, move))
    elif kind == "clusters":
        profile = target.profile if isinstance(target, Snapshot) else target
        yield {"cluster": _memo(ctx, subjects.cluster, profile)}, (_cluster, profile)
    elif kind == "changes":
        cluster = _memo(ctx, subjects.cluster, ctx.profile)
        for change in ctx.changes or ():
            yield (_objects(subjects.change(change, ctx), cluster),
                   (_spec, change.after or change.before))
        for spec in ctx.manifests if ctx.base is not None else ():
            before = ctx.base_manifest(spec.name)
            if before is not None:
                yield (_objects(subjects.base_change(spec, before, ctx), cluster),
                       (_spec, spec))


def _spec(spec: TopicSpec) -> tuple:
    def at(field: str | None):
        if field and field.startswith("config."):
            return spec.config_at(field.split(".", 1)[1])
        return spec.where(field or "name") if (field or "name") in spec.paths else \
            spec.where("name")
    return at, (spec.name, None, f"topic {spec.name}")


def _state(topic) -> tuple:
    def at(field: str | None):
        if field and field.startswith("config."):
            return topic.where("config", field.split(".", 1)[1])
        return topic.where("partitions" if field == "partitions" else "name")
    return at, (topic.name, None, f"topic {topic.name}")


def _partition(topic, p) -> tuple:
    return (lambda field: topic.where_partition(p, field or "replicas"),
            (topic.name, p.partition, f"{topic.name}-{p.partition}"))


def _entry(plan: Plan, move) -> tuple:
    return (lambda field: plan.where(move, field or "replicas"),
            (move.topic, move.partition, f"{move.topic}-{move.partition}"))


def _cluster(profile) -> tuple:
    return (lambda field: (profile.doc, profile.config_path + (field.split(".", 1)[1],))
            if field and field.startswith("config.") and profile.doc is not None
            else profile.where(), (None, None, f"cluster {profile.name}"))


def _objects(change: dict, cluster: dict) -> dict:
    return {"change": change, "object": change.get("after"),
            "oldObject": change.get("before"), "cluster": cluster}


def _memo(ctx: Any, build: Any, *args: Any) -> Any:
    """``build(*args)`` once per run; the one empty map for no cluster (a verdict kept by
    shape tells clusters apart by the identity of their maps)."""
    return ctx.view(build, *args) if args[0] is not None else _NO_CLUSTER


_NO_CLUSTER: dict = {}


def _plan_topic(ctx: Any, name: str) -> dict:
    """What a plan entry's topic is known by: the snapshot's topic, else its declaration."""
    if ctx.snapshot is not None and name in ctx.snapshot.topics:
        return _memo(ctx, subjects.topic_of_state, ctx.snapshot.topics[name], ctx.snapshot, ctx)
    spec = ctx.manifest(name)
    return _memo(ctx, subjects.topic_of_spec, spec, ctx) if spec is not None else {"name": name}


# -- compiling --------------------------------------------------------------------------

_ENVS: dict[tuple[str, ...], Any] = {}  # per kind of subject: the variables it binds


def _env(binds: tuple[str, ...]) -> Any:
    if binds not in _ENVS:
        from cel_expr_python import cel
        from cel_expr_python.ext import ext_optional, ext_strings
        dyn = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
        nullable = ("object", "oldObject")  # null where there is none, as Kubernetes' are
        _ENVS[binds] = cel.NewEnv(variables={b: cel.Type.DYN if b in nullable else
                                             cel.Type.List(dyn) if b == _SUBJECTS else dyn
                                             for b in binds},
                                  extensions=[ext_optional.ExtOptional(),
                                              ext_strings.ExtStrings()])
    return _ENVS[binds]


#: what ``applies_to`` may say, as Kubernetes users and the catalogue write it
_KIND_NAMES = {"topic": "topics", "partition": "partitions", "plan entries": "plan_entries",
               "planEntries": "plan_entries", "plan_entry": "plan_entries",
               "entries": "plan_entries", "cluster": "clusters", "change": "changes"}


def normalized(entry: dict) -> dict:
    """An entry with the spellings the schema takes as their one name each
    (``appliesTo``, ``match_conditions``, ``message_expression``; ``plan entries``)."""
    entry = dict(entry)
    kind = entry.pop("appliesTo", None) or entry.get("applies_to")
    entry["applies_to"] = _KIND_NAMES.get(kind, kind)
    if "match_conditions" in entry:
        entry["matchConditions"] = entry.pop("match_conditions")
    entry["validations"] = [
        {("messageExpression" if k == "message_expression" else k): v for k, v in item.items()}
        for item in entry["validations"]]
    return entry


def compile_rules(entries: list[dict], source: str) -> list[CelRule]:
    """The policy's ``cel_rules``, compiled. CelError (with its path in ``entries``) for
    the first that does not."""
    try:
        import cel_expr_python  # noqa: F401
    except ImportError:
        raise CelError((), "CEL rules need the CEL library: pip install "
                       "'policylint[cel]'") from None
    rules, seen = [], set()
    for i, entry in enumerate(map(normalized, entries)):
        if entry["applies_to"] is None:
            raise CelError((i,), "applies_to is required: topics, partitions, plan_entries, "
                           "clusters or changes")
        if entry["code"] in seen:
            raise CelError((i, "code"), f"{entry['code']} is the code of an earlier CEL rule")
        if entry["name"] in seen:  # --select NAME and explain NAME must find one rule
            raise CelError((i, "name"), f"{entry['name']} is the name of an earlier CEL rule")
        seen.update((entry["code"], entry["name"]))
        binds = KINDS[entry["applies_to"]][0]
        own = ("variables", "params") if _has_own(entry) else ()
        env = _env(binds + own)
        variables = [(v["name"], _compile(env, v["expression"], binds,
                                          (i, "variables", j, "expression"), None))
                     for j, v in enumerate(entry.get("variables") or ())]
        probe = _probe(env, binds, own, variables, entry)
        matches = [_compile(env, m["expression"], binds, (i, "matchConditions", j,
                                                          "expression"), bool, probe)
                   for j, m in enumerate(entry.get("matchConditions") or ())]
        checks = []
        for j, v in enumerate(entry["validations"]):
            path = (i, "validations", j)
            program = _compile(env, v["expression"], binds, path + ("expression",), bool, probe)
            said = _compile(env, v["messageExpression"], binds, path + ("messageExpression",),
                            str, probe) if "messageExpression" in v else None
            checks.append(_Check(program, v["expression"], v.get("message"), said,
                                 v.get("field")))
        rules.append(CelRule(entry, checks, matches, source, variables))
    _batched(rules, [normalized(e) for e in entries])
    return rules


def _has_own(entry: dict) -> bool:
    """Whether a rule binds ``variables`` and ``params`` of its own (an activation per rule
    and subject; the others share one per subject)."""
    return bool(entry.get("variables") or entry.get("params") or entry.get("cluster_params"))


def _rebuilt(entry: dict, source: str) -> CelRule:
    return compile_rules([entry], source)[0]


def _probe(env: Any, binds: tuple[str, ...], own: tuple, variables: list, entry: dict) -> Any:
    """An activation of a subject of every declared field and type (``subjects.SAMPLES``),
    with the rule's variables evaluated on it and its params: what an expression gives
    there is its type, where CEL's checker only says dyn."""
    from .subjects import SAMPLES
    bindings = {b: SAMPLES[b] for b in binds if b in SAMPLES}
    if not own:
        return env.Activation(bindings)
    values: dict = {}
    for name, program in variables:
        try:
            value = program.eval(env.Activation({**bindings, "variables": values,
                                                 "params": entry.get("params") or {}}))
            if value.type().name() != "ERROR":
                values[name] = value.value()
        except Exception:  # a value the sample cannot give: that variable is left out
            continue
    return env.Activation({**bindings, "variables": values,
                           "params": entry.get("params") or {}})


def _compile(env: Any, text: str, binds: tuple[str, ...], path: tuple, kind: type,
             probe: Any = None) -> Any:
    _check_names(text, binds, path)
    try:
        program = env.compile(text)
        # a type CEL cannot name (a map with double keys) is refused here, not at compile
        returned = program.return_type().name()
    except Exception as exc:  # the compiler's one error type (RuntimeError) in practice
        raise _located(str(exc), path) from None
    _check_patterns(env, text, path)
    wanted = "BOOL" if kind is bool else "STRING"
    if kind is not None and returned == "DYN" and probe is not None:
        try:  # a field of a subject: its declared type, as a subject of every field gives
            given = program.eval(probe).type().name()
        except Exception:  # a value Python cannot hold: no type learnt
            given = "ERROR"
        returned = returned if given in ("ERROR", "NULL_TYPE") else given
    if kind is not None and returned not in (wanted, "DYN"):
        raise CelError(path, f"gives {returned.lower()}, not a {wanted.lower()}")
    return program


#: a constant pattern of ``matches``: RE2 judges it once, at load, not once per subject
_PATTERN = re.compile(r"""matches\(\s*(?:[^,()]*,\s*)?(r?(["'])(?:\\.|(?!\2).)*\2)\s*\)""")


def _check_patterns(env: Any, text: str, path: tuple) -> None:
    """A constant regular expression RE2 refuses (a backreference, a lookahead) is a
    policy error at its line, as any compile error."""
    for found in _PATTERN.finditer(text):
        result = env.compile(f"''.matches({found.group(1)})").eval(env.Activation({}))
        if result.type().name() == "ERROR":
            line = text.count("\n", 0, found.start(1)) + 1
            column = found.start(1) - (text.rfind("\n", 0, found.start(1)) + 1) + 1
            raise CelError(path, _short(str(result.value())), line, column)


def _located(message: str, path: tuple) -> CelError:
    found = re.search(r"<input>:(-?\d+):(-?\d+): (.*?)(?:\n|$)", message)
    if found is None:
        return CelError(path, _short(message.splitlines()[0] if message else "does not "
                                     "compile"))
    line, column = max(int(found[1]), 1), max(int(found[2]), 1)  # 1-based, as CEL says
    return CelError(path, found[3].strip(), line, column)


def _check_names(text: str, binds: tuple[str, ...], path: tuple) -> None:
    """Fields the model does not have, variables the rule's kind does not bind, and
    comprehensions nested too deep: refused before the compiler sees them."""
    code = _STRINGS.sub(lambda m: " " * len(m.group(0)), text)
    for found in _FIELD.finditer(code):
        root, name = found.group(1), found.group(2)
        if root not in binds:
            continue  # the compiler says it is undeclared
        if name not in NAMES[root] and not _is_method(code, found.end()):
            line = code.count("\n", 0, found.start(2)) + 1
            column = found.start(2) - (code.rfind("\n", 0, found.start(2)) + 1) + 1
            raise CelError(path, f"{root} has no field {name!r} (it has: "
                           f"{', '.join(NAMES[root])})", line, column)
    depth, deepest, stack = 0, 0, []
    for token in re.finditer(r"[()]|" + _MACROS.pattern, code):
        if token.group(0) == "(":
            stack.append(False)
        elif token.group(0) == ")":
            if stack and stack.pop():
                depth -= 1
        else:
            stack.append(True)
            depth += 1
            deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise CelError(path, f"comprehensions nested {deepest} deep: at most {MAX_NESTING} "
                       "(each level multiplies the cost of an evaluation)")


def _is_method(code: str, end: int) -> bool:
    """Whether the name just read is called as a function (``topic.name.size()`` reads
    ``name``; a call on a root variable is none of its fields)."""
    return code[end:].lstrip().startswith("(")
