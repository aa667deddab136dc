"""Rules, reporters and input formats are found through entry points, built-ins included.

A ``policylint.rules`` entry point names a Rule class (``ACME001 = "acme.naming:TopicNaming"``)
or a package of rule modules (``acme = "acme.rules"``): each module of that package is
imported, its sub-packages' too, and every Rule class it defines with a ``code`` is
registered (a base class without one is not), so that adding a rule to a pack is adding its
module. A ``policylint.reporters`` entry point names a module with
``render(result, **options) -> str``; its name is the ``--format``.
"""

from __future__ import annotations

import os
import pkgutil
import re
import sys
from functools import lru_cache
from importlib import import_module
from types import ModuleType
from typing import Any, Iterator, NamedTuple

from .model import SEVERITIES
from .rule import SPARK_FRAMES, TARGETS, Reads, Rule

GROUP = "policylint.rules"
REPORTERS = "policylint.reporters"
FORMATS = "policylint.formats"
#: policylint's own input formats (``policylint.sources.formats`` says what one is)
BUILT_IN_FORMATS = ("strimzi", "cfk", "jikkou", "koperator", "aiven", "conduktor", "topicctl",
                    "julieops", "kafka_gitops", "terraform", "terraform_plan", "topics_describe",
                    "snapshot", "reassignment", "kafka_tools")
#: the output formats policylint ships (pyproject.toml's policylint.reporters, the same)
BUILT_IN_REPORTERS = ("text", "concise", "json", "sarif", "github", "markdown", "junit",
                      "gitlab", "checkstyle")
_CODE = re.compile(r"[A-Z]{1,5}[0-9]{3,4}")
_NAME = re.compile(r"[a-z][a-z0-9-]*")


class RegistryError(Exception):
    pass


# policylint's own entry points, for a checkout run from source without being installed
_BUILT_IN = {GROUP: {"policylint": "policylint.rules"},
             REPORTERS: {name: f"policylint.reporters.{name}" for name in BUILT_IN_REPORTERS},
             FORMATS: {name: f"policylint.sources.{name}" for name in BUILT_IN_FORMATS}}


class EntryPoint(NamedTuple):
    name: str
    value: str  # "module" or "module:attribute"
    group: str

    def load(self) -> Any:
        module, _, attribute = self.value.partition(":")
        loaded = import_module(module.strip())
        for part in filter(None, attribute.strip().split(".")):
            loaded = getattr(loaded, part)
        return loaded


@lru_cache(maxsize=1)
def _installed() -> dict[str, list[EntryPoint]]:
    """Every installed distribution's entry points by group, read once from the
    ``entry_points.txt`` of each ``*.dist-info``/``*.egg-info`` on ``sys.path`` (the first
    distribution of a name wins, as with ``importlib.metadata``, whose import alone costs a
    pre-commit run ~20 ms: it pulls in email, zipfile and csv)."""
    groups: dict[str, list[EntryPoint]] = {}
    seen: set[str] = set()
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:  # a zip file, or gone
            continue
        for name in names:
            stem, dot, kind = name.rpartition(".")
            if kind not in ("dist-info", "egg-info"):
                continue
            project = re.sub(r"[-_.]+", "-", stem.split("-")[0]).lower()
            if project in seen:
                continue
            seen.add(project)
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            _parse_entry_points(text, groups)
    return groups


def _parse_entry_points(text: str, groups: dict[str, list[EntryPoint]]) -> None:
    """``entry_points.txt``: INI sections named by group, ``name = value`` lines."""
    group = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line[1:-1].strip()
        elif "=" in line and group:
            name, _, value = line.partition("=")
            value = value.split("[", 1)[0]  # "module:attr [extra]": extras are pip's business
            groups.setdefault(group, []).append(EntryPoint(name.strip(), value.strip(), group))


def _entry_points(group: str) -> list[EntryPoint]:
    """The group's entry points; policylint's own ones even when it is not installed (a
    plain checkout on ``PYTHONPATH``), declared in pyproject.toml all the same."""
    found = list(_installed().get(group, []))
    values = {ep.value for ep in found}
    return found + [EntryPoint(name, value, group) for name, value in _BUILT_IN[group].items()
                    if value not in values]


@lru_cache(maxsize=1)
def all_rules() -> dict[str, Rule]:
    """Every registered rule by code, sorted by code."""
    rules: dict[str, Rule] = {}
    names: dict[str, str] = {}
    for ep in sorted(_entry_points(GROUP), key=lambda ep: ep.name):
        for cls in _rule_classes(ep):
            if cls.code in rules and type(rules[cls.code]) is not cls:
                raise RegistryError(f"rule code {cls.code} is registered twice "
                                    f"({type(rules[cls.code]).__module__} and {cls.__module__})")
            if cls.name in names and names[cls.name] != cls.code:
                raise RegistryError(f"rule name {cls.name} is used by {names[cls.name]} and "
                                    f"{cls.code}")
            rules[cls.code] = cls()
            names[cls.name] = cls.code
    return dict(sorted(rules.items()))


def _rule_classes(ep: EntryPoint) -> Iterator[type[Rule]]:
    where = f"rule plugin {ep.name} ({ep.value})"
    loaded = _load(ep, where)
    if not isinstance(loaded, ModuleType):
        _check(loaded, where)
        yield loaded
        return
    modules = [loaded] + _modules(loaded, where)
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) \
                    and value.__module__ == module.__name__ and "code" in vars(value):
                _check(value, f"{where}: {module.__name__}.{value.__name__}")
                yield value


def _modules(package: ModuleType, where: str) -> list[ModuleType]:
    """The modules of a package, and of its sub-packages (a pack's rule families)."""
    found = []
    for info in pkgutil.iter_modules(getattr(package, "__path__", [])):
        module = _load_module(f"{package.__name__}.{info.name}", where)
        found.append(module)
        if info.ispkg:
            found += _modules(module, where)
    return found


def _load(ep: EntryPoint, where: str) -> Any:
    try:
        return ep.load()
    except Exception as exc:  # a broken plugin must not look like a lint result
        raise RegistryError(f"{where} failed to load: {type(exc).__name__}: "
                            f"{_first_line(exc)}") from None


def _load_module(name: str, where: str) -> ModuleType:
    try:
        return import_module(name)
    except Exception as exc:
        raise RegistryError(f"{where} failed to load {name}: {type(exc).__name__}: "
                            f"{_first_line(exc)}") from None


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [""])[0]


def _check(cls: Any, where: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Rule)):
        raise RegistryError(f"{where} is not a policylint Rule")
    problems = []
    if not _CODE.fullmatch(str(getattr(cls, "code", ""))):
        problems.append("code must look like PL123")
    if not _NAME.fullmatch(str(getattr(cls, "name", ""))):
        problems.append("name must be lower-case words joined by '-'")
    if cls.severity not in SEVERITIES:
        problems.append(f"severity must be one of {', '.join(SEVERITIES)}")
    reads = cls.reads
    if not isinstance(reads, Reads):
        problems.append("reads must be a policylint.rule.Reads")
    else:
        if not isinstance(reads.targets, tuple) or set(reads.targets) - set(TARGETS):
            problems.append(f"reads.targets must be a tuple among {', '.join(TARGETS)}")
        if reads.spark_frame is not None and reads.spark_frame not in SPARK_FRAMES:
            problems.append(f"reads.spark_frame must be one of {', '.join(SPARK_FRAMES)}")
    if problems:
        raise RegistryError(f"{where}: " + "; ".join(problems))


def find(key: str) -> Rule | None:
    """A rule by code (``PL301``) or name (``min-isr-exceeds-rf``)."""
    rules = all_rules()
    if key.upper() in rules:
        return rules[key.upper()]
    return next((r for r in rules.values() if r.name == key.lower()), None)


def matches(rule: Rule, selectors: list[str]) -> bool:
    """A selector is a code, a code prefix (``PL2``, ``PL30``) or a rule name."""
    return any(rule.code.startswith(s.upper()) or rule.name == s.lower()
               for s in selectors)


def check_selectors(selectors: list[str], extra: list[Rule] = ()) -> None:
    """RegistryError for a selector no rule matches (``extra``: the policy's own rules)."""
    rules = [*all_rules().values(), *extra]
    unknown = [s for s in selectors if not any(matches(r, [s]) for r in rules)]
    if unknown:
        from .schema import did_you_mean
        known = [word for r in rules for word in (r.code, r.name)]
        raise RegistryError(f"no rule matches {', '.join(unknown)}"
                            f"{did_you_mean(unknown[0], known)} (see 'policylint rules')")


@lru_cache(maxsize=1)
def reporter_formats() -> dict[str, EntryPoint]:
    """Output formats by name."""
    return {ep.name: ep for ep in _entry_points(REPORTERS)}


def reporter(fmt: str) -> ModuleType:
    """The module that renders ``fmt``."""
    where = f"reporter plugin {fmt} ({reporter_formats()[fmt].value})"
    module = _load(reporter_formats()[fmt], where)
    if not callable(getattr(module, "render", None)):
        raise RegistryError(f"{where} has no render(result, **options)")
    return module
