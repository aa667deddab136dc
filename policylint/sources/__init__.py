"""From paths to the model: walk, read, parse, recognise, validate, build.

This package is the only code that knows file formats. Problems with an input file become
PL100 (not parseable), PL101 (breaks its schema) or PL102 (not a supported kind) findings;
problems with how policylint was called (a missing path, a broken context file) raise
``InputError`` and end the run with exit 2.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Iterator

from msgspec import Struct, field

from ..model import Change, Finding, Plan, Snapshot, TopicSpec
from ..schema import format_path
from . import formats, kafka_tools, reassignment, snapshot, topics_describe
from .clusters import Group, Placement
from .document import Document, ParseError, SourceFile
from .formats import Fields, is_placeholder
from .jsondoc import load_json
from .schemas import validator
from .yamldoc import load_yaml

DEFAULT_MAX_FILE_SIZE = 256 * 2**20
EXTENSIONS = (".yaml", ".yml", ".json", ".yaml.tpl", ".yml.tpl", ".json.tpl", ".tf")
_TYPED = ("reassignment", "snapshot")  # kinds whose model is built from msgspec types
# a FIFO is opened without waiting for a writer (and then refused, not read)
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_FIRST_CHARACTER = re.compile(r"\s*(\S?)")  # text.lstrip()[:1], without the copy


class InputError(Exception):
    """A problem with how policylint was called, not with a linted file (exit 2)."""


class Inputs(Struct):
    files: list[str] = field(default_factory=list)  # checked
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    findings: list[Finding] = field(default_factory=list)
    manifests: list[TopicSpec] = field(default_factory=list)
    plans: list[Plan] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    #: cluster descriptions: (kind, document, its values)
    kafkas: list[tuple[str, Document, Fields]] = field(default_factory=list)
    #: documents others refer to, by role: Strimzi's node pools ("nodepool"), Jikkou's
    #: ConfigMaps ("configmap"), Terraform's module calls ("module")
    related: dict[str, list[Document]] = field(default_factory=lambda: {
        role: [] for role in formats.REFERENCED})
    #: the linted inputs grouped by cluster, and which cluster a manifest or plan is of
    groups: list[Group] = field(default_factory=list)
    placement: Placement | None = None
    unplaced: list = field(default_factory=list)  # plans no cluster places (PL123)
    changes: list[Change] = field(default_factory=list)  # of change sets (Terraform plans)
    #: the current assignment (``--current``, or printed beside a plan): (topic, partition)
    #: -> replicas
    current: dict[tuple[str, int], list[int]] | None = None


def display_name(path: str | Path) -> str:
    """Relative to the working directory, with ``/`` separators."""
    name = os.fspath(path)
    # a relative path is already relative to it: normalising it is relpath without the
    # two absolute paths relpath builds (10,000 files a run)
    name = os.path.normpath(name) if not os.path.isabs(name) else os.path.relpath(name)
    return name.replace(os.sep, "/")


Walked = tuple[str, str, bool]  # (path, display name, given explicitly)


STDIN = "-"

#: what a long-lived caller (``policylint server``) puts in place of the disk: the unsaved
#: text of the files open in an editor (absolute path -> text), and the documents of files
#: read before (absolute path -> ((size, mtime), documents)), taken again while the file
#: is as it was
unsaved: ContextVar[dict[str, str] | None] = ContextVar("unsaved", default=None)
read_before: ContextVar[dict | None] = ContextVar("read_before", default=None)


def walk(paths: list[str], stdin_name: str | None = None, exclude: list[str] = (),
         force_exclude: bool = False, respect_gitignore: bool = True) -> Iterator[Walked]:
    """Every file of ``paths`` with its display name; directories are walked in sorted
    order, skipping hidden entries, files that are not YAML or JSON (or their templates),
    what git ignores (if ``respect_gitignore``) and what an ``exclude`` pattern matches
    (``ignore.Excluder``). A file
    named explicitly is always read, unless ``force_exclude``. ``-`` is standard input,
    shown as ``stdin_name``."""
    from .ignore import Excluder
    excluder = Excluder(exclude, respect_gitignore)
    seen: set = _run_outputs()  # never the run's own output, redirected into the tree
    for path in paths:
        if path == STDIN:
            if STDIN not in seen:
                seen.add(STDIN)
                yield STDIN, display_name(stdin_name) if stdin_name else STDIN, True
        elif os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                # the directory's display name, made once for its files (an absolute path
                # costs a relpath each)
                shown = display_name(root)
                prefix = "" if shown == "." else shown + "/"
                inside = os.path.join(os.path.abspath(root), "")  # made once for its files
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not
                                 excluder.left_out(inside + d, prefix + d, True))
                for name in sorted(names):
                    if name.endswith(EXTENSIONS) and not name.startswith(".") and not \
                            excluder.left_out(inside + name, prefix + name):
                        yield from _once(os.path.join(root, name), prefix + name, False, seen)
        elif os.path.lexists(path) or os.path.abspath(path) in (unsaved.get() or ()):
            # a named file that cannot be read is a finding; an editor's new file is read
            if not (force_exclude and excluder.excluded(path, display_name(path))):
                yield from _once(path, display_name(path), True, seen)
        else:
            raise InputError(f"{path}: no such file or directory")


def _run_outputs() -> set:
    """The (device, inode) of standard output where it is redirected to a file
    (``policylint lint . > report.json``: the shell made it, empty, before the run started):
    the run's own output, never read as an input. (``--report`` and ``-o`` targets are
    written after the run, and never over one of its inputs: ``writes``.)"""
    import stat
    try:
        info = os.fstat(1)
    except (OSError, ValueError):
        return set()
    return {(info.st_dev, info.st_ino)} if stat.S_ISREG(info.st_mode) else set()


def _once(path: str, name: str, explicit: bool, seen: set) -> Iterator[Walked]:
    try:  # the file itself, however it is reached: one stat, not realpath's one per part
        info = os.stat(path)
        key: object = (info.st_dev, info.st_ino)
    except OSError:  # a link to nowhere: named, it is reported; walked, it is skipped
        key = os.path.realpath(path)
    if key not in seen:
        seen.add(key)
        yield path, name, explicit


class Template(ParseError):
    """The file is a Go/Helm or Jinja template that cannot be read before it is rendered. A
    walk skips it; named, it is a PL100."""


class Empty(ParseError):
    """An empty YAML file (many Helm charts hold an empty ``values.yaml``). A walk skips
    it; named, it is a PL100."""


class NotRegular(ParseError):
    """The path is no regular file: a directory, FIFO, device or socket, or a symbolic link
    that leads nowhere. A walk skips it; named, it is a PL100."""


def start_of(paths: list[str]) -> Path | None:
    """Where discovery starts for a run over ``paths``: the first path's folder (a file's
    own), so that ``policylint lint ~/src/repo/kafka`` run from anywhere finds that
    repository's policy and git; None (the working directory) for standard input."""
    first = next((p for p in paths if p != "-"), None)
    if first is None:
        return None
    return Path(os.path.abspath(first if os.path.isdir(first) else
                                os.path.dirname(first) or "."))


def read(path: str | Path, max_size: int, name: str | None = None) -> SourceFile:
    """The file's text, shown as ``name`` (by default its ``display_name``); ParseError
    when it cannot be read, is no regular file, is too large, not UTF-8 or empty. At most
    ``max_size`` + 1 bytes are read, whatever the file system says of its size, and nothing
    waits for a writer (a FIFO is refused, not read). ``-`` is standard input, read to
    its end (InputError when it is a terminal: nothing would end it)."""
    if path == STDIN:
        return _stdin(max_size, name or STDIN)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise NotRegular(f"cannot be read: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(f"not a regular file ({_special(info.st_mode)})")
        # the size the file system gives is a hint for the first read, not a bound
        chunks, left, ask = [], max_size + 1, info.st_size + 1
        while left > 0:
            wanted = min(left, ask)
            chunk = os.read(fd, wanted)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            if len(chunk) < wanted and max_size + 1 - left == info.st_size > 0:
                break  # the size it said, read short: its end (/proc says 0, and is read on)
            ask = 2**16
    except OSError as exc:
        raise ParseError(f"cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > max_size:
        raise ParseError(f"file is larger than the {_mib(max_size)} limit (raise it with "
                         "--max-file-size)")
    source = decode(name or display_name(path), data, _suffix(os.fspath(path)))
    source.path, source.bom = os.fspath(path), data.startswith(b"\xef\xbb\xbf")
    return source


def _stdin(max_size: int, name: str) -> SourceFile:
    import sys
    stream = sys.stdin
    if stream is None or stream.isatty():
        raise InputError("- reads standard input, which is a terminal: pipe a file into it "
                         "(helm template CHART | policylint lint -)")
    chunks, left = [], max_size + 1
    try:
        while left > 0:
            chunk = stream.buffer.read1(min(left, 2**16)) if hasattr(stream, "buffer") \
                else stream.read(min(left, 2**16)).encode("utf-8", "surrogateescape")
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except (OSError, ValueError) as exc:
        raise ParseError(f"standard input cannot be read: {exc}") from None
    data = b"".join(chunks)
    if len(data) > max_size:
        raise ParseError(f"standard input is larger than the {_mib(max_size)} limit (raise it "
                         "with --max-file-size)")
    source = decode(name, data, _suffix(name))
    source.from_stdin = True
    return source


def _special(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "a special file"


def decode(name: str, data: bytes, suffix: str) -> SourceFile:
    """A file's bytes as text, in the format its suffix or content says."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise ParseError(f"not a UTF-8 text file (byte 0x{data[exc.start]:02x} cannot be "
                         "decoded)", line, column) from None
    # neither test copies the text, as strip() would: a large file ends with a newline
    if not text or text.isspace():
        raise (Empty if suffix in (".yaml", ".yml") else ParseError)("file is empty")
    if suffix == ".tf":
        return SourceFile(name, text, "hcl")
    looks_json = suffix not in (".yaml", ".yml") and \
        _FIRST_CHARACTER.match(text).group(1) in ("{", "[")
    return SourceFile(name, text, "json" if suffix == ".json" or looks_json else "yaml")


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size} bytes"


def parse(source: SourceFile) -> list[Document]:
    """The documents of a file: YAML documents, a JSON document, the JSON parts of the Kafka
    tool's printed output; the items of a ``kind: List`` (``kubectl get -o yaml``) each a
    document of its own."""
    if source.format == "hcl":
        from . import terraform  # python-hcl2, imported only when a .tf file is read
        return terraform.parse(source)
    if kafka_tools.is_tool_output(source.text):
        return kafka_tools.tool_output(source)
    if topics_describe.is_describe(source.text):
        return topics_describe.parse(source)
    try:
        docs = load_json(source) if source.format == "json" else load_yaml(source)
    except ParseError as exc:
        if source.templated():
            raise Template(f"a template (render it first, e.g. helm template CHART | policylint "
                           f"lint -): {exc.message}", exc.line, exc.column) from None
        raise
    # a file of many documents is searched for "List" first; a large JSON document is not
    if (len(docs) == 1 or "List" in source.text) and any(map(_is_list, docs)):
        docs = [item for doc in docs for item in (
            [doc.item("items", i) for i in range(len(doc.data["items"]))]
            if _is_list(doc) else [doc])]
    return docs


def _is_list(doc: Document) -> bool:
    data = doc.data if doc.typed is None else None  # a plan or snapshot is no List
    return type(data) is dict and data.get("kind") == "List" and \
        isinstance(data.get("items"), list) and "apiVersion" in data


def detect(data: object) -> str | None:
    """The input kind of a document, by content alone."""
    return formats.detect(data)


def source_finding(code: str, message: str, file: str, line: int | None = None,
                   column: int | None = None, at: tuple | None = None) -> Finding:
    """A PL100-PL102 finding; the engine names and ranks it from its rule, like any other."""
    return Finding(code, "", "", message, at=at, file=file, line=line, column=column)


def kind_of(doc: Document) -> str | None:
    """The input kind of a document: what its file says it is, else its content (asked
    once per document: the editor reads a folder again on each edit of its cluster file)."""
    if doc.kind is ...:
        doc.kind = _kind(doc)
    return doc.kind


def _kind(doc: Document) -> str | None:
    if doc.role == "current":
        return "reassignment"
    if doc.typed is not None:  # by its fields: a schema's types are made anew per Schema
        return "snapshot" if hasattr(doc.typed, "brokers") else "reassignment"
    return detect(doc.data)


_UNCHECKED = (None, "other")  # roles of documents policylint does not check


def checked(kind: str | None) -> bool:
    """Whether policylint checks documents of this kind (another tool's it only names)."""
    return formats.role(kind) not in _UNCHECKED


def validate(kind: str, doc: Document) -> list:
    """The schema errors of a document of a kind policylint knows, less those of values
    that are template placeholders (unknown, not wrong). A valid plan or snapshot keeps its
    value as the schema's msgspec types (``doc.typed``): the model is built from it.
    Asked once per document and kind: the editor reads a folder again on each edit of its
    cluster file, every other document unchanged."""
    if doc.checked is None or doc.checked[0] != kind:
        doc.checked = (kind, _errors(kind, doc))
    return doc.checked[1]


def _errors(kind: str, doc: Document) -> list:
    schema = formats.validator(kind)
    if doc.typed is not None:
        return []
    if kind not in _TYPED:
        errors = schema.errors(doc.data)
        if errors and doc.source.templated():
            errors = [e for e in errors if not is_placeholder(doc.get(e[0]))]
        judges = getattr(formats.format_of(kind), "judges", None) if errors else None
        return [e for e in errors if judges(doc, e[0])] if judges else errors
    import msgspec
    try:
        doc.typed = schema.convert(doc.data)
    except msgspec.ValidationError as exc:
        # what JSON Schema lets pass and the typed model cannot hold (1.0 for an integer,
        # an integer beyond 64 bits) is said as msgspec says it, at its path, unless a
        # violation JSON Schema found covers it
        errors = schema.explain(doc.data)
        typed = _typed_error(str(exc))
        if not any(typed[0][:len(path)] == path or path[:len(typed[0])] == typed[0]
                   for path, _ in errors):  # one found beside it, above it or below it
            errors.append(typed)
        return errors
    return []


def _typed_error(message: str) -> tuple[tuple, str]:
    """msgspec's "Expected `int`, got `float` - at `$.topics[0].name`" as (path, message)."""
    text, _, at = message.partition(" - at `$")
    path = tuple(int(index) if index else key for key, index in
                 re.findall(r"\.([^.\[`]+)|\[(\d+)\]", at.rstrip("`")))
    return path, text.replace("`", "").replace("Expected", "expected", 1)


Parsed = tuple[str, bool, "list[Document] | ParseError"]  # (name, given explicitly, documents)


def parse_files(files: list[Walked], max_size: int = DEFAULT_MAX_FILE_SIZE) -> list[Parsed]:
    """The documents of each file ``walk`` found, or why it could not be read."""
    parsed: list[Parsed] = []
    held, cache = unsaved.get() or {}, read_before.get()
    for path, name, explicit in files:
        real = os.path.abspath(path) if (held or cache is not None) and path != STDIN \
            else None
        stamp = _stamp(path) if real and cache is not None and real not in held else None
        if stamp is not None and cache.get(real, (None,))[0] == stamp:
            parsed.append((name, explicit, cache[real][1]))
            continue
        source = None
        try:
            if real in held:
                source = decode(name, held[real].encode("utf-8", "surrogatepass"),
                                _suffix(path))
                source.path = path
            else:
                source = read(path, max_size, name)
            docs: list[Document] | ParseError = parse(source)
        except ParseError as exc:
            exc.source = source  # the text it could not read, for the excerpt of its PL100
            docs = exc.kept()
        if stamp is not None:
            cache[real] = (stamp, docs)
        parsed.append((name, explicit, docs))
    return parsed


def _stamp(path: str) -> tuple | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ino


def load_bytes(name: str, data: bytes) -> Inputs:
    """The model of one file given as bytes (read through another file system: Spark's)."""
    try:
        docs: list[Document] | ParseError = parse(decode(name, data, _suffix(name)))
    except ParseError as exc:
        docs = exc.kept()
    return load([(name, False, docs)])


def load(parsed: list[Parsed], related: dict[str, list[Document]] | None = None) -> Inputs:
    """The model of parsed files; ``related``: the documents other files hold that theirs
    may refer to (else those among ``parsed``)."""
    inputs = Inputs()
    topics: list[tuple[str, Document, Fields | None]] = []
    patches = kustomize_patches(parsed)
    for name, explicit, docs in parsed:
        if isinstance(docs, (NotRegular, Template, Empty)) and not explicit:
            inputs.skipped.append((name, docs.message))
            continue
        if name in patches:
            inputs.skipped.append((name, patches[name]))
            continue
        if isinstance(docs, ParseError):
            inputs.files.append(name)
            text = getattr(docs, "source", None)  # shown under the finding, with a caret
            inputs.findings.append(source_finding(
                "PL100", docs.message, name, docs.line, docs.column,
                at=None if text is None else (Document(text, None, 0, lambda _: None), ())))
            continue
        kinds = [kind_of(doc) for doc in docs]
        roles = [formats.role(kind) for kind in kinds]
        if all(role in _UNCHECKED for role in roles):
            if not explicit and all(_own_output(doc) for doc in docs):
                continue  # a report or baseline policylint wrote: not an input, not skipped
            inputs.skipped.append((name, next(filter(None, (
                formats.unclaimed(doc.data) for doc in docs)), "none of policylint's kinds")))
            if explicit:
                inputs.findings.append(_unknown(name, docs, kinds))
            continue
        inputs.files.append(name)
        for doc, kind, role in zip(docs, kinds, roles):
            if role not in _UNCHECKED:
                _add(inputs, kind, role, doc, validate(kind, doc), topics)
    # once every file is read: a declaration may refer to another file's documents
    inputs.manifests, inputs.changes = declarations(
        topics, inputs.related if related is None else related)
    return inputs


def declarations(documents: list[tuple[str, Document, Fields | None]], related: dict
                 ) -> tuple[list[TopicSpec], list[Change]]:
    """The topics that (kind, document, its values) declare, and the changes of those that
    are change sets (a format with ``changes``: its topics are their ``after`` sides); none
    of a document whose names broke its schema."""
    found: list[TopicSpec] = []
    changes: list[Change] = []
    builders: dict[str, Any] = {}
    for kind, doc, fields in documents:
        build = builders.get(kind)
        if build is None:
            module = formats.format_of(kind)
            build = builders[kind] = getattr(module, "changes", None) or module.topics
        try:
            made = build(doc, fields, related)
        except formats.REFUSED:
            continue
        if made and isinstance(made[0], Change):
            changes += made
            found += [change.after for change in made if change.after is not None]
        else:
            found += made
    return found, changes


def _own_output(doc: Document) -> bool:
    """Whether a document is a report or baseline policylint wrote (JSON, SARIF, GitLab)."""
    data = doc.data
    if isinstance(data, dict):
        tool = data.get("tool")
        runs = data.get("runs")
        return data.get("format") == "policylint-baseline" or (
            isinstance(tool, dict) and tool.get("name") == "policylint") or (
            isinstance(runs, list) and any(
                isinstance(r, dict) and isinstance(r.get("tool"), dict) and isinstance(
                    r["tool"].get("driver"), dict) and
                r["tool"]["driver"].get("name") == "policylint" for r in runs))
    return isinstance(data, list) and bool(data) and all(
        isinstance(i, dict) and "check_name" in i and "fingerprint" in i for i in data)


def _unknown(name: str, docs: list[Document], kinds: list[str | None]) -> Finding:
    other = next((kafka_tools.OTHER_TOOLS[k] for k in kinds if k in kafka_tools.OTHER_TOOLS),
                 None)
    shaped = next(filter(None, (formats.unclaimed(doc.data) for doc in docs)), None)
    if shaped and not other:  # a note that says why, not a warning of an unknown file
        found = source_finding("PL102", shaped, name, at=(docs[0], ()))
        found.severity = "note"
        return found
    message = f"{other}: not a document policylint checks" if other else (
        "not a document policylint knows (a topic declaration of Strimzi, Confluent for "
        "Kubernetes, Jikkou, Koperator, Aiven, Conduktor, topicctl, JulieOps, kafka-gitops or "
        "Terraform, a Kafka cluster resource, a reassignment plan, a Terraform plan, "
        "kafka-topics.sh --describe output or a ClusterSnapshot)")
    return source_finding("PL102", message, name, at=(docs[0], ()) if docs else None)


def _add(inputs: Inputs, kind: str, role: str, doc: Document, errors: list,
         topics: list) -> None:
    for path, message in errors:
        inputs.findings.append(source_finding(
            "PL101", f"{format_path(path)}: {message}", doc.source.name, at=(doc, path)))
    if role == "topics":
        # a field that broke the schema is unknown; the others are still judged
        fields = Fields(doc, (e[0] for e in errors)) \
            if errors or doc.source.templated() else None
        topics.append((kind, doc, fields))
    elif role == "plan":
        bad, fatal = split_errors(errors, "partitions", None)
        if fatal:
            return
        plan = _typed(inputs, doc, reassignment.plan, doc, {i for i, in bad})
        if plan is None:
            return
        if doc.role == "current":  # the baseline printed beside a proposed plan
            inputs.current = {**(inputs.current or {}), **reassignment.assignment(plan)}
        else:
            inputs.plans.append(plan)
    elif role == "snapshot":
        if kind != "snapshot":  # another tool's printed snapshot
            inputs.snapshots.extend(formats.format_of(kind).snapshots(doc))
            return
        bad, fatal = split_errors(errors, "topics", "partitions")
        built = None if fatal else _typed(inputs, doc, snapshot.snapshot, doc,
                                          {k[0] for k in bad if len(k) == 1},
                                          {k for k in bad if len(k) == 2})
        if built is not None:
            inputs.snapshots.append(built)
    elif role == "cluster":  # its profile is built once every file is read
        if not any(len(path) <= 1 for path, _ in errors):
            inputs.kafkas.append((kind, doc, Fields(doc, (e[0] for e in errors))))
    elif errors:
        return  # a broken node pool or ConfigMap would only confuse the rules
    elif role in formats.REFERENCED:
        inputs.related[role].append(doc)


def _typed(inputs: Inputs, doc: Document, build: Any, *args: Any) -> Any:
    """``build(*args)`` of the good parts of a document that broke its schema; None, with a
    PL101 where msgspec says, when a part JSON Schema let pass cannot be typed either."""
    import msgspec
    try:
        return build(*args)
    except msgspec.ValidationError as exc:
        path, message = _typed_error(str(exc))
        inputs.findings.append(source_finding(
            "PL101", f"{format_path(path)}: {message}", doc.source.name, at=(doc, path)))
        return None


def split_errors(errors: list, items: str, sub: str | None) -> tuple[set[tuple], bool]:
    """Which entries of the ``items`` list (and of their ``sub`` lists) broke the schema:
    those are left out of the model. ``fatal``: an error outside them voids the document."""
    bad: set[tuple] = set()
    fatal = False
    for path, _ in errors:
        if sub and len(path) >= 4 and path[0] == items and path[2] == sub:
            bad.add((path[1], path[3]))
        elif len(path) >= 2 and path[0] == items:
            bad.add((path[1],))
        else:
            fatal = True
    return bad, fatal


def load_context(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE
                 ) -> list[tuple[str, Document]]:
    """The recognised documents of a context file (``--cluster``, ``--current``); any
    problem with it is an InputError."""
    return context_documents(path, parse_context(path, max_size))


def parse_context(path: str, max_size: int = DEFAULT_MAX_FILE_SIZE) -> list[Document]:
    """The documents of a context file (from ``unsaved`` where it holds it); InputError
    when it cannot be read."""
    held = (unsaved.get() or {}).get(os.path.abspath(path))
    try:
        if held is not None:
            source = decode(display_name(Path(path)), held.encode("utf-8", "surrogatepass"),
                            _suffix(path))
            return parse(source)
        return parse(read(Path(path), max_size))
    except ParseError as exc:
        raise InputError(f"{path}:{exc.line or 1}:{exc.column or 1}: {exc.message}") from None


def context_documents(path: str, docs: list[Document]) -> list[tuple[str, Document]]:
    """(kind, document) of the recognised documents of a context file; InputError at the
    first schema violation."""
    found = []
    for doc in docs:
        kind = kind_of(doc) if doc.role is None else None
        if not checked(kind):  # not a kind policylint checks (another tool's file)
            continue
        errors = validate(kind, doc)
        if errors:
            raise context_error(path, doc, errors)
        found.append((kind, doc))
    return found


def context_error(path: str, doc: Document, errors: list) -> InputError:
    """The first schema violation of a context file's document, located."""
    where, message = errors[0]
    line, column = doc.locate(where) or (1, 1)
    return InputError(f"{path}:{line}:{column}: {format_path(where)}: {message}")


def base_manifests(files: list[tuple[str, bytes]], max_size: int = DEFAULT_MAX_FILE_SIZE
                   ) -> list[TopicSpec]:
    """The topic declarations among ``(name, bytes)`` files read from a git ref. They are
    the baseline of the diff rules, not linted: anything unreadable is left out."""
    parsed = []
    for name, data in files:
        if len(data) > max_size:
            continue
        try:
            parsed.append((name, False, parse(decode(name, data, _suffix(name)))))
        except ParseError:
            continue
    return load(parsed).manifests


def _suffix(name: str) -> str:
    """A file's format suffix: ``.yaml`` of ``topics.yaml.tpl`` too."""
    root, suffix = os.path.splitext(name)
    return os.path.splitext(root)[1].lower() if suffix.lower() == ".tpl" else suffix.lower()


#: the fields of a kustomization that name patch files
_PATCH_FIELDS = ("patches", "patchesStrategicMerge", "patchesJson6902")


def kustomize_patches(parsed: list[Parsed]) -> dict[str, str]:
    """The files a ``kustomization.yaml`` among the inputs names as patches, with why they
    are skipped: a patch of a topic is no second declaration of it, and only the overlay's
    result says what the topic will be."""
    found: dict[str, str] = {}
    for name, _, docs in parsed:
        if posixpath.basename(name) not in ("kustomization.yaml", "kustomization.yml",
                                            "Kustomization") or isinstance(docs, ParseError):
            continue
        folder = posixpath.dirname(name)
        for doc in docs:
            data = doc.data if isinstance(doc.data, dict) else {}
            for field in _PATCH_FIELDS:
                for entry in data.get(field) or ():
                    path = entry.get("path") if isinstance(entry, dict) else entry
                    if isinstance(path, str) and "://" not in path:
                        patched = posixpath.normpath(posixpath.join(folder, path))
                        found[patched] = (
                            f"a Kustomize patch ({name} {field}): lint what the overlay "
                            f"builds, kustomize build {folder or '.'} | policylint lint -")
    return found
