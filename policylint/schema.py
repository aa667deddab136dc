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
from itertools import chain, repeat
from operator import contains, itemgetter
from typing import Any, Callable

Path = tuple
Error = tuple[Path, str]
Check = Callable[[Any, Path, list], None]
_CHUNK = 64  # items per column test when looking for the invalid ones of a long array

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
    if name == "number":
        return t is int or t is float
    return t is _PY_TYPES[name]


_PY_TYPES = {"object": dict, "array": list, "string": str, "integer": int, "boolean": bool,
             "null": type(None)}


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
        self._columns = _Columns(schema)
        self._check = self._compile(schema)
        self._all_valid = self._columns.compile(schema)

    def is_valid(self, value: Any) -> bool:
        return self._all_valid([value])

    def errors(self, value: Any, path: Path = ()) -> list[Error]:
        if self.is_valid(value):
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
            py = _PY_TYPES[names[0]]

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
        item_check = self._compile(items) if items is not None else None
        items_valid = self._columns.compile(items) if items is not None else None

        def check_array(value, path, errs):
            if type(value) is not list:
                return
            n = len(value)
            if min_items is not None and n < min_items:
                errs.append((path, "must not be empty" if min_items == 1
                             else f"must have at least {min_items} items"))
            if max_items is not None and n > max_items:
                errs.append((path, f"must have at most {max_items} items"))
            if item_check is None or items_valid(value):
                return
            for start in range(0, n, _CHUNK):  # only the refused chunks are walked for reasons
                if not items_valid(value[start:start + _CHUNK]):
                    for i in range(start, min(n, start + _CHUNK)):
                        item_check(value[i], path + (i,), errs)
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


class _Columns:
    """Compiles a schema into a test of a whole column of values: "are all of these valid?"

    Valid documents are the common case. A column test runs each keyword once over all the
    values of a field across a list (a million plan entries: one ``set(map(type, ...))``
    per field, one ``min``/``max``, one regex per distinct string), so the cost per value
    is that of C loops. Only where it says no are the items walked by the checks that say
    why. A test may refuse what is valid (NaN bounds, say) but never accepts the invalid.
    """

    def __init__(self, root: dict):
        self.root = root
        self.refs: dict[str, Callable[[list], bool]] = {}

    def compile(self, schema: Any) -> Callable[[list], bool]:
        if schema is True or schema == {}:
            return _all_valid
        if schema is False:
            return _none_valid
        if "$ref" in schema:
            return self._ref(schema["$ref"])
        names = schema.get("type")
        names = [names] if isinstance(names, str) else names
        declared = None if names is None else frozenset(
            t for n in names for t in ((int, float) if n == "number" else (_PY_TYPES[n],)))
        tests = []
        if declared is not None:
            tests.append(lambda vals: set(map(type, vals)) <= declared)

        def of(*types: type) -> Callable[[list], list]:
            """The values of a column a keyword applies to (it ignores other types)."""
            if declared is not None and declared <= set(types):
                return _same
            return lambda vals: [v for v in vals if type(v) in types]
        if "const" in schema or "enum" in schema:
            allowed = [schema["const"]] if "const" in schema else schema["enum"]
            tests.append(lambda vals: all(any(a == v and type(a) is type(v) for a in allowed)
                                          for v in vals))
        if "minimum" in schema or "maximum" in schema:
            tests.append(_bounds(of(int, float), schema.get("minimum"), schema.get("maximum")))
        if {"minLength", "maxLength", "pattern"} & set(schema):
            tests.append(_strings(of(str), schema))
        if {"items", "minItems", "maxItems"} & set(schema):
            tests.append(self._arrays(of(list), schema))
        if {"properties", "required", "additionalProperties", "propertyNames"} & set(schema):
            tests.append(self._objects(of(dict), schema))
        if "anyOf" in schema:
            tests.append(_any_of([self.compile(s) for s in schema["anyOf"]]))
        return lambda vals: all(test(vals) for test in tests)

    def _ref(self, ref: str) -> Callable[[list], bool]:
        name = ref[len("#/$defs/"):]
        if name not in self.refs:
            self.refs[name] = _all_valid  # placeholder while compiling recursive schemas
            self.refs[name] = self.compile(self.root["$defs"][name])
        refs = self.refs
        return lambda vals: refs[name](vals)

    def _arrays(self, of: Callable, schema: dict) -> Callable[[list], bool]:
        lo, hi = schema.get("minItems"), schema.get("maxItems")
        items = self.compile(schema.get("items", True))

        def test(vals):
            lists = of(vals)
            if not lists:
                return True
            if lo is not None or hi is not None:
                sizes = list(map(len, lists))
                if (lo is not None and min(sizes) < lo) or (hi is not None and max(sizes) > hi):
                    return False
            return items(list(chain.from_iterable(lists)))
        return test

    def _objects(self, of: Callable, schema: dict) -> Callable[[list], bool]:
        props = {name: self.compile(sub) for name, sub in schema.get("properties", {}).items()}
        required = frozenset(schema.get("required", ()))
        known = frozenset(props)
        extra = schema.get("additionalProperties", True)
        extra_test = None if extra in (True, False) else self.compile(extra)
        names_test = None if "propertyNames" not in schema else self.compile(
            schema["propertyNames"])

        def test(vals):
            dicts = of(vals)
            if not dicts:
                return True
            # Keys are counted, not listed: the keys the properties account for must be
            # all the keys written, or some are extra.
            accounted = 0
            names = []
            for name, prop in props.items():
                if name in required:
                    try:
                        column = list(map(itemgetter(name), dicts))
                    except KeyError:
                        return False
                else:
                    present = sum(map(contains, dicts, repeat(name)))
                    if not present:
                        continue
                    column = list(map(itemgetter(name), dicts)) if present == len(dicts) \
                        else [d[name] for d in dicts if name in d]
                names.append(name)
                accounted += len(column)
                if not prop(column):
                    return False
            if any(not all(map(contains, dicts, repeat(name))) for name in required - known):
                return False
            if sum(map(len, dicts)) > accounted:
                if extra is False:
                    return False
                extras = [(k, v) for d in dicts for k, v in d.items() if k not in known]
                names.extend({k for k, _ in extras})
                if extra_test is not None and not extra_test([v for _, v in extras]):
                    return False
            return names_test is None or names_test(names)
        return test


def _any_of(branches: list) -> Callable[[list], bool]:
    def test(vals):
        if any(branch(vals) for branch in branches):
            return True  # one branch takes the whole column (isr: all lists)
        by_type: dict[type, list] = {}
        for v in vals:
            by_type.setdefault(type(v), []).append(v)
        return all(any(branch(group) for branch in branches) or
                   all(any(branch([v]) for branch in branches) for v in group)
                   for group in by_type.values())
    return test


def _bounds(of: Callable, lo: Any, hi: Any) -> Callable[[list], bool]:
    def test(vals):
        nums = of(vals)
        return not nums or ((lo is None or min(nums) >= lo) and (hi is None or max(nums) <= hi))
    return test


def _strings(of: Callable, schema: dict) -> Callable[[list], bool]:
    lo, hi = schema.get("minLength"), schema.get("maxLength")
    search = re.compile(schema["pattern"]).search if "pattern" in schema else None

    def test(vals):
        strings = of(vals)
        if not strings:
            return True
        if search is not None:  # on distinct values: a million topic names are few names
            strings = set(strings)
            if any(search(s) is None for s in strings):
                return False
        if lo is None and hi is None:
            return True
        sizes = list(map(len, strings))
        return (lo is None or min(sizes) >= lo) and (hi is None or max(sizes) <= hi)
    return test


def _all_valid(vals: list) -> bool:
    return True


def _none_valid(vals: list) -> bool:
    return not vals


def _same(vals: list) -> list:
    return vals

