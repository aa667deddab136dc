"""JSON to plain data, strictly, with positions computed only where a finding needs one.

msgspec decodes in C: a large plan or snapshot straight into its schema's types, whose
entries and partitions are the model's (decoding is validating), anything else into plain
data. Duplicate keys, which a decoder silently drops, are found by counting: see
``_no_duplicates``. Only a file msgspec refuses, or one that may hold a duplicate, is read
again by the standard library's decoder, which says where the problem is. Positions are not
kept while decoding (a million-entry plan would pay for them all); ``JsonLocator`` finds
the offset of a path in the raw text on demand, skipping over sibling values with the C
scanner.
"""

from __future__ import annotations

import bisect
import json
import re
from functools import lru_cache
from itertools import islice
from typing import Any

import msgspec

from ..model import KEY
from .document import Document, ParseError, SourceFile
from .formats import validator

TYPED_FROM = 2**20  # from this size, a plan or snapshot is decoded straight into its types
_SCAN = json.JSONDecoder().scan_once  # the C scanner: (value, end) from an offset
_WS = re.compile(r"[ \t\n\r]*")
_MANY = 32  # arrays this long have their element offsets found at C speed
_SHORT = 2048  # elements this short are checked whole (see JsonLocator._holds)
_KEY = re.compile(r'\{[ \t\n\r]*"(?:[^"\\]|\\.)*"')  # an object's start and first key
_ESCAPED_COLON = re.compile(r"\\u003[aA]")
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)|(-?\d{4300,})|[\[{]|[\]}]')
#: a \uD800-\uDFFF escape that is not one half of a pair (after an even run of backslashes,
#: so that it is an escape): decoded, it is a string no UTF-8 output can hold
_LONE_SURROGATE = re.compile(
    r"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})")
_ENCODER = msgspec.json.Encoder()
_DECODE_ERRORS = (msgspec.MsgspecError, RecursionError, TypeError)


class _Duplicate(Exception):
    pass


class _NotJson(Exception):
    pass


def _pairs(pairs: list) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _constant(name: str) -> Any:
    raise _NotJson(name)


def refuse_lone_surrogates(text: str) -> None:
    """ParseError at the first unpaired surrogate escape of a JSON text. RFC 8259 section 8.2:
    such a string is not interoperable; refused where JSON is decoded, no later code (a
    schema's error, a report, a fingerprint) can meet it."""
    # one character is found at memchr's speed (a million-entry plan holds no backslash)
    if "\\" in text and "\\u" in text:
        match = _LONE_SURROGATE.search(text)
        if match:
            escape = match.group(1)
            raise _error_at(text, match.start(1), f"invalid JSON: {escape} is an unpaired "
                            "surrogate escape, not a character (RFC 8259 section 8.2)")


def load_json(source: SourceFile) -> list[Document]:
    text = source.text
    refuse_lone_surrogates(text)
    typed = _typed(text) if len(text) >= TYPED_FROM else None
    if typed is not None:
        return [Document(source, None, 0, JsonLocator(text, typed, source).locate,
                         typed=typed)]
    try:
        data = msgspec.json.decode(text)
        if not _no_duplicates(text, data):
            data = _exactly(text)
    except _DECODE_ERRORS:
        data = _exactly(text)
    return [Document(source, data, 0, JsonLocator(text, data, source).locate)]


def _typed(text: str) -> Any:
    """A large plan or snapshot in its schema's types; None when it is something else or
    not valid (the plain path then reports why). Each schema refuses the other's keys, so a
    wrong guess fails at the first key only the other kind has."""
    for kind in ("reassignment", "snapshot"):
        try:
            typed = validator(kind).decode(text)
        except _DECODE_ERRORS:
            continue
        return typed if _no_duplicates(text, typed) else None
    return None


def _no_duplicates(text: str, value: Any) -> bool:
    """Whether every key written in ``text`` was kept in its decoded ``value``.

    Every key is followed by one colon, so the colons of the text are its keys plus the
    colons inside its strings. Encoding the value again writes the keys kept and the same
    strings: fewer colons mean a key was given twice. (An escaped colon, ``\\u003a``, is
    written back plain; such a text is checked the exact way. The model's types write a
    value equal to their default back as absent: a snapshot's explicit ``"isr": null`` reads
    as a key dropped, and such a file is read the plain way.)
    """
    encoded = bytearray()  # (written in place: no copy of it made into bytes)
    _ENCODER.encode_into(value, encoded)
    return text.count(":") == encoded.count(b":") and \
        ("\\" not in text or not _ESCAPED_COLON.search(text))  # a backslash at memchr's speed


def _exactly(text: str) -> Any:
    """The standard library's reading, which locates every problem (the slow path)."""
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _Duplicate:
        offset, key = _find_duplicate(text)
        raise _error_at(text, offset, f"duplicate key '{key}' (an earlier value would be "
                                      "silently dropped)") from None
    except (_NotJson, ValueError, RecursionError) as exc:
        raise _problem(text, exc) from None


def _problem(text: str, exc: Exception) -> ParseError:
    """Locate what the C decoder refused without saying where (NaN, huge ints, depth)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if match.group(1):
            return _error_at(text, match.start(), f"{token} is not valid JSON (JSON has no "
                                                  "NaN or Infinity)")
        if match.group(2):
            return _error_at(text, match.start(), f"integer with {len(token)} digits is too "
                                                  "large")
        if token in "[{":
            depth += 1
            if depth > 500:
                return _error_at(text, match.start(), "nesting is too deep")
        elif token in "]}":
            depth -= 1
    return ParseError(f"invalid JSON: {exc}")


def _error_at(text: str, offset: int, message: str) -> ParseError:
    line, column = line_column(text, offset)
    return ParseError(message, line, column)


def line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def _find_duplicate(text: str) -> tuple[int, str]:
    """Offset and name of the first duplicated key (only run after the decoder saw one)."""
    stack: list[set] = []
    pos = 0
    n = len(text)
    while pos < n:
        ch = text[pos]
        if ch == '"':
            key, end = json.decoder.scanstring(text, pos + 1)
            after = _WS.match(text, end).end()
            if stack and stack[-1] is not None and after < n and text[after] == ":":
                if key in stack[-1]:
                    return pos, key
                stack[-1].add(key)
            pos = end
            continue
        if ch == "{":
            stack.append(set())
        elif ch == "[":
            stack.append(None)
        elif ch in "]}":
            stack.pop()
        pos += 1
    return 0, "?"


class JsonLocator:
    """Finds ``(line, column)`` of a path like ``("partitions", 12, "replicas")``.

    It walks the raw text along the path, next to the decoded ``data`` it came from.
    """

    def __init__(self, text: str, data: Any, source: SourceFile | None = None):
        self.text, self.data, self.source = text, data, source
        self._elements: dict[int, list[int]] = {}  # array offset -> element offsets
        self._exact: set[int] = set()  # arrays whose offsets were scanned or proven
        self._held: set[tuple[int, int]] = set()  # (array, index) checked by _holds
        # (object offset, key) -> value offset: a snapshot's findings all pass its
        # "topics", and finding it anew would decode the brokers and config each time
        self._members: dict[tuple[int, str], int | None] = {}
        self._newlines: list[int] | None = None

    def locate(self, path: tuple) -> tuple[int, int] | None:
        offset = self.offset(path)
        if offset is None:
            return None
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
            if self.source is not None:  # its lines, for the end of a finding's token
                self.source.newlines = self._newlines
        line = bisect.bisect_left(self._newlines, offset)
        return line + 1, offset - (self._newlines[line - 1] if line else -1)

    def offset(self, path: tuple) -> int | None:
        pos = _WS.match(self.text, 0).end()
        value = self.data
        if path and path[-1] is KEY:  # where the key is written: its value's object, scanned
            parent = self.offset(path[:-2])
            return None if parent is None else self._member(parent, path[-2], of_key=True)
        for key in path:
            if isinstance(key, int):
                pos = self._element(pos, key, value)
            else:
                found = self._members.get((pos, key), -1)
                if found == -1:
                    found = self._members[pos, key] = self._member(pos, key)
                pos = found
            if pos is None:
                return None
            value = _child(value, key)
        return pos

    def _member(self, pos: int, key: str, of_key: bool = False) -> int | None:
        """The offset of the value at ``key`` in the object at ``pos`` (or of the key)."""
        text = self.text
        if text[pos] != "{":
            return None
        pos = _WS.match(text, pos + 1).end()
        while text[pos] == '"':
            start = pos
            name, pos = json.decoder.scanstring(text, pos + 1)
            pos = _WS.match(text, pos).end() + 1  # past ':'
            pos = _WS.match(text, pos).end()
            if name == key:  # keys are unique: duplicates were refused when decoding
                return start if of_key else pos
            pos = _WS.match(text, _SCAN(text, pos)[1]).end()
            if text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()
        return None

    def _element(self, pos: int, index: int, items: list) -> int | None:
        text = self.text
        if text[pos] != "[":
            return None
        starts = self._elements.get(pos)
        if starts is None:
            starts = self._written_alike(pos, items)
            if starts is None:
                starts = self._scanned(pos)
                self._exact.add(pos)
            self._elements[pos] = starts
        if not 0 <= index < len(starts):
            return None
        if pos not in self._exact and (pos, index) not in self._held:
            if not self._holds(starts, index, items[index]):  # see _written_alike
                starts = self._elements[pos] = self._scanned(pos)
                self._exact.add(pos)
            else:
                self._held.add((pos, index))
        return starts[index]

    def _holds(self, starts: list[int], index: int, item: Any) -> bool:
        """Whether the element found at ``starts[index]`` is ``item``: decoded whole when
        it is short, else only its first member or item (decoding a topic of a thousand
        partitions again for each finding in it would cost more than scanning)."""
        text, start = self.text, starts[index]
        if index + 1 == len(starts) or starts[index + 1] - start <= _SHORT:
            return _SCAN(text, start)[0] == _plain(item)
        pos = _WS.match(text, start + 1).end()
        if isinstance(item, list):
            return text[start] == "[" and bool(item) and _SCAN(text, pos)[0] == _plain(item[0])
        if text[start] != "{" or text[pos] != '"' or not item:
            return False
        name, pos = json.decoder.scanstring(text, pos + 1)
        pos = _WS.match(text, _WS.match(text, pos).end() + 1).end()  # past ':'
        value = _SCAN(text, pos)[0]
        if isinstance(item, msgspec.Struct):  # the member written first, by its name
            attribute = _attributes(type(item)).get(name)
            return attribute is not None and _plain(getattr(item, attribute)) == value
        return (name, value) == next(iter(item.items()))

    def _scanned(self, pos: int) -> list[int]:
        """Element offsets, exactly: each element is scanned to find the next."""
        text = self.text
        starts = []
        cursor = _WS.match(text, pos + 1).end()
        while text[cursor] != "]":
            starts.append(cursor)
            cursor = _WS.match(text, _SCAN(text, cursor)[1]).end()
            if text[cursor] == ",":
                cursor = _WS.match(text, cursor + 1).end()
        return starts

    def _written_alike(self, pos: int, items: list) -> list[int] | None:
        """Element offsets of a long array of objects (or arrays) written alike, found at
        C speed: every element after the first follows the same few characters, such as
        ``}, {"topic"``. Scanning each element instead costs as much as decoding the file
        again.

        The same characters could also occur inside an element (in an array of objects
        that start alike; not in a string, where every quote is escaped); then the offsets
        found after it are off by one element. The last offset must therefore hold the
        last element and be followed by the array's end, and each located element is
        checked against the decoded value (``_holds``); on any doubt the offsets are
        scanned.

        Elements of a type in which no object can be written (a plan's entries, a
        snapshot's partitions, decoded into the model's types) need no such check when the
        text from the first element to the end of the last holds exactly as many ``{`` as
        there are elements. Each offset found is a ``{`` that opens an object (``{"key"``
        cannot be inside a string, whose quotes are escaped), so the offsets are every
        ``{`` there; each element starts with one, so the text holds the whole array and
        each offset is its element's. (On a million-entry plan, 0.2 s of checks.)
        """
        text = self.text
        first = _WS.match(text, pos + 1).end()
        if len(items) < _MANY or text[first] not in "{[":
            return None
        end = _SCAN(text, first)[1]
        second = _WS.match(text, _WS.match(text, end).end() + 1).end()
        # with the first key of an object: "}, {" alone also parts the objects of the
        # arrays inside each element
        head = _KEY.match(text, second)
        boundary = re.compile(re.escape(text[end - 1:head.end() if head else second + 1]))
        lead = second - (end - 1)  # from the boundary to the element
        starts = [first] + [m.start() + lead for m in islice(
            boundary.finditer(text, end - 1), len(items) - 1)]
        if len(starts) != len(items):
            return None
        last, after = _SCAN(text, starts[-1])
        if last != _plain(items[-1]) or text[_WS.match(text, after).end()] != "]":
            return None
        if head and _flat(type(items[0])) and text.count("{", first, after) == len(items):
            self._exact.add(pos)
        return starts


@lru_cache(maxsize=None)
def _flat(kind: type) -> bool:
    """Whether values of ``kind``, a Struct type, hold no JSON object (nor anything that
    may be one: a mapping, a value of any type)."""
    import msgspec.inspect as mi
    scalars = (mi.IntType, mi.FloatType, mi.StrType, mi.BoolType, mi.NoneType, mi.LiteralType)
    arrays = (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)

    def flat(info: Any) -> bool:
        if isinstance(info, arrays):
            return flat(info.item_type)
        if isinstance(info, mi.TupleType):
            return all(map(flat, info.item_types))
        if isinstance(info, mi.UnionType):
            return all(map(flat, info.types))
        return isinstance(info, scalars)

    return issubclass(kind, msgspec.Struct) and \
        all(flat(field.type) for field in mi.type_info(kind).fields)


def _child(value: Any, key: str | int) -> Any:
    if isinstance(value, msgspec.Struct):
        return getattr(value, _attributes(type(value))[key])
    return value[key]


@lru_cache(maxsize=None)
def _attributes(kind: type) -> dict[str, str]:
    """JSON key -> attribute of a Struct type."""
    return {f.encode_name: f.name for f in msgspec.structs.fields(kind)}


def _plain(value: Any) -> Any:
    return msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else value
