"""The JSON Schemas of the input formats, shipped with the package."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ...schema import Schema


@lru_cache(maxsize=None)
def schema(name: str) -> dict:
    """The complete schema ``name`` (``reassignment``, ``snapshot``, ...), with the shared
    definitions of ``common.json`` added to its ``$defs``."""
    here = resources.files(__package__)
    loaded = json.loads(here.joinpath(f"{name}.json").read_text("utf-8"))
    common = json.loads(here.joinpath("common.json").read_text("utf-8"))
    common.pop("$comment", None)
    loaded["$defs"] = {**common, **loaded.get("$defs", {})}
    return loaded


@lru_cache(maxsize=None)
def validator(name: str) -> Schema:
    return Schema(schema(name))
