"""Spark column helpers for the Spark forms of rules: a finding worded from the rule's own
message template, replica lists and plurals as ``policylint.words`` writes them."""

from __future__ import annotations

from dataclasses import dataclass
from string import Formatter
from typing import Any

from pyspark.sql import Column
from pyspark.sql import functions as F


@dataclass(frozen=True)
class Verdict:
    broken: Column    # the row breaks the rule
    messages: Column  # array<string>: what to say about it (evaluated only where broken)


def one(broken: Column, message: Column) -> Verdict:
    """A verdict with one message per broken row."""
    return Verdict(broken, F.array(message))


def say(template: str, **fields: Any) -> Column:
    """``template.format(**fields)`` as a column: each field a column or a Python value."""
    parts: list[Column] = []
    for literal, name, spec, conversion in Formatter().parse(template):
        if literal:
            parts.append(F.lit(literal))
        if name is not None:
            if spec or conversion:
                raise ValueError(f"message fields take no format spec: {template!r}")
            value = fields[name]
            parts.append(value.cast("string") if isinstance(value, Column)
                         else F.lit(str(value)))
    return F.concat(*parts)


def col(name: str | Column) -> Column:
    return F.col(name) if isinstance(name, str) else name


def ids(column: str | Column) -> Column:
    """``[1, 2, 3]``, as ``policylint.words.ids`` writes a replica list."""
    return F.concat(F.lit("["), F.array_join(col(column).cast("array<string>"), ", "),
                    F.lit("]"))


def plural(n: Column, word: str, many: str | None = None) -> Column:
    return F.when(n == 1, F.lit(word)).otherwise(F.lit(many or word + "s"))


def count(n: Column, word: str, many: str | None = None) -> Column:
    """``1 broker``, ``3 brokers``, as ``policylint.words.count`` writes them."""
    return F.concat(n.cast("string"), F.lit(" "), plural(n, word, many))


def has_placeholder(column: str | Column = "replicas") -> Column:
    """The list names a placeholder (a negative id, KIP-409)."""
    return F.array_min(col(column)) < 0
