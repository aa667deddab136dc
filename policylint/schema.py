"""A small, fast validator for the JSON Schema subset policylint's own schemas use.

The schemas in ``sources/schemas/`` are real JSON Schema (draft 2020-12; the test suite
checks them against the metaschema and checks this validator against ``jsonschema`` on the
rule cases). Validation here is compiled into closures because a reassignment plan can hold
a million entries: ``jsonschema`` costs tens of microseconds per entry and a noticeable
import on every pre-commit run. A keyword outside the subset is a compile-time error, so a
schema cannot silently mean more than is checked.

JSON Schema's ``integer`` is narrowed to a true integer (``1.0`` and booleans are not):
Kafka ids and counts are integers in every tool that reads these files.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

Path = tuple
Error = tuple[Path, str]
Check = Callable[[Any, Path, list], None]

_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "default",
                "examples"}
_SUPPORTED = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "minItems",
    "maxItems", "minimum", "maximum", "minLength", "maxLength", "enum", "const", "pattern",
    "anyOf", "$ref", "propertyNames",
}

_TYPE_WORDS = {
    "object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "null",
}


def _is_type(value: Any, name: str) -> bool:
    t = type(value)
    if name == "integer":
        return t is int
    if name == "number":
        return t is int or t is float
    return t is _PY_TYPES[name]


_PY_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def describe(value: Any) -> str:
    """How a value reads in a message: its JSON text, shortened, with its kind."""
    kinds = {dict: "a mapping", list: "a list", str: "the string", bool: "", type(None): "",
             float: "the number", int: ""}
    text = json.dumps(value, default=str, ensure_ascii=False)
    if len(text) > 40:
        text = text[:37] + "..."
    kind = kinds.get(type(value), "the value")
    if type(value) in (dict, list):
        return kind
    return f"{kind} {text}".strip()


def format_path(path: Path) -> str:
    """``("partitions", 3, "replicas")`` -> ``partitions[3].replicas``."""
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", key):
            out += f".{key}" if out else key
        else:
            out += f"[{json.dumps(key)}]"
    return out or "document"


class Validator:
    """``Validator(schema).errors(value)`` -> ``[(path, message), ...]`` (empty when valid)."""

    def __init__(self, schema: dict):
        self._root = schema
        self._refs: dict[str, Check] = {}
        self._check = self._compile(schema)
        self._valid = _Predicate(schema).function(schema)

    def errors(self, value: Any, path: Path = ()) -> list[Error]:
        if self._valid(value):
            return []
        errs: list[Error] = []
        self._check(value, path, errs)
        return errs

    # -- compilation -------------------------------------------------------------------

    def _compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return _accept
        if schema is False:
            return _reject
        unknown = set(schema) - _SUPPORTED
        if unknown:
            raise ValueError(f"schema keyword(s) not supported: {sorted(unknown)}")
        if "$ref" in schema:
            return self._ref(schema["$ref"])
        checks = [c for c in (
            self._compile_type(schema), self._compile_enum(schema), self._compile_bounds(schema),
            self._compile_string(schema), self._compile_array(schema),
            self._compile_object(schema), self._compile_any_of(schema)) if c is not None]
        if len(checks) == 1:
            return checks[0]
        types = schema.get("type")

        def check_all(value, path, errs):
            for check in checks:
                before = len(errs)
                check(value, path, errs)
                if types is not None and len(errs) > before and check is checks[0]:
                    return  # wrong type: the other keywords would only repeat it
        return check_all

    def _ref(self, ref: str) -> Check:
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"only local $defs references are supported, not {ref}")
        name = ref[len("#/$defs/"):]
        if name not in self._refs:
            self._refs[name] = _accept  # placeholder while compiling recursive schemas
            target = self._root["$defs"][name]
            compiled = self._compile(target)
            self._refs[name] = compiled
        refs = self._refs
        return lambda value, path, errs: refs[name](value, path, errs)

    @staticmethod
    def _compile_type(schema: dict) -> Check | None:
        if "type" not in schema:
            return None
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        expected = " or ".join(_TYPE_WORDS[n] for n in names)
        if len(names) == 1 and names[0] != "number":
            py = int if names[0] == "integer" else _PY_TYPES[names[0]]

            def check_type(value, path, errs):
                if type(value) is not py:
                    errs.append((path, f"{describe(value)} is not {expected}"))
            return check_type

        def check_types(value, path, errs):
            if not any(_is_type(value, n) for n in names):
                errs.append((path, f"{describe(value)} is not {expected}"))
        return check_types

    @staticmethod
    def _compile_enum(schema: dict) -> Check | None:
        if "const" in schema:
            allowed = [schema["const"]]
        elif "enum" in schema:
            allowed = list(schema["enum"])
        else:
            return None
        shown = ", ".join(json.dumps(a) for a in allowed)
        words = f"must be {shown}" if len(allowed) == 1 else f"must be one of {shown}"

        def check_enum(value, path, errs):
            # `type(a) is type(value)` keeps 1 and true apart, as JSON Schema does
            if not any(a == value and type(a) is type(value) for a in allowed):
                errs.append((path, f"{describe(value)} {words}"))
        return check_enum

    @staticmethod
    def _compile_bounds(schema: dict) -> Check | None:
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if lo is None and hi is None:
            return None

        def check_bounds(value, path, errs):
            if type(value) not in (int, float):
                return
            if lo is not None and value < lo:
                errs.append((path, f"{value} is less than the minimum {lo}"))
            elif hi is not None and value > hi:
                errs.append((path, f"{_short_number(value)} is greater than the maximum {hi}"))
        return check_bounds

    @staticmethod
    def _compile_string(schema: dict) -> Check | None:
        pattern = schema.get("pattern")
        min_len, max_len = schema.get("minLength"), schema.get("maxLength")
        if pattern is None and min_len is None and max_len is None:
            return None
        search = re.compile(pattern).search if pattern is not None else None

        def check_string(value, path, errs):
            if type(value) is not str:
                return
            if min_len is not None and len(value) < min_len:
                errs.append((path, "must not be empty" if min_len == 1
                             else f"must be at least {min_len} characters long"))
            elif max_len is not None and len(value) > max_len:
                errs.append((path, f"is longer than {max_len} characters"))
            elif search is not None and not search(value):
                errs.append((path, f"{describe(value)} does not match {pattern}"))
        return check_string

    def _compile_array(self, schema: dict) -> Check | None:
        items = schema.get("items")
        min_items, max_items = schema.get("minItems"), schema.get("maxItems")
        if items is None and min_items is None and max_items is None:
            return None
        int_range = _plain_integer_items(items)
        item_check = self._compile(items) if items is not None else None
        item_valid = _Predicate(self._root).function(items) if items is not None else None

        def check_array(value, path, errs):
            if type(value) is not list:
                return
            n = len(value)
            if min_items is not None and n < min_items:
                errs.append((path, "must not be empty" if min_items == 1
                             else f"must have at least {min_items} items"))
            if max_items is not None and n > max_items:
                errs.append((path, f"must have at most {max_items} items"))
            if item_check is None or not n:
                return
            if int_range is not None:
                # fast path for id lists: one C-level pass decides the common, valid case
                lo, hi = int_range
                if set(map(type, value)) == {int} and (
                        lo is None or min(value) >= lo) and (hi is None or max(value) <= hi):
                    return
            for i, item in enumerate(value):
                if not item_valid(item):  # only the refused items are walked for reasons
                    item_check(item, path + (i,), errs)
        return check_array

    def _compile_object(self, schema: dict) -> Check | None:
        props = {k: self._compile(v) for k, v in schema.get("properties", {}).items()}
        required = list(schema.get("required", ()))
        extra = schema.get("additionalProperties", True)
        names = schema.get("propertyNames")
        if not props and not required and extra is True and names is None:
            return None
        known = frozenset(props)
        extra_check = None if extra in (True, False) else self._compile(extra)
        name_check = None if names is None else self._compile(names)
        prop_items = list(props.items())

        def check_object(value, path, errs):
            if type(value) is not dict:
                return
            for name in required:
                if name not in value:
                    errs.append((path, f"missing required field '{name}'"))
            for name, check in prop_items:
                if name in value:
                    check(value[name], path + (name,), errs)
            if value.keys() <= known and name_check is None:
                return
            for name in value:
                if name_check is not None:
                    name_check(name, path + (name,), errs)
                if name in known:
                    continue
                if extra is False:
                    errs.append((path + (name,), f"unknown field '{name}'"))
                elif extra_check is not None:
                    extra_check(value[name], path + (name,), errs)
        return check_object

    def _compile_any_of(self, schema: dict) -> Check | None:
        if "anyOf" not in schema:
            return None
        branches = [self._compile(s) for s in schema["anyOf"]]
        wanted = schema.get("description")

        def check_any_of(value, path, errs):
            first: list = []
            for i, branch in enumerate(branches):
                attempt: list = []
                branch(value, path, attempt)
                if not attempt:
                    return
                if i == 0:
                    first = attempt
            if wanted:
                errs.append((path, f"{describe(value)} is not {wanted}"))
            else:
                errs.extend(first)
        return check_any_of


def _accept(value, path, errs):
    return None


def _reject(value, path, errs):
    errs.append((path, "is not allowed here"))


def _short_number(value: int | float) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


def _plain_integer_items(items: Any) -> tuple | None:
    """(min, max) when ``items`` is just an integer type with optional bounds."""
    if not isinstance(items, dict) or items.get("type") != "integer":
        return None
    if set(items) - {"type", "minimum", "maximum", "description"}:
        return None
    return items.get("minimum"), items.get("maximum")


class _Predicate:
    """Generates one Python function that answers only "is it valid?" for a schema.

    Valid documents are the common case, and this answer costs a fraction of collecting
    errors with paths: no calls per keyword, no paths. Only a document (or an array item)
    it refuses is walked again by the checks that say why.
    """

    _PY = {"object": "dict", "array": "list", "string": "str", "integer": "int",
           "boolean": "bool", "null": "NoneType"}

    def __init__(self, root: dict):
        self.root = root
        self.ns: dict[str, Any] = {"NoneType": type(None), "_MISSING": object()}
        self.defs: dict[str, str] = {}
        self.vars = 0

    def function(self, schema: Any) -> Callable[[Any], bool]:
        body = self.expr(schema, "x", 0)
        source = "".join(self.defs.values()) + f"def _valid(x):\n    return {body}\n"
        exec(compile(source, "<policylint schema>", "exec"), self.ns)
        return self.ns["_valid"]

    def _name(self, value: Any) -> str:
        name = f"_k{len(self.ns)}"
        self.ns[name] = value
        return name

    def expr(self, schema: Any, v: str, depth: int) -> str:
        if schema is True or schema == {}:
            return "True"
        if schema is False:
            return "False"
        if "$ref" in schema:
            name = "_d_" + re.sub(r"\W", "_", schema["$ref"].rsplit("/", 1)[-1])
            if name not in self.defs:
                self.defs[name] = ""  # recursion guard
                target = self.root["$defs"][schema["$ref"][len("#/$defs/"):]]
                self.defs[name] = f"def {name}(x):\n    return {self.expr(target, 'x', 0)}\n"
            return f"{name}({v})"
        parts = []
        names = schema.get("type")
        names = [names] if isinstance(names, str) else names
        if names:
            py = [self._PY[n] for n in names if n != "number"] + (
                ["int", "float"] if "number" in names else [])
            parts.append(f"type({v}) is {py[0]}" if len(py) == 1
                         else f"type({v}) in ({', '.join(py)},)")
        numeric = names is not None and set(names) <= {"integer", "number"}
        if "const" in schema or "enum" in schema:
            allowed = [schema["const"]] if "const" in schema else schema["enum"]
            parts.append(f"any({v} == a and type({v}) is type(a) for a in "
                         f"{self._name(tuple(allowed))})")
        for key, op in (("minimum", ">="), ("maximum", "<=")):
            if key in schema:
                test = f"{v} {op} {schema[key]!r}"
                parts.append(test if numeric else f"(type({v}) not in (int, float) or {test})")
        if {"minLength", "maxLength", "pattern"} & set(schema):
            tests = []
            if "minLength" in schema:
                tests.append(f"len({v}) >= {schema['minLength']}")
            if "maxLength" in schema:
                tests.append(f"len({v}) <= {schema['maxLength']}")
            if "pattern" in schema:
                tests.append(f"{self._name(re.compile(schema['pattern']).search)}({v}) "
                             "is not None")
            parts.append(f"(type({v}) is not str or ({' and '.join(tests)}))")
        if {"items", "minItems", "maxItems"} & set(schema):
            parts.append(self._array(schema, v, depth))
        if {"properties", "required", "additionalProperties", "propertyNames"} & set(schema):
            parts.append(self._object(schema, v, depth))
        if "anyOf" in schema:
            parts.append("(" + " or ".join(self.expr(s, v, depth) for s in schema["anyOf"])
                         + ")")
        return " and ".join(f"({p})" for p in parts) or "True"

    def _array(self, schema: dict, v: str, depth: int) -> str:
        tests = []
        if "minItems" in schema:
            tests.append(f"len({v}) >= {schema['minItems']}")
        if "maxItems" in schema:
            tests.append(f"len({v}) <= {schema['maxItems']}")
        items = schema.get("items")
        bounds = _plain_integer_items(items)
        if bounds is not None:
            lo, hi = bounds
            test = f"set(map(type, {v})) <= {self._name(frozenset({int}))}"
            if lo is not None or hi is not None:
                limits = " and ".join(t for t in (
                    None if lo is None else f"min({v}) >= {lo}",
                    None if hi is None else f"max({v}) <= {hi}") if t)
                test += f" and (not {v} or ({limits}))"
            tests.append(test)
        elif items is not None:
            item = f"i{depth}"
            tests.append(f"all({self.expr(items, item, depth + 1)} for {item} in {v})")
        return f"(type({v}) is not list or ({' and '.join(tests) or 'True'}))"

    def _object(self, schema: dict, v: str, depth: int) -> str:
        props = schema.get("properties", {})
        known = self._name(frozenset(props))
        tests = [f"{name!r} in {v}" for name in schema.get("required", ())]
        for name, sub in props.items():
            # bind each value once (a walrus), not once per keyword that looks at it
            self.vars += 1
            var = f"v{self.vars}"
            tests.append(f"(({var} := {v}.get({name!r}, _MISSING)) is _MISSING or "
                         f"{self.expr(sub, var, depth)})")
        extra = schema.get("additionalProperties", True)
        if extra is False:
            tests.append(f"{v}.keys() <= {known}")
        elif extra is not True:
            key, val = f"k{depth}", f"w{depth}"
            tests.append(f"all({self.expr(extra, val, depth + 1)} for {key}, {val} in "
                         f"{v}.items() if {key} not in {known})")
        if "propertyNames" in schema:
            key = f"k{depth}"
            tests.append(f"all({self.expr(schema['propertyNames'], key, depth + 1)} for {key} "
                         f"in {v})")
        return f"(type({v}) is not dict or ({' and '.join(tests) or 'True'}))"
