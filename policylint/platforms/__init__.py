"""What managed Kafka platforms refuse that Apache Kafka accepts: one YAML data file per
platform (``NAME.yaml``), each entry with the documentation page it comes from. PL609 judges
topic declarations by them. Adding a platform is adding its file."""

from __future__ import annotations

import pkgutil
from functools import lru_cache
from typing import Any

import yaml


@lru_cache(maxsize=None)
def names() -> tuple[str, ...]:
    """The platforms policylint knows: ``apache`` (nothing more refused) and one per file."""
    import importlib.resources
    files = importlib.resources.files(__package__)
    return ("apache",) + tuple(sorted(f.name[:-5] for f in files.iterdir()
                                      if f.name.endswith(".yaml")))


@lru_cache(maxsize=None)
def profile(name: str) -> dict[str, Any]:
    """A platform's data: ``title``, ``refuses`` (entries), ``detect`` (formats that say it)."""
    if name == "apache":
        return {"title": "Apache Kafka", "refuses": [], "detect": []}
    return yaml.safe_load(pkgutil.get_data(__package__, f"{name}.yaml"))


@lru_cache(maxsize=None)
def detected(kind: str) -> str | None:
    """The platform a declaration's format says it is of (a ``confluent_kafka_topic``)."""
    for name in names():
        if any(word in kind for word in profile(name).get("detect", ())):
            return name
    return None
