"""The format door: every input format is one module, found through the entry-point group
``policylint.formats`` (policylint's own formats come through it as a plugin's do).

A format module says three things:

- ``KINDS``: ``{kind: role}``, the kinds of document it reads and what each yields. Roles:
  ``"topics"`` (topic declarations), ``"cluster"`` (a cluster description), ``"nodepool"``,
  ``"configmap"`` and ``"module"`` (documents other documents of the format refer to:
  Strimzi's node pools, Jikkou's ConfigMaps, Terraform's module calls), ``"plan"``,
  ``"snapshot"``, ``"other"`` (another tool's file: recognised, not checked).
- how a document of it is recognised, by content alone: ``API_KINDS``,
  ``{(apiVersion group, kind): kind}`` for resources (``("kafka.strimzi.io", "KafkaTopic")``:
  the group is the ``apiVersion`` before its ``/``; a whole ``apiVersion`` names one
  version of them apart), and/or ``detect(data) -> kind | None``
  for other shapes, asked of every document no ``API_KINDS`` names, in ``ORDER`` (lower
  first; default 50).
- ``schema(kind) -> dict``: the kind's JSON Schema (PL101 findings are its violations);
  ``topics(doc, fields, related) -> list[TopicSpec]`` for the ``"topics"`` role and
  ``profile(doc, fields, related) -> ClusterProfile`` for ``"cluster"``: ``fields`` reads the
  document's values (an unknown value is ``UNKNOWN``), ``related`` maps a role to the
  documents of the run with it (Strimzi's node pools, Jikkou's ConfigMaps). Optionally,
  ``judges(doc, path) -> bool``: whether a violation at ``path`` is the format's to report
  (a Terraform plan's resources other than topics are Terraform's, whatever their shape).

What differs between formats (field names, ``-1`` for the broker default, snake_case config
keys, template placeholders) is resolved here and in the format's module: no rule knows a
format.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import ModuleType
from typing import Any, Iterable

from ..model import TopicSpec
from ..schema import Schema
from .document import Document

ROLES = ("topics", "cluster", "nodepool", "configmap", "module", "plan", "snapshot", "other")
REFERENCED = ("nodepool", "configmap", "module")  # roles of documents others refer to
#: a template placeholder: ``${VAR}`` (Terraform, envsubst), ``{{ ... }}`` (Helm, Jinja),
#: ``{% ... %}`` (Jinja)
PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\{\{.*?\}\}|\{%.*?%\}", re.S)


class _Unknown:
    """A value policylint cannot know: a template placeholder, or a value that broke its
    format's schema (reported as PL101 on its own)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
#: what a format's builder raises on a shape its schema refused (the PL101 findings say why)
REFUSED = (KeyError, IndexError, TypeError, ValueError, AttributeError)


def is_placeholder(value: Any) -> bool:
    return type(value) is str and ("$" in value or "{" in value) and \
        PLACEHOLDER.search(value) is not None


class Fields:
    """A document's values as a format reads them: ``get(path)`` is the value, ``None``
    when absent, or ``UNKNOWN`` when it is a placeholder or broke the schema (``bad``: the
    paths of its schema errors)."""

    __slots__ = ("doc", "bad", "placeholders")

    def __init__(self, doc: Document, bad: Iterable[tuple] = ()):
        self.doc, self.bad = doc, set(bad)
        self.placeholders = doc.source.templated()

    def get(self, path: tuple, default: Any = None) -> Any:
        value = self.doc.get(path, default)
        if self.bad and any(path[:len(b)] == b for b in self.bad):
            return UNKNOWN if value is not default else default  # it (or its parent) broke
        if self.placeholders and is_placeholder(value):
            return UNKNOWN
        return value

    def count(self, path: tuple, default: tuple = (-1,), strings: bool = False) -> Any:
        """A count (RF, partitions): an int, None for the broker default (absent, or one
        of ``default``), or UNKNOWN. ``strings``: the format writes it as a string ("3",
        JulieOps' config)."""
        value = self.get(path)
        if value is None or value is UNKNOWN:
            return value
        if strings and type(value) is str and _COUNT.fullmatch(value):
            value = int(value)
        if type(value) is not int:
            return UNKNOWN  # its schema said so (PL101)
        return None if value in default else value

    def annotations(self, path: tuple) -> dict:
        """A mapping of metadata (annotations, labels) as written; {} when it is none."""
        found = self.get(path)
        return found if type(found) is dict else {}

    def mapping(self, path: tuple) -> dict:
        """A mapping of scalars (a config): its known entries; the unknown ones under
        ``UNKNOWN``. Values that are lists are comma-joined, as the operators send them."""
        found = self.get(path)
        if type(found) is not dict:
            return {}
        result = {}
        for key, value in found.items():
            if type(key) is not str:
                continue
            value = self.get(path + (key,))
            if type(value) is list:
                value = joined(value)
            result[key] = value if value is UNKNOWN or type(value) in SCALARS else UNKNOWN
        return result


SCALARS = {str, int, float, bool, type(None)}
_COUNT = re.compile(r"-?[0-9]{1,9}")


def joined(values: list) -> Any:
    """A list config value as Kafka receives it from the operators: comma-joined."""
    if not all(type(v) in SCALARS and v is not None for v in values):
        return UNKNOWN  # its schema said so (PL101)
    return ",".join("true" if v is True else "false" if v is False else str(v) for v in values)


def declared(doc: Document, *, kind: str, name: Any, paths: dict, rf: Any, partitions: Any,
             config: dict, config_paths: dict | None = None, **rest: Any) -> TopicSpec | None:
    """A topic declaration from a format's values: unknown ones (``UNKNOWN``) are left out
    and named in ``TopicSpec.unknown``; a name that is a placeholder is kept as written
    (``${topic}``: the rules that judge names skip it). None without a name."""
    unknown = {key for key, value in config.items() if value is UNKNOWN}
    if name is UNKNOWN:
        name = doc.get(paths["name"])
        unknown.add("name")
    if type(name) is not str or not name:
        return None
    if unknown:
        config = {key: value for key, value in config.items() if value is not UNKNOWN}
    if rf is UNKNOWN:
        unknown.add("rf")
        rf = None
    if partitions is UNKNOWN:
        unknown.add("partitions")
        partitions = None
    return TopicSpec(name=name, rf=rf, partitions=partitions, config=config, doc=doc,
                     paths=paths, unknown=frozenset(unknown), config_paths=config_paths,
                     kind=kind, **rest)


def known(value: Any) -> Any:
    """None for an unknown value."""
    return None if value is UNKNOWN else value


# --- the registered formats -------------------------------------------------------------

@lru_cache(maxsize=1)
def registered() -> tuple[ModuleType, ...]:
    """Every format module, in the order they are asked about shapes."""
    from ..registry import FORMATS, RegistryError, _entry_points, _load
    modules = []
    for ep in _entry_points(FORMATS):
        module = _load(ep, f"format plugin {ep.name} ({ep.value})")
        kinds = getattr(module, "KINDS", None)
        if not isinstance(kinds, dict) or set(kinds.values()) - set(ROLES) or not (
                callable(getattr(module, "detect", None)) or
                isinstance(getattr(module, "API_KINDS", None), dict)):
            raise RegistryError(f"format plugin {ep.name} ({ep.value}) needs KINDS "
                                f"({{kind: role}}, roles among {', '.join(ROLES)}) and "
                                "API_KINDS or detect(data)")
        modules.append(module)
    return tuple(sorted(modules, key=lambda m: getattr(m, "ORDER", 50)))


class _Door:
    """The registered formats, indexed once: the kinds of resources by (apiVersion group,
    kind), the formats that recognise other shapes, the format and the role of each kind."""

    def __init__(self, modules: tuple[ModuleType, ...]):
        self.resources: dict[tuple[str, str], str] = {}
        self.shapes = [module for module in modules if callable(getattr(module, "detect", None))]
        self.by_kind: dict[str, ModuleType] = {}
        for module in modules:
            for key, kind in getattr(module, "API_KINDS", {}).items():
                self.resources.setdefault(key, kind)
            for kind in module.KINDS:
                self.by_kind.setdefault(kind, module)
        self.roles = {kind: module.KINDS[kind] for kind, module in self.by_kind.items()}


_door: _Door | None = None


def _index() -> _Door:
    global _door
    if _door is None:
        _door = _Door(registered())
    return _door


def reset() -> None:
    """Forget the registered formats (a plugin installed since they were read)."""
    global _door
    _door = None
    registered.cache_clear()
    validator.cache_clear()


def detect(data: Any) -> str | None:
    """The kind of a document, by content alone."""
    if type(data) is not dict:
        return None
    door = _door or _index()
    api, kind = data.get("apiVersion"), data.get("kind")
    if type(api) is str and type(kind) is str:
        found = door.resources.get((api, kind)) or \
            door.resources.get((api.partition("/")[0], kind))
        if found:
            return found
    for module in door.shapes:
        kind = module.detect(data)
        if kind and _recognised(kind, data):
            return kind
    return None


_TOP: dict[str, frozenset | None] = {}  # kind -> its schema's top-level keys (None: any)


def unclaimed(data: Any) -> str | None:
    """Why a document no format reads is not the one its shape suggests: a format that
    claims it by shape, refused because most of its top-level keys are not that format's
    (``_recognised``); None when no format's shape fits it at all."""
    if type(data) is not dict:
        return None
    for module in (_door or _index()).shapes:
        kind = module.detect(data)
        if kind and not _recognised(kind, data):
            foreign = sorted(str(k) for k in data if k not in (_TOP[kind] or ()))
            tool = module.__name__.rsplit(".", 1)[-1].replace("_", "-")
            return (f"shaped like a {tool} file, but most of its top-level keys are none of "
                    f"that format's ({', '.join(foreign[:5])}"
                    f"{', ...' if len(foreign) > 5 else ''}): not read as one")
    return None


def _recognised(kind: str, data: dict) -> bool:
    """Whether a document a format claims by its shape has mostly that format's top-level
    keys: an in-house spec that also holds a ``topics:`` map is not kafka-gitops's."""
    if kind not in _TOP:  # only a schema that refuses other keys would report them (PL101)
        module = format_of(kind)  # (a kind policylint only names has no schema)
        schema = module.schema(kind) if hasattr(module, "schema") else {}
        properties = schema.get("properties")
        _TOP[kind] = frozenset(properties) if isinstance(properties, dict) and \
            schema.get("additionalProperties") is False else None
    known = _TOP[kind]
    if known is None or len(data) < 2:
        return True
    return sum(key in known for key in data) * 2 > len(data)


def format_of(kind: str) -> ModuleType:
    return (_door or _index()).by_kind[kind]


def role(kind: str | None) -> str | None:
    """What a kind of document yields (None: not a kind any format reads)."""
    return (_door or _index()).roles.get(kind)


@lru_cache(maxsize=None)
def validator(kind: str) -> Schema:
    """The kind's schema, checked by msgspec and explained by jsonschema; decoded into
    the model's types where its format says (``MODELS``: kind -> ``$defs`` entry -> type)."""
    module = format_of(kind)
    return Schema(module.schema(kind), getattr(module, "MODELS", {}).get(kind))


