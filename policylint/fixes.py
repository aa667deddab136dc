"""``--fix``, ``--diff`` and ``--add-noqa``: the fixes rules attach to their findings
(``Finding.fix``),
applied to YAML files with ruamel.yaml's round trip, so that comments, key order, quoting,
flow style and document separators stay as written.

A file is rewritten only if the result changes no line but those of the fixed entries (a
file ruamel would reformat elsewhere is left to the user, and said so), re-parses, and is
unchanged on disk since it was read; it is written as ``policylint.writes`` writes a user's
file (by the path it was read by, atomically, mode, owner and byte order mark kept).
A reassignment plan (JSON) is fixed as a whole: the replica lists of the entries its repair
changes (``policylint.planner.repair``) are rewritten where they are written, the rest of the
file byte for byte; a plan the repair cannot place is left as it is, with the reason.

``--add-noqa`` inserts ``# policylint: disable=CODE reason`` on its own line above each
finding's line, indented as that line; a file whose values would read differently after it
(a comment inside a block scalar) is left as it is.
"""

from __future__ import annotations

import difflib
import io
import json
import re
from dataclasses import dataclass

from .model import KEY, Finding, Fix, LineFix
from .sources.document import ParseError, SourceFile


@dataclass
class Outcome:
    file: str
    fixed: int  # findings whose fix the new text holds
    diff: str
    problem: str | None = None  # why the file is left as it is
    stdin: str | None = None  # standard input's fixed text: printed, never written
    text: str | None = None  # the fixed text (an editor applies it: policylint server)


def apply(findings: list[Finding], write: bool) -> list[Outcome]:
    """Applies the fixes of the unsuppressed findings, file by file (written when
    ``write``); what became of each file."""
    by_source: dict[int, tuple[SourceFile, list[Finding]]] = {}
    for finding in findings:
        fix = finding.fix
        if fix is None or finding.suppressed:
            continue
        source = fix.source if isinstance(fix, LineFix) else fix.at[0].source
        if source.format == "yaml" or _repairs(fix):
            by_source.setdefault(id(source), (source, []))[1].append(finding)
    return [_repaired(source, found, write) if _repairs(found[0].fix) else
            _fixed(source, found, write) for source, found in by_source.values()]


def _repairs(fix: Fix | LineFix) -> bool:
    return isinstance(fix, Fix) and fix.action == "repair"


def _repaired(source: SourceFile, findings: list[Finding], write: bool) -> Outcome:
    """A plan with the replica lists its repair changes rewritten in place (and their
    ``log_dirs``: a kept replica keeps its directory, a new one is "any")."""
    fix = findings[0].fix
    done = fix.value.repair()
    if done.problem:
        return Outcome(source.name, 0, "", f"the plan cannot be repaired: {done.problem}")
    doc, plan = fix.at[0], fix.value.plan
    edits = []
    for i, replicas in done.lists.items():
        move, at = plan.moves[i], plan.index(i)
        edits.append((("partitions", at, "replicas"), replicas))
        if move.log_dirs is not None:
            dirs = dict(zip(move.replicas, move.log_dirs))
            edits.append((("partitions", at, "log_dirs"),
                          [dirs.get(b, "any") for b in replicas]))
    text = source.text
    starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def offset(path: tuple) -> int:
        line, column = doc.locate(path) or (1, 1)
        return starts[line - 1] + column - 1

    for path, value in sorted(edits, key=lambda e: -offset(e[0])):
        start = offset(path)
        end = _array_end(text, start)
        if end is None:
            return Outcome(source.name, 0, "", f"{'.'.join(map(str, path))} is not where it "
                           "was read: fix it by hand")
        spaced = ", " in text[start:end]
        text = text[:start] + json.dumps(value, separators=(", " if spaced else ",", ": ")) \
            + text[end:]
    try:
        json.loads(text)
    except ValueError:
        return Outcome(source.name, 0, "", "the fixed text would not parse")
    diff = "".join(difflib.unified_diff(source.text.splitlines(True), text.splitlines(True),
                                        f"a/{source.name}", f"b/{source.name}"))
    if write and source.from_stdin:
        return Outcome(source.name, len(findings), diff, stdin=text)
    if write and text != source.text:
        problem = _write(source, text)
        if problem:
            return Outcome(source.name, 0, diff, problem)
    return Outcome(source.name, len(findings), diff, text=text)


def _array_end(text: str, start: int) -> int | None:
    """Just past the JSON array that starts at ``start`` (None: no array there)."""
    if text[start:start + 1] != "[":
        return None
    depth, i, quoted = 0, start, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _fixed(source: SourceFile, findings: list[Finding], write: bool) -> Outcome:
    as_lines = {id(f): _line_delete(f.fix) for f in findings if isinstance(f.fix, Fix)
                and f.fix.action == "delete"}
    line_fixes = [f.fix if isinstance(f.fix, LineFix) else as_lines.get(id(f))
                  for f in findings]
    edits = {fix.line: fix.text for fix in line_fixes if fix is not None}
    structural = [f for f, fix in zip(findings, line_fixes) if fix is None]
    text, lines, applied = source.text, set(edits), len(findings) - len(structural)
    if structural:
        try:
            text, fixed_lines = _rewritten(source.text, structural)
        except Exception as exc:  # ruamel's errors: policylint read the file, ruamel could not
            return Outcome(source.name, 0, "", f"cannot be rewritten ({type(exc).__name__})")
        lines |= set(fixed_lines)
        applied += len(fixed_lines)
    before = source.text.splitlines(True)
    if edits:
        edited = _edited(before, text.splitlines(True), edits)
        if edited is None:
            return Outcome(source.name, 0, "", "a suppression's line is also a fixed line: "
                           "run --fix again")
        deleted = [f.fix.at for f in findings if as_lines.get(id(f))]
        problem = _same_values(source, text, "".join(edited), deleted)
        if problem:
            return Outcome(source.name, 0, "", problem)
        text = "".join(edited)
    after = text.splitlines(True)
    diff = "".join(difflib.unified_diff(before, after, f"a/{source.name}", f"b/{source.name}"))
    changed = _changed_lines(before, after)
    if not changed <= lines:
        return Outcome(source.name, 0, "", "would change other lines than the fixed ones "
                       f"(line {min(changed - lines)}): fix it by hand")
    try:
        from .sources.yamldoc import load_yaml
        load_yaml(SourceFile(source.name, text, "yaml"))
    except ParseError as exc:
        return Outcome(source.name, 0, "", f"the fixed text would not parse: {exc.message}")
    if write and source.from_stdin:  # printed on stdout by the caller, as ruff does
        return Outcome(source.name, applied, diff, stdin=text)
    if write and before != after:
        problem = _write(source, text)
        if problem:
            return Outcome(source.name, 0, diff, problem)
    return Outcome(source.name, applied, diff, text=text)


def _line_delete(fix: Fix) -> LineFix | None:
    """A deleted entry written on a line of its own, as the edit of that line: it goes,
    and a comment at its end stays in its place (ruamel would drop it). None for an entry
    of a flow mapping or one whose value takes more lines."""
    doc, path = fix.at
    key, value = doc.locate(path + (KEY,)), doc.locate(path)
    lines = doc.source.text.splitlines()
    if key is None or value is None or key[0] != value[0] or key[0] > len(lines):
        return None
    line, column = key
    text = lines[line - 1]
    indent = text[:column - 1]
    if indent.strip() or text[value[1] - 1:value[1]] in ("|", ">", "&", "!", "[", "{", ""):
        return None
    following = lines[line] if line < len(lines) else ""
    if following.strip() and not following.lstrip().startswith("#") \
            and len(following) - len(following.lstrip()) > len(indent):
        return None  # the value goes on (a plain scalar folded over lines)
    rest = text[value[1] - 1:]
    if rest[:1] in ("'", '"'):
        close = re.search(r"'(?!')" if rest[0] == "'" else r'(?<!\\)"', rest[1:])
        start = close.end() + 1 if close else len(rest)
    else:
        start = 0
    comment = re.search(r"\s(#.*)$", rest[start:])
    return LineFix(doc.source, line, indent + comment.group(1) if comment else None)


_HEADER = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*(?=---(?:[ \t]|\n|$))")


def _rewritten(text: str, findings: list[Finding]) -> tuple[str, list[int]]:
    """The text with the findings' structural fixes, through ruamel's round trip; the line
    of the entry each fix that applies changes. The file's line endings (CRLF) and the
    comments above its first ``---`` (a licence, a header), which ruamel would not keep, are
    put back as they were."""
    from ruamel.yaml import YAML  # only for --fix and --diff
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    body = text.replace("\r\n", "\n") if crlf else text
    header = _HEADER.match(body)
    head = header.group() if header and header.group() else ""
    body = body[len(head):]
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 2**16  # never fold a long line
    yaml.explicit_start = body.lstrip().startswith("---")
    documents = list(yaml.load_all(body))
    offset = head.count("\n")
    changed = [_change(documents, finding) for finding in findings]
    out = io.StringIO()
    yaml.dump_all(documents, out)
    fixed = head + out.getvalue()
    if not text.endswith("\n") and fixed.endswith("\n"):
        fixed = fixed[:-1]
    if crlf:
        fixed = fixed.replace("\n", "\r\n")
    return fixed, [line + offset for line in changed if line is not None]


def _edited(before: list[str], after: list[str], edits: dict[int, str | None]) -> list[str] | None:
    """``after`` (the lines of ``before`` as the structural fixes left them) with the line
    edits made, each at the line of ``before`` it names; None when such a line changed."""
    where = {}  # a line of before -> its index in after, for the lines left as they were
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, before, after,
                                                       autojunk=False).get_opcodes():
        if tag == "equal":
            where.update({i1 + k + 1: j1 + k for k in range(i2 - i1)})
    if not set(edits) <= set(where):
        return None
    out = list(after)
    for line in sorted(edits, reverse=True):
        index, text = where[line], edits[line]
        if text is None:
            del out[index]
        else:
            ending = out[index][len(out[index].rstrip("\r\n")):]
            out[index] = text + ending
    return out


def add_noqa(findings: list[Finding], reason: str, write: bool) -> list[Outcome]:
    """Suppresses each unsuppressed finding of a YAML file with a comment above its line."""
    by_source: dict[int, tuple[SourceFile, dict[int, set[str]]]] = {}
    for f in findings:
        doc = f.at[0] if f.at else None
        if f.suppressed or doc is None or f.line is None or doc.source.format != "yaml":
            continue
        if doc.source.line(f.line) is None:  # the end of the text (a YAML error there)
            continue
        lines = by_source.setdefault(id(doc.source), (doc.source, {}))[1]
        lines.setdefault(f.line, set()).add(f.rule)
    outcomes = []
    for source, lines in by_source.values():
        before = source.text.splitlines(True)
        after = list(before)
        ending = "\r\n" if before and before[0].endswith("\r\n") else "\n"  # the file's
        for line in sorted(lines, reverse=True):
            text = before[line - 1]
            indent = text[:len(text) - len(text.lstrip(" "))]
            after.insert(line - 1, f"{indent}# policylint: disable={','.join(sorted(lines[line]))}"
                                   f"{' ' + reason if reason else ''}{ending}")
        text = "".join(after)
        problem = _same_values(source, source.text, text)
        diff = "".join(difflib.unified_diff(before, after, f"a/{source.name}",
                                            f"b/{source.name}"))
        if problem is None and write:
            problem = _write(source, text)
        count = sum(len(codes) for codes in lines.values())
        outcomes.append(Outcome(source.name, 0 if problem else count, diff, problem,
                                text=None if problem else text))
    return outcomes


def _same_values(source: SourceFile, old_text: str, new_text: str,
                 deleted: list = ()) -> str | None:
    """Why ``new_text`` (comments added or removed, the ``deleted`` entries gone) does not
    read as ``old_text`` (None: it does)."""
    from .sources.yamldoc import load_yaml
    try:
        old = [d.data for d in load_yaml(SourceFile(source.name, old_text, "yaml"))]
        new = [d.data for d in load_yaml(SourceFile(source.name, new_text, "yaml"))]
        for doc, path in deleted:
            node = old[doc.index]
            for key in doc.prefix + path[:-1]:
                node = node[key]
            del node[path[-1]]
    except ParseError as exc:
        return f"the new text would not parse: {exc.message}"
    except (KeyError, IndexError, TypeError):
        return "an entry to delete is not where it was read: fix it by hand"
    return None if old == new else "a comment there would change a value (a block scalar)"


def _change(documents: list, finding: Finding) -> int | None:
    """Applies one fix to the documents; the 1-based line of the entry it changes (None: it
    does not apply, a rename onto a key the mapping has: left for the user)."""
    from ruamel.yaml.scalarstring import ScalarString
    fix = finding.fix
    doc, path = fix.at
    node = documents[doc.index]
    for key in doc.prefix + path[:-1]:
        node = node[key]
    key = path[-1]
    line = node.lc.key(key)[0] + 1
    old = node[key]
    value = fix.value
    if isinstance(old, ScalarString) and value is not None:
        value = type(old)(str(value))  # quoted as it was
    elif isinstance(old, str) and value is not None:
        value = str(value)
    if fix.action == "delete":
        node.ca.items.pop(key, None)
        del node[key]
    elif fix.action == "set":
        node[key] = value
    elif fix.action == "rename":
        if fix.key in node:  # two keys for one setting: which value is meant is the user's
            return None
        position = list(node).index(key)
        comment = node.ca.items.pop(key, None)
        del node[key]
        node.insert(position, fix.key, value)
        if comment is not None:
            node.ca.items[fix.key] = comment
    return line


def _changed_lines(before: list[str], after: list[str]) -> set[int]:
    """1-based lines of ``before`` that the new text changes or drops."""
    changed = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after,
                                                        autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            changed.add(i1)  # an insertion counts against the line before it
    return changed - {0}


def _write(source: SourceFile, text: str) -> str | None:
    """Writes the fixed text over the file it was read from (``policylint.writes``); why
    not, when it is not written."""
    if source.from_stdin:  # its --stdin-filename may name a file: not the one linted
        return "standard input is not written back (--diff prints the fix)"
    from .writes import replace
    return replace(source.path or source.name, text, source.text, source.bom)
