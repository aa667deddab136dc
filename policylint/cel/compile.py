"""Compiling a policy's ``cel_rules``: each expression checked against the fields its
variables have (``kinds``), compiled and type-checked by CEL at load (a policy error at its
line otherwise), and the rules batched (``batch``)."""

from __future__ import annotations

import copyreg
import re
from typing import Any

from .batch import batched
from .kinds import ALIASES, FIELD, KINDS, VARIABLES, environment
from .reading import MACROS, STRINGS, is_method
from .rule import CelRule, Check, has_own, short

#: comprehensions (``all``, ``exists``, ``map``...) nested deeper cost a product of list
#: sizes per evaluation: refused at load
MAX_NESTING = 2


class CelError(Exception):
    """An expression that does not compile: ``path`` in the policy entry, its message and
    where in the expression (line, column; 1-based), where the compiler says."""

    def __init__(self, path: tuple, message: str, line: int = 1, column: int = 1):
        super().__init__(message)
        self.path, self.line, self.column = path, line, column


def normalized(entry: dict) -> dict:
    """An entry with the spellings the schema takes as their one name each
    (``appliesTo``, ``match_conditions``, ``message_expression``; ``plan entries``)."""
    entry = dict(entry)
    kind = entry.pop("appliesTo", None) or entry.get("applies_to")
    entry["applies_to"] = ALIASES.get(kind, kind)
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
        binds = KINDS[entry["applies_to"]].binds
        own = ("variables", "params") if has_own(entry) else ()
        env = environment(binds + own)
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
            checks.append(Check(program, v["expression"], v.get("message"), said,
                                 v.get("field")))
        rules.append(CelRule(entry, checks, matches, source, variables))
    batched(rules, [normalized(e) for e in entries])
    return rules


def _rebuilt(entry: dict, source: str) -> CelRule:
    return compile_rules([entry], source)[0]


# to Spark's executors: a rule is compiled again there
copyreg.pickle(CelRule, lambda rule: (_rebuilt, (rule.entry, rule.source)))


def _probe(env: Any, binds: tuple[str, ...], own: tuple, variables: list, entry: dict) -> Any:
    """An activation of a subject of every declared field and type (``Variable.sample``),
    with the rule's variables evaluated on it and its params: what an expression gives
    there is its type, where CEL's checker only says dyn."""
    bindings = {b: VARIABLES[b].sample for b in binds if VARIABLES[b].sample}
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
            raise CelError(path, short(str(result.value())), line, column)


def _located(message: str, path: tuple) -> CelError:
    found = re.search(r"<input>:(-?\d+):(-?\d+): (.*?)(?:\n|$)", message)
    if found is None:
        return CelError(path, short(message.splitlines()[0] if message else "does not "
                                     "compile"))
    line, column = max(int(found[1]), 1), max(int(found[2]), 1)  # 1-based, as CEL says
    return CelError(path, found[3].strip(), line, column)


def _check_names(text: str, binds: tuple[str, ...], path: tuple) -> None:
    """Fields the model does not have, variables the rule's kind does not bind, and
    comprehensions nested too deep: refused before the compiler sees them."""
    code = STRINGS.sub(lambda m: " " * len(m.group(0)), text)
    for found in FIELD.finditer(code):
        root, name = found.group(1), found.group(2)
        if root not in binds:
            continue  # the compiler says it is undeclared
        if name not in VARIABLES[root].fields and not is_method(code, found.end()):
            line = code.count("\n", 0, found.start(2)) + 1
            column = found.start(2) - (code.rfind("\n", 0, found.start(2)) + 1) + 1
            raise CelError(path, f"{root} has no field {name!r} (it has: "
                           f"{', '.join(VARIABLES[root].fields)})", line, column)
    depth, deepest, stack = 0, 0, []
    for token in re.finditer(r"[()]|" + MACROS.pattern, code):
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
