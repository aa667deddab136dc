"""The JSON Schemas of the input formats, shipped with the package."""

from __future__ import annotations

import json
import pkgutil
from functools import lru_cache

from ...schema import Schema


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """The complete schema ``name`` (``reassignment``, ``snapshot``, ...), with the shared
    definitions of ``common.json`` added to its ``$defs``."""
    loaded = json.loads(pkgutil.get_data(__package__, f"{name}.json"))  # see kafka_configs
    common = json.loads(pkgutil.get_data(__package__, "common.json"))
    common.pop("$comment", None)
    loaded["$defs"] = {**common, **loaded.get("$defs", {})}
    return loaded


@lru_cache(maxsize=None)
def validator(name: str) -> Schema:
    return Schema(schema(name))
