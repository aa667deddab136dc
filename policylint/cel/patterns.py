"""Constant ``matches`` patterns answered by Python's ``re`` where its answer is RE2's.

CEL's evaluator compiles a pattern again at every evaluation (about 10 us: most of what a
rule on topic names costs). A batch of rules evaluated for every subject (``_Batch``) is
handed the answers instead, for the patterns written in a subset of RE2's syntax on which
the two engines accept the same patterns and match the same texts:

- literals: ASCII letters, digits and the punctuation ``_ -:/@#%&=~,;<>!'"`` (`` ` ``
  too), and any ASCII punctuation escaped (``\\.``);
- classes of those, with ranges, negated or not (``[a-z0-9._-]``, ``[^/]``);
- ``.``, ``|``, groups ``(...)`` and ``(?:...)``, ``^``, and ``$`` (RE2's end of the text,
  Python's ``\\Z``: Python's ``$`` also matches before a final newline);
- quantifiers ``*``, ``+``, ``?`` and ``{m}``, ``{m,}``, ``{m,n}``, lazy or not, on a
  literal, a class or ``.``: never on a group.

No group is repeated, so Python's backtracking takes at most about (n+1)^(k+1) steps for
k quantifiers and alternatives over a text of n characters; a text longer than
``STEPS`` allows is left to RE2 (the rule's own program). Anything else (``\\d``, flags,
classes of other characters) is RE2's alone.
"""

from __future__ import annotations

import re
import string
from typing import NamedTuple

#: the most backtracking steps a pattern may take on a text it is given
STEPS = 100_000
_LITERALS = frozenset(string.ascii_letters + string.digits + "_ -:/@#%&=~,;<>!'\"`")
_IN_CLASS = frozenset(string.ascii_letters + string.digits + "_ :/@.")
_PUNCTUATION = frozenset(string.punctuation)
_COUNTED = re.compile(r"\{\d+(?:,\d*)?\}\??")  # RE2 reads "{,n}" as text, Python not


class Pattern(NamedTuple):
    regex: re.Pattern
    longest: int  # the longest text it answers for


def translated(pattern: str) -> Pattern | None:
    """``pattern`` (RE2's syntax) as a Python regex that matches the same texts, where it is
    written in the subset above; None where it is not."""
    out, i, choices, last = [], 0, 0, None  # last: what a quantifier would repeat
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if pattern[i + 1:i + 2] not in _PUNCTUATION:
                return None
            token, last = pattern[i:i + 2], "atom"
        elif c == "[":
            end = _class_end(pattern, i)
            if end is None:
                return None
            token, last = pattern[i:end], "atom"
        elif c in "*+?{":
            counted = _COUNTED.match(pattern, i) if c == "{" else None
            if last != "atom" or (c == "{" and counted is None):
                return None  # nothing, a group, an anchor or a quantifier repeated
            token = counted.group(0) if counted else \
                c + ("?" if pattern[i + 1:i + 2] == "?" else "")
            last, choices = "quantifier", choices + 1
        elif c == "(":
            if pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
                return None  # flags, names, lookarounds
            token, last = ("(?:" if pattern.startswith("(?:", i) else "("), None
        elif c == ")":
            token, last = ")", "group"
        elif c == "|":
            token, last, choices = "|", None, choices + 1
        elif c in "^$":
            token, last = ("^" if c == "^" else r"\Z"), "anchor"
        elif c == "." or c in _LITERALS:
            token, last = c, "atom"
        else:
            return None
        out.append(token)
        i += 1 if c == "$" else len(token)
    try:
        regex = re.compile("".join(out))
    except re.error:
        return None
    return Pattern(regex, int(STEPS ** (1 / (choices + 1))) - 1)


def _class_end(pattern: str, start: int) -> int | None:
    """Where the class opening at ``start`` ends (past its ``]``): items are a character or
    a range of two; a ``-`` of its own only first or last."""
    j = start + 1 + (pattern[start + 1:start + 2] == "^")
    items = 0
    if pattern[j:j + 1] == "-":
        j, items = j + 1, 1
    while j < len(pattern) and pattern[j] != "]":
        end = _class_char(pattern, j)
        if end is None:
            if pattern[j:j + 2] != "-]":
                return None
            end = j + 1  # a last "-"
        elif pattern[end:end + 1] == "-" and pattern[end + 1:end + 2] not in ("", "]"):
            end = _class_char(pattern, end + 1)  # a range
            if end is None:
                return None
        j, items = end, items + 1
    return j + 1 if j < len(pattern) and items else None


def _class_char(pattern: str, j: int) -> int | None:
    if pattern[j] == "\\":
        return j + 2 if pattern[j + 1:j + 2] in _PUNCTUATION else None
    return j + 1 if pattern[j] in _IN_CLASS else None
