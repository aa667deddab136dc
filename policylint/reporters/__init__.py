"""Output formats. Each module has ``render(result, **options) -> str``."""

from __future__ import annotations

from importlib import import_module

FORMATS = ("text", "json")


def render(fmt: str, result, **options) -> str:
    return import_module(f"{__name__}.{fmt}").render(result, **options)
