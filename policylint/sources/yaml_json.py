"""A large YAML file's values read by rapidyaml, when they are certainly PyYAML's.

rapidyaml parses in C++ and writes the whole stream as JSON, which msgspec decodes: with
the checks below, half of what libyaml's composer and a Python walk over its nodes cost,
but without positions, and with YAML 1.2's scalars. So ``read`` answers only for text whose
values it can vouch for, and None for the rest, which PyYAML reads as before:

- libyaml itself accepts the syntax (``raw_parse``, in C: no event object is made), so the
  errors a file can have are reported exactly as PyYAML reports them;
- the text holds none of what would be read differently or not at all: anchors, aliases,
  tags, directives, block scalars, escapes, tabs, carriage returns, explicit or flow
  collection keys, non-ASCII characters (YAML's other line breaks among them), ``...``,
  ``-.`` (rapidyaml writes ``-.5``, a string to YAML 1.1, as the number -0.5);
- a string of the JSON that a YAML 1.1 resolver types (``yes``, ``0x1F``, ``~``, ``<<``,
  ...: PyYAML's own patterns) is written quoted (``"604800000"``, as manifests quote
  their config values), and nowhere plain where rapidyaml would keep a plain one as text
  (``yes``: PyYAML reads it as true; a plain ``3`` rapidyaml writes as a number);
- no number of the JSON has an exponent (YAML 1.1 reads ``1e26`` as text);
- decoding the JSON and encoding it again gives the same text, less whitespace: a number
  written otherwise than plainly (``+5``, ``1.50``) and a key given twice (the decoder
  keeps the last) both break it;
- its documents pair with the ``---`` lines of the text (see ``spans``), where each one's
  positions are found, by composing that document alone, when a finding asks.
"""

from __future__ import annotations

import os
import re
import sys
from functools import lru_cache
from typing import Any

import msgspec
import yaml

#: anchors, aliases, tags, block scalars, escapes, tabs, carriage returns, explicit keys,
#: directives, document end markers, and ``-.5``, which YAML 1.1 reads as text and
#: rapidyaml writes as -0.5 (found by trying every scalar of up to four characters of
#: digits, signs, dots, exponents, ``_``, ``x`` and ``:``): each found at memchr's speed
_REFUSED = ("&", "*", "!", "|", ">", "\\", "\t", "\r", "?", "\n%", "\n...", "-.")
#: a flow collection where a key may start
_FLOW_KEY = re.compile(r"^[ \t]*(?:-[ \t]+)*[\[{]|[\[{,][ \t]*[\[{]", re.M)
#: a document start marker after a line break (found five times as fast as by ``^``, re.M)
_MARKER = re.compile(r"\n---(?=[ \t\n]|\Z)")
#: text of comments and blank lines only
_NOTHING = re.compile(r"(?:[ \t]*(?:#[^\n]*)?(?:\n|\Z))*")
#: a number of the JSON written with an exponent: YAML 1.1 reads ``1e26`` as text, and
#: encoding the number again may well write it the same way. Searched for only where a
#: digit or dot is followed by an ``e`` (found in a copy with each made a ``0``, at
#: memchr's speed: the expression alone costs a fifth of the whole read)
_EXPONENT = re.compile(rb"[:\[,][ \n]*-?[0-9.]+[eE]")
_DIGITS = bytes.maketrans(b"123456789.", b"0" * 10)
_WHITESPACE = b" \n\t\r"
_ENCODE = msgspec.json.Encoder().encode
_TYPED = ("bool", "float", "int", "merge", "null", "value", "yaml")
#: more distinct typed strings than this are not looked for one by one in the text
_FEW = 32
#: what may touch a scalar's text and belong to the same scalar, or quote it
_SCALAR_OR_QUOTE = "A-Za-z0-9._+/'\"-"
#: what rapidyaml writes for YAML's infinities and NaNs, however they were spelled
_REWRITTEN = frozenset((".inf", "-.inf", "+.inf", ".nan"))


@lru_cache(maxsize=1)
def _typed_string() -> re.Pattern:
    """A JSON string PyYAML's resolver would type if it were a plain scalar (the empty one
    aside: a plain empty scalar is null in both)."""
    seen: dict[str, None] = {}
    for resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.values():
        for tag, pattern in resolvers:
            if tag.rsplit(":", 1)[1] in _TYPED:
                seen[f"(?x:{pattern.pattern.strip()[1:-1]})"] = None
    # a quote, then one of the characters such strings start with: most fail at once
    return re.compile(r'"(?=[yYnNtTfFoO~+\-0-9.<=!&*])(?:' + "|".join(seen) + ')"')


def read(text: str) -> tuple[list[Any], list[tuple[int, int]]] | None:
    """The values of ``text``'s documents as PyYAML reads them, and where each document's
    text starts (``spans``); None when this cannot be vouched for (the caller composes the
    text with PyYAML)."""
    if not text.isascii() or text.startswith(("%", "...")) or \
            any(c in text for c in _REFUSED) or \
            ("[" in text or "{" in text) and _FLOW_KEY.search(text):
        return None
    try:
        import ryml
        from yaml._yaml import CParser
    except ImportError:  # pragma: no cover - both are wheels of the dependencies
        return None
    parser = CParser(text)
    try:
        parser.raw_parse()
    except yaml.YAMLError:
        return None  # PyYAML reports it, where it is
    finally:
        parser.dispose()
    tree = _parsed(text.encode())
    if tree is None:
        return None
    emitted = ryml.emit_json_malloc(tree, tree.root_id())
    if emitted is None or _plain_typed(text, emitted):
        return None
    emitted = emitted.encode()
    digits = emitted.translate(_DIGITS)
    if (b"0e" in digits or b"0E" in digits) and _EXPONENT.search(emitted):
        return None
    try:
        decoded = msgspec.json.decode(emitted)
    except msgspec.DecodeError:
        return None
    if _ENCODE(decoded).translate(None, _WHITESPACE) != emitted.translate(None, _WHITESPACE):
        return None
    docs = decoded if tree.is_stream(tree.root_id()) else [decoded]
    starts = spans(text)
    return (docs, starts) if len(docs) == len(starts) else None


def _plain_typed(text: str, emitted: str) -> bool:
    """Whether a string of the JSON that YAML 1.1 would type may be a plain scalar of the
    text, or not the text's own. Each must be written quoted in the text, and where
    rapidyaml too would keep it as text were it plain (``yes``, ``0x1F``; not ``3``,
    which it writes as a number), found nowhere in the text but between quotes or inside
    a longer word (``"yes"``, ``yesterday``): a plain scalar is written as its value (a
    typed one holds no space, so no line of it was folded), and nothing that could belong
    to it, nor a quote, touches it. (A key is its text on both ways.) rapidyaml writes
    ``inf``, ``.NaN`` and their kin as ``.inf`` and ``.nan``: those are never taken."""
    typed = {found.group()[1:-1] for found in _typed_string().finditer(emitted)}
    if not typed:
        return False
    if len(typed) > _FEW or not _REWRITTEN.isdisjoint(typed) or not all(
            f'"{word}"' in text or f"'{word}'" in text for word in typed):
        return True
    plain = [word for word in typed if _kept_as_text(word)]
    if not plain:
        return False
    written = "|".join(map(re.escape, sorted(plain, key=len, reverse=True)))
    return re.search(f"(?<![{_SCALAR_OR_QUOTE}])(?:{written})(?![{_SCALAR_OR_QUOTE}])",
                     text) is not None


@lru_cache(maxsize=256)
def _kept_as_text(word: str) -> bool:
    """Whether rapidyaml writes the plain scalar ``word`` as a JSON string (as it does
    wherever the scalar is a value: block or flow, item or mapping value)."""
    import ryml  # read() imported it, or returned
    tree = _parsed(f"- {word}\n".encode())
    return tree is None or f'"{word}"' in ryml.emit_json_malloc(tree, tree.root_id())


def spans(text: str) -> list[tuple[int, int]]:
    """(offset, lines before it) where each document's text starts: at each ``---`` line,
    and at the start when something other than comments precedes the first one."""
    # each "\n" found in "\n" + text is at its line's start in text
    starts = [m.start() for m in _MARKER.finditer("\n" + text)]
    if not starts or _NOTHING.match(text, 0, starts[0]).end() < starts[0]:
        starts.insert(0, 0)
    lines, before, last = [], 0, 0
    for start in starts:
        before += text.count("\n", last, start)
        lines.append(before)
        last = start
    return list(zip(starts, lines))


def _parsed(data: bytes) -> Any:
    """rapidyaml's tree of ``data``; None where it refuses what libyaml accepts (it has such
    gaps: PyYAML then reads the text). It prints why to standard error before it raises, as
    if the user's file were broken: while it parses, descriptor 2 is the null device."""
    import ryml  # read() imported it, or returned
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # no standard error: nothing to keep clean
        saved = None
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        return ryml.parse_in_arena(data)
    except Exception:  # ryml.ExceptionBasic and its kin
        return None
    finally:
        if saved is not None:
            os.dup2(saved, 2)
            os.close(saved)
        os.close(null)
