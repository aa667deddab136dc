"""Rules of one ``applies_to`` judged together: one CEL program per batch of rules,
evaluated once per subject (``_Batch``), and the batches of a kind worked out in one pass
over a list of targets (``_Pass``). A subject a batch holds for gives no finding; any other
is judged rule by rule (``rule.CelRule``), so the verdicts are the same as without it."""

from __future__ import annotations

import pickle
import re
import time
from bisect import bisect_right
from typing import Any, Sequence

from .kinds import KINDS, LISTED, VARIABLES, environment, subjects_of
from .reading import fields_read, hoisted

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

    def __init__(self, rules: list, program: Any, reads: dict | None,
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
            return [_holds(self.program, subjects_of(self.rules[0].applies_to, target,
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
            held = end - start > 1 and _holds(self.listed, data={**bound, LISTED: own})
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


#: a batch's subjects judged by one evaluation, at most
_RUN = 64


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
            for k, (maps, _) in enumerate(KINDS[self.kind].subjects(target, ctx, fields)):
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


def _names_subject(reads: dict) -> bool:
    """Whether a verdict reading ``reads`` is a subject's own: it reads a field that names
    one (``Variable.identity``)."""
    return any(field in VARIABLES[root].identity for root, fields in reads.items()
               for field in fields)


def _holds(program: Any, activation: Any = None, data: dict | None = None) -> bool:
    try:
        value = program.eval(activation) if data is None else program.eval(data=data)
        return value.value() is True  # only a bool is True (an error is its text)
    except Exception:  # the evaluator's refusal, a value Python cannot hold: rule by rule
        return False


def batched(rules: list, sources: list[dict]) -> None:
    """Programs per ``applies_to`` for the rules without variables or params of their own
    (their activation is the subject's): one for those whose verdict a subject's shape
    decides (``_Batch.by_shape``), one for the others, where there are two of them or the
    verdicts can be kept by shape."""
    groups: dict[tuple, list[tuple[Any, dict, dict | None]]] = {}
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
            parts = [hoisted(part, KINDS[kind].binds, patterns) for part in parts]
        text = " && ".join(parts)
        binds = KINDS[kind].binds
        try:  # in the kind's environment: a variable it does not read need not be bound
            program = environment(binds).compile(text)
        except Exception:  # each compiled on its own: judged one by one, as before
            continue
        listed = None
        if named and reads is not None:  # where no shape decides
            try:
                listed = environment(binds + (LISTED,)).compile(
                    f"{LISTED}.all({binds[0]}, {text})")
            except Exception:  # a subject at a time
                pass
        made.setdefault(kind, []).append(_Batch(
            [rule for rule, _, _ in members], program,
            {root: tuple(sorted(f)) for root, f in reads.items()} if reads is not None
            else None, patterns, listed))
    for batches in made.values():
        _Pass(batches)
