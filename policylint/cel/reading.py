"""What a CEL expression reads, from its text: the fields of each variable
(``fields_read``: a batch hands a program those alone), and the constant patterns of
``matches`` that Python answers as RE2 does (``hoisted``)."""

from __future__ import annotations

import re

from .kinds import CALL, FIELD, environment

#: a comprehension's call: what a variable's name may be given to inside it
MACROS = re.compile(r"\.\s*(all|exists|exists_one|map|filter|transformList|transformMap)"
                    r"\s*\(")
#: CEL's string literals: blanked out before an expression's names are read
STRINGS = re.compile(r"(?s)[rR]?('''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"
                     r"\"(?:\\.|[^\"\\\n])*\")")

_SPACE, _CLOSE = re.compile(r"\s*"), re.compile(r"\s*\)")


def hoisted(text: str, binds: tuple[str, ...], found: dict[str, tuple]) -> str:
    """``text`` with each ``ROOT.FIELD.matches(CONSTANT)`` whose pattern Python answers as
    RE2 does (``patterns.translated``) read as ``ROOT["matches #N"]`` instead (a key no
    field has), what it asks added to ``found``: (root, field, pattern). As written where a
    comprehension or ``cel.bind`` could give a variable's name to another value."""
    from .patterns import translated
    code = STRINGS.sub(lambda m: " " * len(m.group(0)), text)
    if MACROS.search(code) or re.search(r"\bbind\s*\(", code):
        return text
    out, last = [], 0
    for call in CALL.finditer(code):
        literal = STRINGS.match(text, _SPACE.match(text, call.end()).end())
        close = literal and _CLOSE.match(text, literal.end())
        if call.group(1) not in binds or not close:
            continue
        try:  # the literal's text, as CEL reads its escapes
            literal_value = environment(binds).compile(literal.group(0)).eval(data={})
            pattern = translated(literal_value.value())
        except Exception:
            continue
        if pattern is not None:
            key = f"matches #{len(found)}"
            found[key] = (call.group(1), call.group(2), pattern)
            out += [text[last:call.start()], f'{call.group(1)}["{key}"]']
            last = close.end()
    return "".join(out) + text[last:]


def fields_read(texts: list[str], binds: tuple[str, ...]
                ) -> dict[str, tuple[str, ...]] | None:
    """Per variable the expressions read, the fields they read of it (``topic.rf``,
    ``has(topic.rf)``, ``topic.?rf``); None where one reads a variable otherwise
    (``topic["rf"]``, ``size(cluster)``), as a whole."""
    code = " ".join(STRINGS.sub(lambda m: " " * len(m.group(0)), t) for t in texts)
    reads: dict[str, set] = {}
    for found in FIELD.finditer(code):
        if found.group(1) in binds:
            if is_method(code, found.end()):
                return None
            reads.setdefault(found.group(1), set()).add(found.group(2))
    for root in binds:
        if re.search(rf"(?<![.\w]){root}\b(?!\s*\.\s*\??\s*[A-Za-z_])", code):
            return None
    return {root: tuple(sorted(fields)) for root, fields in reads.items()}


def is_method(code: str, end: int) -> bool:
    """Whether the name just read is called as a function (``topic.name.size()`` reads
    ``name``; a call on a root variable is none of its fields)."""
    return code[end:].lstrip().startswith("(")
