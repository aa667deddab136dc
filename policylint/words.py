"""How findings say things, in Python. The Spark forms of rules say them alike
(``policylint.spark.expr``), from the same message templates."""

from __future__ import annotations

from typing import Any, Iterable


def ids(values: Iterable[Any]) -> str:
    """``[1, 2, 3]``: a replica list as Kafka's tools print it."""
    return "[" + ", ".join(map(str, values)) + "]"


def plural(n: int, word: str, many: str | None = None) -> str:
    return word if n == 1 else many or word + "s"


def count(n: int, word: str, many: str | None = None) -> str:
    """``1 broker``, ``3 brokers``."""
    return f"{n} {plural(n, word, many)}"


def subject(topic: str, partition: int | None) -> str:
    """``topic t`` or ``partition t-0``."""
    return f"topic {topic}" if partition is None else f"partition {topic}-{partition}"
