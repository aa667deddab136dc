"""Parsed documents that remember where their values came from."""

from __future__ import annotations

import re
from typing import Any, Callable


class ParseError(Exception):
    """The bytes are not a valid document; reported as PL100 at (line, column)."""

    def __init__(self, message: str, line: int | None = 1, column: int | None = 1):
        message = " ".join(message.split())  # one line, whatever the parser said
        super().__init__(message)
        self.message, self.line, self.column = message, line, column

    def kept(self) -> ParseError:
        """This error as its file's reading, kept after the call that raised it: without
        the frames it was raised through, nor the error it replaced, which would hold all
        that call's callers held (an editor's workspace keeps a file's reading while the
        file is unchanged)."""
        self.__traceback__ = self.__context__ = self.__cause__ = None
        return self


DISABLE = re.compile(r"(?:^|\s)#\s*policylint:\s*disable=([\w,-]+)[ \t]*(.*)$")


class SourceFile:
    """One input file: its name as shown to users, its text and its inline suppressions."""

    from_stdin = False  # standard input, shown under its --stdin-filename: never written
    path: str | None = None  # the path it was read by, as given (a fix writes it there)
    bom = False  # whether its bytes began with UTF-8's byte order mark (a fix keeps it)

    def __init__(self, name: str, text: str, fmt: str):
        self.name, self.text, self.format = name, text, fmt
        self._disables: dict[int, tuple[set[str], str]] | None = None
        self._templated: bool | None = None
        self._lines: list[str] | None = None
        #: the offsets of its "\n", where a JSON locator has found them (its lines)
        self.newlines: list[int] | None = None

    def line(self, number: int) -> str | None:
        """The text of a 1-based line (None beyond the end)."""
        span = self.span(number)
        if span is not None:
            return self.text[span[0]:span[1]]
        if self.newlines is not None:  # beyond a JSON file's last line
            return None
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines[number - 1] if 0 < number <= len(self._lines) else None

    def span(self, number: int) -> tuple[int, int] | None:
        """Where a 1-based line starts and ends in ``text``, for a JSON file whose line breaks
        its locator found (a million-entry plan may be one line: read in place, never
        copied); None otherwise."""
        newlines = self.newlines
        if newlines is None or not 0 < number <= len(newlines) + 1:
            return None
        start = newlines[number - 2] + 1 if number > 1 else 0
        end = newlines[number - 1] if number <= len(newlines) else len(self.text)
        return start, end - (end > start and self.text[end - 1] == "\r")

    def templated(self) -> bool:
        """Whether the text may hold template placeholders (``${``, ``{{``, ``{%``; HCL's
        expressions, which python-hcl2 gives as ``${...}``)."""
        if self._templated is None:
            text = self.text
            self._templated = self.format == "hcl" or "${" in text or "{{" in text or \
                "{%" in text
        return self._templated

    def disables(self) -> dict[int, tuple[set[str], str]]:
        """line -> (codes or names, reason) of ``# policylint: disable=...`` comments (YAML)."""
        if self._disables is None:
            self._disables = {}
            if self.format == "yaml" and "policylint:" in self.text:
                for number, line in enumerate(self.text.splitlines(), 1):
                    match = DISABLE.search(line)
                    if match:
                        codes = {c.strip() for c in match.group(1).split(",") if c.strip()}
                        self._disables[number] = (codes, match.group(2).strip())
        return self._disables


class Document:
    """One document of a file: plain JSON-like ``data`` plus a way to locate any path in it.

    ``locate(path)`` returns a 1-based ``(line, column)`` or ``None``; a path that stops
    short of a missing key is located at the deepest value that exists.
    """

    __slots__ = ("source", "_data", "index", "_locate", "role", "typed", "prefix", "kind",
                 "checked")

    def __init__(self, source: SourceFile, data: Any, index: int,
                 locate: Callable[[tuple], tuple[int, int] | None], typed: Any = None):
        self.source, self._data, self.index, self._locate = source, data, index, locate
        #: what the file says the document is where its content cannot: "current" for the
        #: current assignment in the Kafka tool's printed output
        self.role: str | None = None
        #: a plan or snapshot as its schema's msgspec types, once it is known to be valid
        #: (the model is built from it); a large JSON file is decoded straight into them
        self.typed = typed
        #: where it sits in its file's document ``index`` (an item of a ``kind: List``)
        self.prefix: tuple = ()
        #: its input kind, once asked (``sources.kind_of``: ``...`` until then)
        self.kind: str | None = ...
        #: (kind, its schema errors) once validated as that kind (``sources.validate``)
        self.checked: tuple[str, list] | None = None

    @property
    def data(self) -> Any:
        """The document as plain JSON-like data (made from ``typed`` if first asked here)."""
        if self._data is None and self.typed is not None:
            import msgspec
            self._data = msgspec.to_builtins(self.typed)
        return self._data

    def item(self, key: str, i: int) -> Document:
        """Element ``i`` of the list at ``key`` as a document of its own (a ``kind: List``
        export's items), located in this one."""
        item = Document(self.source, self.data[key][i], self.index,
                        lambda path: self._locate((key, i) + path))
        item.prefix = self.prefix + (key, i)
        return item

    def locate(self, path: tuple) -> tuple[int, int] | None:
        while True:
            found = self._locate(path)
            if found is not None or not path:
                return found
            path = path[:-1]

    def get(self, path: tuple, default: Any = None) -> Any:
        value = self.data
        for key in path:
            try:
                value = value[key]
            except (KeyError, IndexError, TypeError):
                return default
        return value

    def __repr__(self) -> str:
        return f"<Document {self.source.name}#{self.index}>"
