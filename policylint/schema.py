"""policylint's JSON Schemas, checked by msgspec and explained by jsonschema.

The schemas in ``sources/schemas/`` are the contract. Each is translated once into msgspec
types (Structs, constrained ints and strings, literals), which accept or refuse a value at C
speed: ``Schema.decode`` reads JSON bytes straight into them, ``Schema.errors`` converts
plain data. Only a refused value is handed to ``jsonschema``, which lists every violation
with its path; a long array is first narrowed to the items msgspec refuses. A construct the
translation cannot express exactly is a ``ValueError`` when the schema is loaded, so msgspec
never accepts what the schema refuses. A ``$defs`` entry may be decoded into a model type
(``models``): its Struct subclasses the model's, and a value the file leaves out takes the
model's default, so that a million partitions are not converted once decoded.

JSON Schema's ``integer`` is narrowed to a true integer (``1.0`` and booleans are not):
Kafka ids and counts are integers in every tool that reads these files.
"""

from __future__ import annotations

import json
import keyword
import re
from typing import Annotated, Any, Literal, Union

import msgspec

Path = tuple
Error = tuple[Path, str]
_MANY = 256  # arrays this long are narrowed to their refused items before jsonschema runs
_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "default",
                "examples"}
_SUPPORTED = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "minItems",
    "maxItems", "minimum", "maximum", "minLength", "maxLength", "enum", "const", "pattern",
    "anyOf", "$ref", "propertyNames", "format",
}
_TYPE_WORDS = {
    "object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
    "number": "a number", "boolean": "true or false", "null": "null",
}
_PLAIN = {"string": str, "integer": int, "number": float, "boolean": bool,
          "null": type(None), "array": list, "object": dict}


class Schema:
    """One JSON Schema: ``errors(value)`` -> ``[(path, message), ...]``, empty when valid;
    ``decode(json_bytes)`` -> msgspec Structs, raising msgspec's errors."""

    def __init__(self, schema: dict, models: dict[str, type] | None = None):
        self.root = schema
        #: the object of a ``$defs`` entry -> the model Struct its type subclasses
        #: (``models``: by the entry's name)
        self._models = {id(schema["$defs"][name]): model
                        for name, model in (models or {}).items()}
        self._types: dict[int, Any] = {}
        self._checks: dict[type, Any] = {}  # marker type -> its check (see _checked)
        self._verdicts: dict[tuple, bool] = {}  # (marker, value as a key) -> its check's
        self.type = self._translate(schema)
        self._decoder = msgspec.json.Decoder(self.type, dec_hook=self._hook)
        self._reference = None

    def decode(self, data: bytes | str) -> Any:
        """JSON text straight into the schema's msgspec types (msgspec's errors raised)."""
        return self._decoder.decode(data)

    def convert(self, value: Any, kind: Any = None) -> Any:
        """Plain data as ``kind`` (by default, the whole schema); msgspec.ValidationError
        when it is not."""
        return msgspec.convert(value, self.type if kind is None else kind,
                               dec_hook=self._hook)

    def type_at(self, *keys: str) -> Any:
        """The msgspec type of the subschema at ``keys`` (``"properties", "topics",
        "items"``), references followed."""
        node = self.root
        for key in keys:
            node = self._resolve(node)[key]
        return self._translate(node)

    def accepts(self, value: Any, kind: Any = None) -> bool:
        """Whether msgspec takes ``value`` as ``kind`` (by default, the whole schema)."""
        try:
            self.convert(value, kind)
        except msgspec.ValidationError:
            return False
        return True

    def errors(self, value: Any, path: Path = ()) -> list[Error]:
        return [] if self.accepts(value) else self.explain(value, path)

    def explain(self, value: Any, path: Path = ()) -> list[Error]:
        """The violations of a value msgspec refused, listed by jsonschema."""
        return self._explain(self.root, value, path)

    # -- explaining, with jsonschema -----------------------------------------------------

    def _explain(self, schema: Any, value: Any, path: Path) -> list[Error]:
        """The violations of a value msgspec refused. Long arrays (and objects holding
        them) are narrowed first: a million plan entries through jsonschema take minutes."""
        schema = self._resolve(schema)
        if type(schema) is dict and type(value) is list and len(value) >= _MANY and \
                "items" in schema:
            errs = self._jsonschema({k: v for k, v in schema.items() if k != "items"},
                                    value, path)
            items = schema["items"]
            item, chunk = self._translate(items), list[self._translate(items)]
            for start in range(0, len(value), _MANY):
                if not self.accepts(value[start:start + _MANY], chunk):
                    for i in range(start, min(start + _MANY, len(value))):
                        if not self.accepts(value[i], item):
                            errs += self._explain(items, value[i], path + (i,))
            return errs
        if type(schema) is dict and type(value) is dict and "properties" in schema:
            large = {k for k, v in value.items() if type(v) is list and len(v) >= _MANY
                     and k in schema["properties"]}
            if large:
                props = {k: True if k in large else v for k, v in schema["properties"].items()}
                errs = self._jsonschema({**schema, "properties": props}, value, path)
                for k in sorted(large):
                    if not self.accepts(value[k], self._translate(schema["properties"][k])):
                        errs += self._explain(schema["properties"][k], value[k], path + (k,))
                return errs
        return self._jsonschema(schema, value, path)

    def _resolve(self, schema: Any) -> Any:
        while type(schema) is dict and "$ref" in schema:
            schema = self.root["$defs"][schema["$ref"][len("#/$defs/"):]]
        return schema

    def _jsonschema(self, schema: Any, value: Any, path: Path) -> list[Error]:
        import jsonschema  # the error path only: a clean run does not pay for its import
        if self._reference is None:
            integers = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
                "integer", lambda checker, v: type(v) is int)
            self._reference = jsonschema.validators.extend(
                jsonschema.Draft202012Validator, type_checker=integers)
        if type(schema) is dict and "$defs" in self.root:
            schema = {**schema, "$defs": self.root["$defs"]}
        validator = self._reference(schema, format_checker=self._reference.FORMAT_CHECKER)
        errs: list[Error] = []
        for error in sorted(validator.iter_errors(value),
                            key=lambda e: [(type(k) is str, k) for k in e.path]):
            errs += _worded(error, path + tuple(error.absolute_path))
        return errs

    # -- translating to msgspec types ----------------------------------------------------

    def _translate(self, schema: Any) -> Any:
        found = self._types.get(id(schema))
        if found is None:
            found = self._types[id(schema)] = self._type_of(schema)
        return found

    def _type_of(self, schema: Any) -> Any:
        if schema is True or schema == {}:
            return Any
        if schema is False:
            return self._checked(schema, lambda value: False)
        unknown = set(schema) - _SUPPORTED
        if unknown:
            raise ValueError(f"schema keyword(s) not supported: {sorted(unknown)}")
        if "$ref" in schema:
            if not schema["$ref"].startswith("#/$defs/"):
                raise ValueError(f"only local $defs references are supported, not "
                                 f"{schema['$ref']}")
            return self._translate(self._resolve(schema))
        if "anyOf" in schema:
            return self._any_of(schema)
        if "const" in schema or "enum" in schema:
            allowed = [schema["const"]] if "const" in schema else list(schema["enum"])
            if any(type(a) not in (str, int) for a in allowed) or len(schema) > 1 + \
                    len(set(schema) & _ANNOTATIONS):
                raise ValueError(f"only enums of strings and integers are supported: {schema}")
            return Literal[tuple(allowed)]
        if "format" in schema:
            if schema["format"] != "regex" or schema.get("type") != "string":
                raise ValueError(f"only strings of format regex are supported: {schema}")
            return self._checked(schema, _is_regex)
        names = schema.get("type")
        names = [names] if isinstance(names, str) else names
        if names is None:
            raise ValueError(f"a schema needs a type, a $ref, anyOf, const or enum: {schema}")
        members = [self._typed(name, schema) for name in names]
        return members[0] if len(members) == 1 else Union[tuple(members)]

    def _typed(self, name: str, schema: dict) -> Any:
        meta = {}
        if name in ("integer", "number"):
            meta = {"ge": schema.get("minimum"), "le": schema.get("maximum")}
        elif name == "string":
            meta = {"min_length": schema.get("minLength"),
                    "max_length": schema.get("maxLength"), "pattern": schema.get("pattern")}
        elif name == "array":
            meta = {"min_length": schema.get("minItems"), "max_length": schema.get("maxItems")}
        meta = {k: v for k, v in meta.items() if v is not None}
        if name == "array":
            kind: Any = list[self._translate(schema.get("items", True))]
        elif name == "object":
            kind = self._object(schema)
        else:
            kind = _PLAIN[name]
        return Annotated[kind, msgspec.Meta(**meta)] if meta else kind

    def _object(self, schema: dict) -> Any:
        props = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        keys = self._translate(schema["propertyNames"]) if "propertyNames" in schema else str
        if not props and not required:
            if extra is False:
                return Annotated[dict, msgspec.Meta(max_length=0)]
            return dict[keys, self._translate(extra)]
        if extra not in (True, False) or "propertyNames" in schema:
            # msgspec has no mapping with typed known keys and typed others: checked here
            known = {k: self._translate(v) for k, v in props.items()}
            rest_type = dict[keys, self._translate(extra)] if extra is not False else None
            names = list[keys] if "propertyNames" in schema else None
            needed = list(required)

            def check(value: Any) -> bool:
                if type(value) is not dict or any(k not in value for k in needed):
                    return False
                given = known.keys() & value.keys()
                rest = {k: v for k, v in value.items() if k not in given} if given else value
                if rest_type is None and rest:
                    return False
                try:
                    for k in given:
                        msgspec.convert(value[k], known[k], dec_hook=self._hook)
                    if rest_type is not None:
                        msgspec.convert(rest, rest_type, dec_hook=self._hook)
                    if names is not None:
                        msgspec.convert(list(given), names, dec_hook=self._hook)
                except msgspec.ValidationError:
                    return False
                return True
            return self._checked(schema, check, dict)
        model = self._models.get(id(schema))
        absent = {f.name: f.default for f in msgspec.structs.fields(model)} if model else {}
        fields, rename = [], {}
        for i, (key, sub) in enumerate(props.items()):
            attribute = key if key.isidentifier() and not keyword.iskeyword(key) \
                and not key.startswith("_") else f"field_{i}"
            rename[attribute] = key
            kind = self._translate(sub)
            # an absent value: what the model says it means, else UNSET
            fields.append((attribute, kind) if key in required else
                          (attribute, kind, absent.get(attribute, msgspec.UNSET)))
        for key in required:
            if key not in props:
                raise ValueError(f"required field {key!r} has no schema")
        if not absent.keys() <= set(rename):  # a field no file may set: msgspec would read it
            raise ValueError(f"{model.__name__} has fields the schema has not: "
                             f"{sorted(absent.keys() - set(rename))}")
        fields.sort(key=lambda f: len(f) == 3)  # required fields first
        if model is not None:  # the model's own type, each field as the schema checks it;
            # a value absent is written back absent, as UNSET is (see jsondoc._no_duplicates)
            return msgspec.defstruct(model.__name__, fields, bases=(model,), rename=rename,
                                     forbid_unknown_fields=extra is False, frozen=True,
                                     gc=False, kw_only=True, omit_defaults=True)
        return msgspec.defstruct("Object", fields, rename=rename,
                                 forbid_unknown_fields=extra is False, gc=False)

    def _any_of(self, schema: dict) -> Any:
        branches = [self._translate(s) for s in schema["anyOf"]]
        kinds = [_kind(b) for b in branches]
        # msgspec 0.22.0 crashes reading a list as a list-or-constrained-string union
        fragile = list in kinds and any(k is str and b is not str
                                        for k, b in zip(kinds, branches))
        try:  # msgspec takes a union of distinct kinds (an int or a string) as it is
            if len(set(kinds)) == len(branches) and not fragile:
                union = Union[tuple(branches)]
                msgspec.json.Decoder(union, dec_hook=self._hook)
                return union
        except TypeError:
            pass

        def check(value: Any) -> bool:
            for branch in branches:
                try:
                    msgspec.convert(value, branch, dec_hook=self._hook)
                    return True
                except msgspec.ValidationError:
                    pass
            return False
        return self._checked(schema, check)

    def _checked(self, schema: Any, check: Any, base: type = object) -> type:
        """A marker type msgspec hands to ``_hook`` with the plain value, for ``check``.
        The hook must return an instance of it: a mapping is kept as a ``dict`` subclass
        (a snapshot's config is read from it), any other value is not read."""
        marker = type("Checked", (base,), {"__slots__": ()} if base is object else {})
        self._checks[marker] = check
        return marker

    def _hook(self, kind: type, value: Any) -> Any:
        check = self._checks.get(kind)
        if check is None:
            raise msgspec.ValidationError("refused by the schema")
        # Files repeat the same few configs and counts: each is judged once (a value
        # holding a list or mapping is unhashable, and judged each time).
        key = (kind, memo_key(value))
        try:
            ok = self._verdicts[key]
        except (KeyError, TypeError) as missing:
            ok = check(value)
            if isinstance(missing, KeyError) and len(self._verdicts) < _VERDICTS:
                self._verdicts[key] = ok
        if not ok:
            raise msgspec.ValidationError("refused by the schema")
        return kind(value) if issubclass(kind, dict) else kind()


_VERDICTS = 65536  # values remembered per schema, at most


def memo_key(value: Any) -> tuple:
    """What a verdict on a scalar, or on a mapping of scalars, is remembered by: the value
    with the types of its values, for 1, 1.0 and True are equal in Python and not to a
    schema or to Kafka. Hashing it raises TypeError when a value is a list or mapping."""
    if isinstance(value, dict):
        return tuple(value.items()), tuple(map(type, value.values()))
    return type(value), value


def _is_regex(value: Any) -> bool:
    if type(value) is not str:
        return False
    try:
        re.compile(value)
    except (re.error, RecursionError, OverflowError):
        return False
    return True


def _kind(branch: Any) -> Any:
    """The msgspec kind of a union member (Annotated and Literal seen through)."""
    origin = getattr(branch, "__origin__", branch)
    if getattr(branch, "__metadata__", None) is not None:
        return _kind(origin)
    if origin is Literal:
        return type(branch.__args__[0])
    return origin


# -- messages --------------------------------------------------------------------------

def _worded(error: Any, path: Path) -> list[Error]:
    """jsonschema's error in policylint's words: one per unknown field, the described anyOf
    said as a whole (else as its first branch), a property name located at the name."""
    rule, schema, value = error.validator, error.schema, error.instance
    if rule == "additionalProperties" and schema.get("additionalProperties") is False:
        known = list(schema.get("properties", {}))
        return [(path + (k,), f"unknown field '{k}'{did_you_mean(k, known)}")
                for k in value if k not in known]
    if rule == "anyOf":
        if schema.get("description"):
            return [(path, f"{describe(value)} is not {schema['description']}")]
        first = [e for e in error.context if e.schema_path[0] == 0]
        return [w for e in first for w in _worded(e, path + tuple(e.path))]
    if rule == "propertyNames":
        return [(path + (e.instance,), _message(e)) for e in error.context] or \
            [(path, _message(error))]
    return [(path, _message(error))]


def _message(error: Any) -> str:
    rule, expected, value = error.validator, error.validator_value, error.instance
    if rule == "type":
        names = [expected] if isinstance(expected, str) else expected
        return f"{describe(value)} is not {' or '.join(_TYPE_WORDS[n] for n in names)}"
    if rule in ("enum", "const"):
        allowed = [expected] if rule == "const" else expected
        shown = ", ".join(json.dumps(a) for a in allowed)
        return f"{describe(value)} must be " + (shown if len(allowed) == 1 else
                                                f"one of {shown}")
    if rule == "required":
        return f"missing required field '{re.match(r'.(.*?). is a', error.message).group(1)}'"
    if rule == "minimum":
        return f"{value} is less than the minimum {expected}"
    if rule == "maximum":
        return f"{_short_number(value)} is greater than the maximum {expected}"
    if rule == "minLength":
        return "must not be empty" if expected == 1 else \
            f"must be at least {expected} characters long"
    if rule == "maxLength":
        return f"is longer than {expected} characters"
    if rule == "pattern":
        return f"{describe(value)} does not match {expected}"
    if rule == "minItems":
        return "must not be empty" if expected == 1 else f"must have at least {expected} items"
    if rule == "maxItems":
        return f"must have at most {expected} items"
    if rule == "false":
        return "is not allowed here"
    if rule == "format":
        return f"{describe(value)} is not a valid regular expression"
    return error.message


def _short_number(value: int | float) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:10]}...({len(text)} digits)"


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


def did_you_mean(word: Any, candidates: Any) -> str:
    """``; did you mean 'x'?`` with the closest of the real candidates, or nothing."""
    import difflib
    close = difflib.get_close_matches(str(word), [str(c) for c in candidates], n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


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
