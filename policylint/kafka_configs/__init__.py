"""Kafka's topic-level configs per release, as data (``topic_configs.json``, derived from
Kafka's ``LogConfig`` by ``derive.py``), and how Kafka reads a value of each type.

The Kafka version a topic is judged by is its cluster's (snapshot or profile
``kafka_version``, Strimzi ``spec.kafka.version``), else the policy's ``kafka_version``,
else the newest known; a version between two known ones is judged by the older.
"""

from __future__ import annotations

import json
import pkgutil
import re
from functools import lru_cache
from typing import Any

INT_RANGE = (-2**31, 2**31 - 1)
_THROTTLED = re.compile(r"([0-9]+:[0-9]+)?")
# MetadataVersion: 0.x releases by three parts, later ones by two; an -IVn suffix names an
# inter-broker protocol step within one
_OLD_VERSIONS = {"0.8.0", "0.8.1", "0.8.2", "0.9.0", "0.10.0", "0.10.1", "0.10.2", "0.11.0"}
_IV = re.compile(r"-IV[0-9]+$")
LONG_RANGE = (-2**63, 2**63 - 1)
_INTEGER = re.compile(r"[+-]?\d+")

# Broker-level names that people put at topic level (kafka-configs.md): name -> the topic
# key that does the same, or None where the setting is the broker's alone.
BROKER_KEYS: dict[str, str | None] = {
    "log.retention.ms": "retention.ms", "log.retention.minutes": "retention.ms",
    "log.retention.hours": "retention.ms", "log.retention.bytes": "retention.bytes",
    "log.segment.bytes": "segment.bytes", "log.roll.ms": "segment.ms",
    "log.roll.hours": "segment.ms", "log.roll.jitter.ms": "segment.jitter.ms",
    "log.roll.jitter.hours": "segment.jitter.ms",
    "log.index.size.max.bytes": "segment.index.bytes",
    "log.index.interval.bytes": "index.interval.bytes",
    "log.flush.interval.messages": "flush.messages", "log.flush.interval.ms": "flush.ms",
    "log.cleanup.policy": "cleanup.policy",
    "log.cleaner.delete.retention.ms": "delete.retention.ms",
    "log.cleaner.min.compaction.lag.ms": "min.compaction.lag.ms",
    "log.cleaner.max.compaction.lag.ms": "max.compaction.lag.ms",
    "log.cleaner.min.cleanable.ratio": "min.cleanable.dirty.ratio",
    "log.segment.delete.delay.ms": "file.delete.delay.ms",
    "message.max.bytes": "max.message.bytes", "log.preallocate": "preallocate",
    "log.message.timestamp.type": "message.timestamp.type",
    "log.message.timestamp.difference.max.ms": "message.timestamp.difference.max.ms",
    "log.message.timestamp.before.max.ms": "message.timestamp.before.max.ms",
    "log.message.timestamp.after.max.ms": "message.timestamp.after.max.ms",
    "log.message.format.version": "message.format.version",
    "log.message.downconversion.enable": "message.downconversion.enable",
    "log.local.retention.ms": "local.retention.ms",
    "log.local.retention.bytes": "local.retention.bytes",
    "num.partitions": None, "default.replication.factor": None,
    "auto.create.topics.enable": None,
}


@lru_cache(maxsize=None)
def _versions() -> dict[str, dict[str, dict]]:
    # pkgutil, not importlib.resources, whose import alone costs a hook run 2 ms
    versions = json.loads(pkgutil.get_data(__package__, "topic_configs.json"))["versions"]
    for release, specs in versions.items():  # its valid values are the release's own
        for spec in specs.values():
            if spec.get("metadata_version"):
                spec["release"] = release
    return versions


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:2]) or (0,)


def has_version(version: Any) -> bool:
    """Whether a version as an input writes it names one (``4.1.0``, ``3.7``, ``4``)."""
    return isinstance(version, (str, int, float)) and bool(re.search(r"\d", str(version)))


def at_least(release: str, version: str) -> bool:
    """Whether a known release is ``version`` or later."""
    return _key(release) >= _key(version)


@lru_cache(maxsize=None)
def known_versions() -> list[str]:
    return sorted(_versions(), key=_key)


#: releases announced, not out: judged only where an input names them (kafka_versions,
#: --kafka-version), and what only they refuse is a warning that names them
ANNOUNCED = frozenset({"5.0"})


def newest() -> str:
    """The newest release out."""
    return [v for v in known_versions() if v not in ANNOUNCED][-1]


@lru_cache(maxsize=256, typed=True)  # 4 and 4.0 are equal, and not the same version
def resolve(version: Any) -> str:
    """The known release a Kafka version is judged by (``None``: the newest)."""
    known = known_versions()
    if not isinstance(version, (str, int, float)) or not re.search(r"\d", str(version)):
        return newest()
    wanted = _key(str(version))
    older = [v for v in known if _key(v) <= wanted]
    return older[-1] if older else known[0]


#: the oldest release judged when nothing says which: Kafka 3.0 (KIP-724's record format)
OLDEST = "3.0"
_CONSTRAINT = re.compile(r"\s*(>=|<=|>|<|==)?\s*([0-9]+(?:\.[0-9]+)?)\s*")


@lru_cache(maxsize=64)
def window(spec: str | None = None) -> tuple[str, ...]:
    """The known releases a cluster may run when no input says which: from 3.0 to the
    newest out, or those a policy's ``kafka_versions`` admits (">=3.7", ">=3.6,<4.0"; an
    announced release only where it names one at or above it: ">=4.0,<=5.0", ">=5.0")."""
    reaches = max((_key(m.group(2)) for part in (spec or "").split(",")
                   if (m := _CONSTRAINT.fullmatch(part)) and m.group(1) in (None, "==", ">=",
                                                                             "<=", ">")),
                  default=None)
    releases = [v for v in known_versions() if _key(v) >= _key(OLDEST) and (
        v not in ANNOUNCED or (reaches is not None and reaches >= _key(v)))]
    for part in (spec or "").split(","):
        match = _CONSTRAINT.fullmatch(part)
        if not match:
            continue
        op, bound = match.group(1) or "==", _key(match.group(2))
        test = {">=": lambda k: k >= bound, "<=": lambda k: k <= bound,
                ">": lambda k: k > bound, "<": lambda k: k < bound,
                "==": lambda k: k[:len(bound)] == bound}[op]
        releases = [v for v in releases if test(_key(v))]
    return tuple(releases) or (newest(),)


def span(releases: tuple[str, ...] | list[str]) -> str:
    """``4.0 to 4.3``, ``3.6``: a run of known releases as a message says it."""
    return releases[0] if len(releases) == 1 else f"{releases[0]} to {releases[-1]}"


def table(version: str) -> dict[str, dict]:
    """key -> spec (``type``, ``default``, ``min``/``max``, ``values``, ``subset``,
    ``deprecated``) of the topic configs of a known release."""
    return _versions()[version]


def removed_in(key: str, version: str) -> str | None:
    """The release that removed ``key``, if it is gone by ``version``."""
    known = known_versions()
    had = None
    for v in known[:known.index(version) + 1]:
        if key in table(v):
            had = v
        elif had is not None:
            return v
    return None


@lru_cache(maxsize=None)
def ever_known() -> frozenset:
    """Every key a topic config of some known release."""
    return frozenset(key for version in known_versions() for key in table(version))


def added_in(key: str) -> str | None:
    return next((v for v in known_versions() if key in table(v)), None)


@lru_cache(maxsize=65536)
def status(key: str, release: str) -> str:
    """What ``key`` is at topic level under ``release``: "deprecated" or "known" (a topic
    config), "removed" (an earlier release had it), "broker" (a broker-level name, see
    BROKER_KEYS) or "unknown"."""
    spec = table(release).get(key)
    if spec is not None:
        return "deprecated" if spec.get("deprecated") else "known"
    if key in ever_known() and removed_in(key, release):
        return "removed"
    return "broker" if key in BROKER_KEYS else "unknown"


def closest(key: str, version: str) -> str | None:
    import difflib  # only for an unknown key: not on every run's import path
    found = difflib.get_close_matches(key, list(table(version)), n=1, cutoff=0.75)
    return found[0] if found else None


def only_match(word: str, choices: list[str]) -> str | None:
    """The one choice close to ``word`` (None: none, or more than one: no guess)."""
    import difflib
    found = difflib.get_close_matches(word, choices, n=2, cutoff=0.85)
    return found[0] if len(found) == 1 else None


@lru_cache(maxsize=65536)
def _judged(release: str, key: str, kind: type, value: Any) -> tuple[str | None, Any]:
    spec = table(release).get(key)
    if spec is None:
        return None, None
    found = problem(spec, value)
    return found, None if found else parsed(spec, value)


def judge(release: str, key: str, value: Any) -> tuple[str | None, Any]:
    """(why Kafka refuses it, else None; the value as Kafka parses it) of a topic config
    value under ``release``; (None, None) for a key that is no topic config there.
    Remembered, and judged once for all the releases whose spec of the key is the same (a
    topic judged on a window of releases): a repository repeats the same few values."""
    return _judged(_alike(release, key), key, type(value), value)


@lru_cache(maxsize=65536)
def _alike(release: str, key: str) -> str:
    """The oldest known release whose spec of ``key`` is ``release``'s."""
    spec = table(release).get(key)
    return next((v for v in known_versions() if table(v).get(key) == spec), release)


def parsed_config(release: str, config: dict) -> dict:
    """A topic's config as Kafka parses it under ``release`` (values it refuses, and keys
    that are no topic config, left out)."""
    values = {}
    for key, value in config.items():
        value = judge(release, key, value)[1]
        if value is not None:
            values[key] = value
    return values


def as_text(value: Any) -> str:
    """A config value as Kafka receives it: Strimzi and the admin client send strings."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parsed(spec: dict, value: Any) -> Any:
    """The value as Kafka parses it for the key's type; ValueError with Kafka's reason."""
    kind = spec["type"]
    if value is None:
        raise ValueError("has no value")
    if kind in ("int", "long", "short"):
        text = as_text(value).strip()
        if isinstance(value, bool) or isinstance(value, float) or not _INTEGER.fullmatch(text):
            raise ValueError("is not a long integer" if kind == "long" else "is not an integer")
        if len(text.lstrip("+-0")) > 19:  # beyond any long: not read into a Python int
            raise ValueError(f"does not fit Kafka's {kind} type")
        number = int(text)
        lo, hi = LONG_RANGE if kind == "long" else INT_RANGE
        if not lo <= number <= hi:
            raise ValueError(f"does not fit Kafka's {kind} type")
        return number
    if kind == "double":
        if isinstance(value, bool):
            raise ValueError("is not a number")
        try:
            return float(as_text(value).strip())
        except ValueError:
            raise ValueError("is not a number") from None
    if kind == "boolean":
        text = as_text(value).strip().lower()
        if text not in ("true", "false"):
            raise ValueError("is not true or false")
        return text == "true"
    if kind == "list":  # ConfigDef: split on commas, empty items kept ("a," is a, "")
        text = as_text(value).strip()
        return [item.strip() for item in text.split(",")] if text else []
    return as_text(value).strip()


_YES, _NO = {"yes", "y", "on", "1"}, {"no", "n", "off", "0"}
_WHOLE = re.compile(r"([+-]?\d[\d_]*)(?:\.0*)?")


def respelled(spec: dict, value: Any) -> Any:
    """``value`` written as Kafka parses it, where it means one thing Kafka refuses as
    written: a YAML 1.1 boolean word (``"yes"``, ``off``) for a boolean, a whole number
    written with a fraction or underscores (``2.0``, ``"1_000"``) for an integer. Of the
    type it was written in (a string stays a string); None when there is no such value."""
    kind, text = spec["type"], as_text(value).strip().lower()
    if kind == "boolean" and not isinstance(value, bool):
        word = True if text in _YES else False if text in _NO else None
        if word is None:
            return None
        return as_text(word) if isinstance(value, str) else word
    whole = _WHOLE.fullmatch(text) if kind in ("int", "long") and \
        not isinstance(value, bool) else None
    if whole is None:
        return None
    fixed = whole.group(1).replace("_", "")
    if problem(spec, fixed) is not None or fixed == text:
        return None
    return fixed if isinstance(value, str) else int(fixed)


def problem(spec: dict, value: Any) -> str | None:
    """Why Kafka refuses ``value`` for a key of ``spec`` (None: it accepts it)."""
    try:
        value = parsed(spec, value)
    except ValueError as exc:
        return str(exc)
    if "subset" in spec:  # ValidList.in: each item one of them; repeats and [] pass
        allowed = spec["subset"]
        if any(v not in allowed for v in value):
            return f"must be a list of {', '.join(allowed)}"
        return None
    if spec.get("throttled_replicas"):  # ThrottledReplicaListValidator
        if "".join(value) == "*" or all(_THROTTLED.fullmatch(v) for v in value):
            return None
        return "must be * or a list of partition:broker (0:101,1:102)"
    if spec.get("metadata_version"):  # MetadataVersion.fromVersionString of the release
        if _metadata_version(value, spec.get("release")):
            return None
        return "is not a Kafka version (0.10.2, 2.8, 3.0-IV1, ...)"
    if "values" in spec and value in spec["values"]:
        return None
    lo, hi = spec.get("min"), spec.get("max")
    if lo is not None and value < lo or hi is not None and value > hi:
        bounds = f"from {lo} to {hi}" if lo is not None and hi is not None else \
            f"at least {lo}" if lo is not None else f"at most {hi}"
        also = f" (or {', '.join(map(str, spec['values']))})" if "values" in spec else ""
        return f"must be {bounds}{also}"
    if "values" in spec and lo is None and hi is None:
        return f"must be one of {', '.join(spec['values'])}"
    return None


def _metadata_version(text: str, release: str | None) -> bool:
    """Whether ``message.format.version`` names a version Kafka ``release`` knows."""
    parts = text.split(".")
    key = ".".join(parts[:3] if text.startswith("0.") else parts[:2])
    base = _IV.sub("", key)
    if base in _OLD_VERSIONS:
        return True
    if not re.fullmatch(r"[1-9][0-9]*\.[0-9]+", base):
        return False
    return release is None or _key(base) <= _key(release)


def synonyms(key: str, release: str | None = None) -> list:
    """The broker settings a topic config falls back to when the topic sets none, in Kafka's
    order (the first one set wins), each with the factor that turns it into the topic
    config's unit: ``[name, factor]``, as ``release`` (None: the newest) lists them
    (``ServerTopicConfigSynonyms``, derived per release). None listed: no broker setting
    stands for it (``LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS``), Kafka's default applies."""
    spec = table(release or newest()).get(key)
    return spec.get("synonyms", []) if spec else []


RETENTION_DEFAULT = {"retention.ms": 604_800_000, "retention.bytes": -1}


def broker_value(key: str, broker: dict, release: str | None = None
                 ) -> tuple[Any, str] | None:
    """The value a topic's ``key`` takes from its cluster's broker settings, in the topic
    config's unit, and the broker setting it comes from; None when the broker sets none of
    its synonyms (Kafka's default applies). A value of a unit that is not a number is given
    as it is written (its own rule judges it)."""
    for name, factor in synonyms(key, release):
        if name in broker:
            value = broker[name]
            if factor != 1:
                n = number(value)
                value = value if n is None else n if n < 0 else n * factor
            return value, name
    return None


def number(value: Any, kind: str = "long") -> int | None:
    """A config value read as Kafka's ``int`` or ``long``; None when Kafka would refuse it."""
    try:
        return parsed({"type": kind}, value)
    except ValueError:
        return None


def effective_retention(key: str, config: dict, broker: dict) -> tuple[int | None, bool]:
    """(value, set by the topic) of ``retention.ms`` / ``retention.bytes``: the topic's,
    else the cluster's broker setting, else Kafka's default; None when not a number."""
    if key in config:
        return number(config[key]), True
    found = broker_value(key, broker)
    if found is not None:
        return number(found[0]), False
    return RETENTION_DEFAULT[key], False
