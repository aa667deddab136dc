"""How findings say things, in Python. The Spark forms of rules say them alike
(``policylint.spark.expr``), from the same message templates."""

from __future__ import annotations

import re
from typing import Any, Iterable

# what a terminal or a CI log would act on rather than show: C0 and C1 controls (ESC starts
# colour, title and OSC sequences; BEL; line breaks), line and paragraph separators, and
# the bidirectional overrides that reorder what is shown; and lone surrogates
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                      "\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shown(text: str) -> str:
    """Text from an input (a name, a value, a path) as a human format prints it: every
    character a terminal or a CI runner would act on shown as its escape (``\\x1b``,
    ``\\n``), so that no input can colour, retitle or clear a terminal, or start a line of
    its own (a GitHub workflow command, ``::error``)."""
    if _CONTROL.search(text) is None:  # the usual: nothing to escape, nothing copied
        return text
    return _CONTROL.sub(_escape, text)


def _escape(match: re.Match) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if 0xdc80 <= code <= 0xdcff:  # a byte of a name that is not UTF-8: that byte
        return f"\\x{code - 0xdc00:02x}"
    return f"\\u{code:04x}"


def line_start(text: str) -> str:
    """A line's first field as printed: one an input makes begin with ``::`` (a path
    named so) is written ``./::...``, the same path, which no runner reads as a command."""
    text = shown(text)
    return "./" + text if text.startswith("::") else text


def ids(values: Iterable[Any]) -> str:
    """``[1, 2, 3]``: a replica list as Kafka's tools print it."""
    return "[" + ", ".join(map(str, values)) + "]"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``entry``, ``entries``; ``topic``, ``topics``."""
    if n == 1:
        return word
    if many is None and word.endswith("y") and word[-2:-1] not in tuple("aeiou"):
        return word[:-1] + "ies"
    return many or word + "s"


def count(n: int, word: str, many: str | None = None) -> str:
    """``1 broker``, ``3 brokers``."""
    return f"{n} {plural(n, word, many)}"


def subject(topic: str, partition: int | None) -> str:
    """``topic t`` or ``partition t-0``."""
    return f"topic {topic}" if partition is None else f"partition {topic}-{partition}"


_TIME = (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1_000))
_SIZE = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def duration(ms: int) -> str:
    """``7d``, ``1h``, ``90s``, ``250ms``: milliseconds in the largest unit that divides
    them (what an operator reads, not 604800000)."""
    for unit, size in _TIME:
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def size(n: int) -> str:
    """``1 GiB``, ``512 MiB``, ``1000 bytes``: bytes in the largest binary unit that divides
    them."""
    for unit, step in _SIZE:
        if n and n % step == 0:
            return f"{n // step} {unit}"
    return count(n, "byte")


def amount(n: float) -> str:
    """``1.2 GiB``: an amount of data, rounded, in the largest binary unit it reaches."""
    for unit, step in _SIZE:
        if n >= step:
            return f"{n / step:.1f} {unit}"
    return f"{n:.0f} B"
