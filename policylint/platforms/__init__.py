"""What managed Kafka platforms refuse that Apache Kafka accepts, and what they add: one YAML
data file per platform (``NAME.yaml``), each entry with the documentation page it comes
from. PL609 judges topic declarations by what they refuse; the topic config keys a platform
adds (``config_prefixes``) are known configs there, not PL601; where a platform decides a
topic's replication factor (a ``refuses`` entry with ``rf``), the built-in RF rules defer to
it. Adding a platform is adding its file."""

from __future__ import annotations

import os
import pkgutil
from functools import lru_cache
from typing import Any

import yaml


@lru_cache(maxsize=None)
def names() -> tuple[str, ...]:
    """The platforms policylint knows: ``apache`` (nothing more refused) and one per file."""
    # the package's folder, as pkgutil reads its files (importlib.resources' import costs
    # every run 5 ms)
    folder = os.path.dirname(__file__)
    return ("apache",) + tuple(sorted(name[:-5] for name in os.listdir(folder)
                                      if name.endswith(".yaml")))


@lru_cache(maxsize=None)
def profile(name: str) -> dict[str, Any]:
    """A platform's data: ``title``, ``refuses`` (entries), ``detect`` (formats that say it)."""
    if name == "apache":
        return {"title": "Apache Kafka", "refuses": [], "detect": [], "config_prefixes": []}
    # libyaml's loader: the pure-Python one costs every run that meets a topic 3 ms
    return yaml.load(pkgutil.get_data(__package__, f"{name}.yaml"), Loader=yaml.CSafeLoader)


@lru_cache(maxsize=None)
def detected(kind: str) -> str | None:
    """The platform a declaration's format says it is of (a ``confluent_kafka_topic``)."""
    for name in names():
        if any(word in kind for word in profile(name).get("detect", ())):
            return name
    return None


def of(policy: Any, spec: Any) -> str | None:
    """The platform of a topic declaration: its cluster's in the policy (``platforms:``),
    the policy's ``platform``, else the one its format says."""
    return policy.platform_of(spec.cluster) or detected(spec.kind)


def config_prefixes(name: str | None) -> tuple[str, ...]:
    """The topic config keys a platform adds to Apache Kafka's (Inkless' ``diskless.``)."""
    return tuple(profile(name).get("config_prefixes", ())) if name else ()


def applies(when: dict | None, config: dict) -> bool:
    """Whether a platform entry's ``when`` (config key -> value) holds for ``config``."""
    from .. import kafka_configs
    return not when or all(kafka_configs.as_text(config.get(k, "")).strip().lower() == str(v)
                           for k, v in when.items())


def decided_rf(name: str | None, config: dict) -> list[int] | None:
    """The replication factors a platform takes for a topic of this config, where it
    decides them (Inkless: 1 for a diskless topic); None where Kafka's rules hold."""
    for entry in profile(name)["refuses"] if name else ():
        if "rf" in entry and entry.get("when") and applies(entry.get("when"), config):
            return list(entry["rf"])
    return None
