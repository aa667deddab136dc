"""Rules are found through the ``policylint.rules`` entry point group, built-ins included."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib.metadata import entry_points

from .model import SEVERITIES
from .rule import TARGETS, Rule

GROUP = "policylint.rules"
_CODE = re.compile(r"[A-Z]{1,5}[0-9]{3,4}")
_NAME = re.compile(r"[a-z][a-z0-9-]*")


class RegistryError(Exception):
    pass


@lru_cache(maxsize=1)
def all_rules() -> dict[str, Rule]:
    """Every registered rule by code, sorted by code."""
    rules: dict[str, Rule] = {}
    names: dict[str, str] = {}
    for ep in entry_points(group=GROUP):
        try:
            cls = ep.load()
        except Exception as exc:  # a broken plugin must not look like a lint result
            raise RegistryError(f"rule plugin {ep.name} ({ep.value}) failed to load: "
                                f"{exc}") from None
        _check(cls, ep.value)
        if cls.code in rules and type(rules[cls.code]) is not cls:
            raise RegistryError(f"rule code {cls.code} is registered twice "
                                f"({type(rules[cls.code]).__module__} and {cls.__module__})")
        if cls.name in names and names[cls.name] != cls.code:
            raise RegistryError(f"rule name {cls.name} is used by {names[cls.name]} and "
                                f"{cls.code}")
        rules[cls.code] = cls()
        names[cls.name] = cls.code
    return dict(sorted(rules.items()))


def _check(cls: type, where: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Rule)):
        raise RegistryError(f"{where} is not a policylint Rule")
    problems = []
    if not _CODE.fullmatch(getattr(cls, "code", "")):
        problems.append("code must look like PL123")
    if not _NAME.fullmatch(getattr(cls, "name", "")):
        problems.append("name must be lower-case words joined by '-'")
    if cls.severity not in SEVERITIES:
        problems.append(f"severity must be one of {', '.join(SEVERITIES)}")
    if set(cls.targets) - set(TARGETS):
        problems.append(f"targets must be among {', '.join(TARGETS)}")
    if problems:
        raise RegistryError(f"rule {where}: " + "; ".join(problems))


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


def check_selectors(selectors: list[str]) -> None:
    rules = all_rules().values()
    unknown = [s for s in selectors if not any(matches(r, [s]) for r in rules)]
    if unknown:
        raise RegistryError(f"no rule matches {', '.join(unknown)} (see 'policylint rules')")
