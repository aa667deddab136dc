"""The files Kafka's command-line tools read and print, as they are.

- JSON files of other tools than a reassignment: ``kafka-delete-records.sh`` offsets,
  ``kafka-leader-election.sh --path-to-json-file``, ``kafka-reassign-partitions.sh
  --topics-to-move-json-file``. policylint recognises them so that a walk skips them and a
  file named explicitly is told for what it is (PL102), not taken for a broken plan.
- The output of ``kafka-reassign-partitions.sh --generate`` or ``--execute``, saved as it was
  printed: prose lines and the "Current partition replica assignment" and "Proposed
  partition reassignment configuration" JSON, on one line or pretty-printed over several.
  Each JSON part is a document of its own, located in the file as it stands.
"""

from __future__ import annotations

import json
import re

from .document import Document, ParseError, SourceFile

#: kind -> what it is, for the files policylint recognises but does not check
OTHER_TOOLS = {
    "kafka-delete-records": "a kafka-delete-records.sh offsets file",
    "kafka-leader-election": "a kafka-leader-election.sh partitions file",
    "kafka-topics-to-move": "a kafka-reassign-partitions.sh --topics-to-move-json-file",
}
CURRENT = "Current partition replica assignment"
PROPOSED = "Proposed partition reassignment configuration"
_HEADINGS = re.compile(rf"^[ \t]*({CURRENT}|{PROPOSED})\b.*$", re.M)
_LINE_START = re.compile(r"^[ \t]*\{", re.M)


KINDS = dict.fromkeys(OTHER_TOOLS, "other")
ORDER = 20  # before reassignment plans, whose "partitions" some of them have


def detect(data: dict) -> str | None:
    """The kind of a JSON file of Kafka's other tools, or None."""
    if "kind" in data or "apiVersion" in data:
        return None
    entries = data.get("partitions")
    if isinstance(entries, list) and entries and all(
            isinstance(e, dict) and "replicas" not in e for e in entries):
        if all("offset" in e for e in entries):
            return "kafka-delete-records"
        if all(e.keys() <= {"topic", "partition"} for e in entries):
            return "kafka-leader-election"
    if "partitions" not in data and isinstance(data.get("topics"), list):
        return "kafka-topics-to-move"
    return None


def is_tool_output(text: str) -> bool:
    """Whether a file's text is the reassignment tool's printed output (both headings say
    "partition re", found at C speed in the other files: asked of every file)."""
    return text.find("partition re", 0, 4096) >= 0 and \
        _HEADINGS.search(text, 0, 4096) is not None


# finds where a JSON part ends, its values unread (load_json reads them, huge integers as
# the findings they are)
_SCAN = json.JSONDecoder(parse_int=lambda _: 0, parse_float=lambda _: 0.0)


def tool_output(source: SourceFile) -> list[Document]:
    """Each JSON part of the tool's printed output, the current assignment with the role
    "current". A part is the JSON that starts on the first line beginning with ``{`` after
    its heading; its positions are those of the file."""
    from .jsondoc import load_json
    text, parts = source.text, []
    for heading in _HEADINGS.finditer(text):
        start = _LINE_START.search(text, heading.end())
        if start is None:
            continue
        begin = text.index("{", start.start())
        try:
            _, end = _SCAN.raw_decode(text, begin)
        except json.JSONDecodeError as exc:
            raise ParseError(f"invalid JSON after {heading.group(1)!r}: {exc.msg}",
                             exc.lineno, exc.colno) from None
        except RecursionError:  # the standard library's scanner recurses per level
            line = text.count("\n", 0, begin) + 1
            raise ParseError(f"the JSON after {heading.group(1)!r} nests too deep", line,
                             begin - text.rfind("\n", 0, begin)) from None
        # the part alone, at its place: everything else blanked, line breaks kept
        blank = re.sub(r"[^\n]", " ", text[:begin]) + text[begin:end] + \
            re.sub(r"[^\n]", " ", text[end:])
        part = SourceFile(source.name, blank, "json")
        doc = load_json(part)[0]
        doc.source = source
        doc.role = "current" if heading.group(1) == CURRENT else None
        parts.append(doc)
    if not parts:
        raise ParseError("kafka-reassign-partitions.sh output without assignment JSON")
    return parts
