"""The editor's workspace as ``policylint lint`` would see it, kept between edits.

Every file read is parsed once and kept (keyed by size, mtime and inode, so a file is
parsed again only when it changes). An open file is linted from the editor's unsaved text
with its workspace folder whole, as ``policylint lint FOLDER`` reads it (its policy, its
clusters scoped by directory): the same findings, for that file and for the folder's
others. The folder's model is kept too: an edit of a file that only declares topics reads
that file again and judges it alone among the others (``loader.replaced``), in time that
does not grow with the folder; an edit of a file that only describes clusters reads that
file again and judges every topic on the clusters made again (``loader.redescribed``);
any other edit, or a change on disk, reads the folder again. The files that describe
clusters (Strimzi ``Kafka`` and node pools, snapshots...) are found from the parsed files
when first asked, for a file outside every folder.
"""

from __future__ import annotations

import difflib
import functools
import gc
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote, unquote

from ..linter import alike_names, judge, load, renamed_alike, weighed
from ..settings import resolve
from ..sources import display_name, read_before, unsaved


#: the roles of documents that describe a cluster rather than declare topics
_CLUSTER_ROLES = {"cluster", "snapshot", "nodepool", "configmap"}
#: where a document with no file (an editor's untitled one) is placed: in no workspace
#: folder (``root_of``), where no file is (its text is the editor's alone), named as its
#: findings show it (``untitled:/Untitled-1.yaml``), under the working directory's policy
UNTITLED = os.path.join(os.getcwd(), "untitled:")


def untitled(uri: str, language: str) -> str:
    """The path an untitled document (``untitled:Untitled-1``) is linted as: a file of
    its name outside every folder, judged alone with the workspace's clusters, of the
    format its language says (JSON, else YAML)."""
    suffix = ".json" if language == "json" else ".yaml"
    return os.path.join(UNTITLED, quote(uri.partition(":")[2], safe="") + suffix)


def uri_of(path: str) -> str:
    """The URI of the file at ``path``; an untitled document's own (``untitled``)."""
    path = os.path.abspath(path)
    if os.path.dirname(path) == UNTITLED:
        return "untitled:" + unquote(Path(path).stem)
    return Path(path).as_uri()


class Linted(NamedTuple):
    name: str  # the file as findings name it
    text: str
    result: object  # engine.Result (None: none of policylint's kinds)


class Workspace:
    def __init__(self, roots: list[str], options: dict | None = None):
        self.roots = [os.path.abspath(r) for r in roots if os.path.isdir(r)]
        self.options = options
        self.parsed: dict = {}  # sources.read_before: every file read, while unchanged
        self._of_root: dict[str, list[str]] | None = None  # None: not found yet

    @property
    def options(self) -> dict:
        """The editor's settings, as ``settings.resolve``'s keywords (policy, select,
        ignore, kafka_version, baseline): what ``policylint lint`` with those options
        gives."""
        return self._options

    @options.setter
    def options(self, options: dict | None) -> None:
        self._options = dict(options or {})
        self.loaded: dict[tuple, tuple] = {}  # paths -> (Settings, Inputs) of the last run
        self.unjudged: set[tuple] = set()  # the folders (paths) whose files ``rest`` judges
        self.alones: dict[tuple, Alone] = {}  # (paths, name) -> kept while the others are
        self.held: dict[str, str] = {}  # path -> its text in the kept models, where an
        # edit or a read gave the editor's (else the disk's)
        self.spliced = None  # loader.Spliced: where the last edit judged alone put its topics

    def options_of(self, path: str) -> dict:
        """The settings as they apply to ``path``: a relative ``policy`` or ``baseline``
        file is its workspace folder's (``~`` the home), as ruff's server reads its
        configuration path; outside every folder, the working directory's."""
        root, options = self.root_of(os.path.abspath(path)), dict(self.options)
        for key in ("policy", "baseline"):
            if options.get(key):
                options[key] = os.path.join(root or "", os.path.expanduser(options[key]))
        return options

    @property
    def of_root(self) -> dict[str, list[str]]:
        """Each folder's own cluster files (found when first asked: a folder's first lint
        has parsed its files by then)."""
        if self._of_root is None:
            self.scan()
        return self._of_root

    @property
    def clusters(self) -> list[str]:
        return sorted({c for found in self.of_root.values() for c in found})

    def stale(self) -> None:
        """A file came, went or changed on disk: find the cluster files again when asked,
        and read every folder again."""
        self._of_root = None
        self.loaded.clear()
        self.alones = {}

    def closed(self, path: str) -> None:
        """The editor closed the file at ``path``: the disk's text stands for it again. The
        kept models stay when they hold that text (opened, or saved, and left as it was);
        else the file and its folder are read again."""
        path = os.path.abspath(path)
        held = self.held.pop(path, None)
        if held is not None and held != _on_disk(path):
            self.forget(path)

    def saved(self) -> None:
        """An open file's text reached disk: the kept models judged that text already;
        which files describe clusters (found on disk) is found again when next asked."""
        self._of_root = None

    def judged_by_text(self, path: str) -> bool:
        """Whether the file at ``path``, open, is judged by the editor's text: an input or a
        policy file (YAML, JSON, HCL), not the baseline, which is read from disk."""
        from ..sources import EXTENSIONS
        path = os.path.abspath(path)
        return path.endswith(EXTENSIONS) and not any(
            settings.baseline and os.path.abspath(settings.baseline) == path
            for settings, _ in self.loaded.values())

    def scan(self) -> None:
        """Finds the files that describe clusters: those with a document whose role is a
        cluster's (a ``Kafka``, a node pool, a snapshot...), by kind alone, as a walk
        parses them; files read before and unchanged are not parsed again."""
        from ..sources import formats, kind_of, parse_files, walk
        token = read_before.set(self.parsed)
        self._of_root = {}
        try:
            with uncollected():
                for root in self.roots:
                    try:
                        files = list(walk([root]))
                    except Exception:  # a workspace policylint cannot walk: no clusters
                        self._of_root[root] = []
                        continue
                    self._of_root[root] = sorted({
                        os.path.abspath(path)
                        for (path, _, _), (_, _, docs) in zip(files, parse_files(files))
                        if not isinstance(docs, Exception)
                        and any(formats.role(kind_of(doc)) in _CLUSTER_ROLES for doc in docs)})
        finally:
            read_before.reset(token)

    def root_of(self, path: str) -> str | None:
        """The innermost workspace folder that holds ``path`` (each folder is linted as
        ``policylint lint FOLDER`` would lint it: its own clusters)."""
        if os.path.dirname(path) == UNTITLED:
            return None
        inside = [r for r in self.roots if path == r or path.startswith(r.rstrip(os.sep) + os.sep)]
        return max(inside, key=len, default=None)

    def fellows(self, path: str, paths) -> set[str]:
        """Those of ``paths`` (absolute) linted with ``path``: the others in its folder
        (none for a file outside every folder)."""
        root = self.root_of(os.path.abspath(path))
        return set() if root is None else \
            {p for p in paths if p != path and self.root_of(p) == root}

    def forget(self, path: str) -> None:
        """A file changed or went away on disk (or its unsaved text did, closed): read it,
        and its folder, again when next asked."""
        self.parsed.pop(os.path.abspath(path), None)
        self.loaded.clear()
        self.alones = {}

    def lint(self, path: str, texts: dict[str, str], edited: bool = False,
             first: set[str] | None = None) -> tuple[Linted, dict[str, Linted] | None]:
        """The findings of the file at ``path``, its workspace folder linted as
        ``policylint lint FOLDER`` lints it, with the editor's unsaved ``texts`` (path ->
        text) in place of the files on disk; and those of the folder's other files that
        have findings (a cluster's finding that names this file's topic lives there).
        ``edited``: the file's text changed since its last lint: when it can be, it alone
        is judged again among the folder's kept model, and the others' findings are None
        (as they were). ``first``: when the folder is read again, only these files (the
        open ones, by path) are judged now; ``rest`` judges the others. A file outside every
        folder is judged with the workspace's clusters, alone: it has no folder whose files
        it is linted with."""
        path = os.path.abspath(path)
        texts = {os.path.abspath(p): t for p, t in texts.items()}
        name, root, paths = display_name(path), self.root_of(path), self._paths(path, texts)
        alone = self._again(paths, path, name, texts) if edited else None
        if alone is not None:
            return Linted(name, texts.get(path, ""), alone), None
        edit = path if edited else None
        if root is None:  # outside every folder: no other file's findings are this run's
            result, others = self._run(list(paths), texts, {name}, edit), None
        else:
            judged = None if first is None else \
                {name} | {display_name(p) for p in self.fellows(path, first)}
            result = self._run(list(paths), texts, judged, edit)
            if judged is not None:
                self.unjudged.add(paths)
            others = _by_file(result, texts, {f.file for f in result.findings
                                              if f.file and f.file != name})
            # the folder's open files, judged by this run: what they are now, found or not
            others.update((p, _linted(display_name(p), texts[p], result))
                          for p in self.fellows(path, texts) if p not in others)
        return _linted(name, texts.get(path, ""), result), others

    def _paths(self, path: str, texts: dict[str, str]) -> tuple[str, ...]:
        """What ``lint`` reads for the file at ``path`` (absolute; ``texts``: the editor's,
        by absolute path): its folder (``_folder``); outside every folder, the file and the
        workspace's clusters."""
        root = self.root_of(path)
        if root is not None:
            return self._folder(root, texts, path)
        return (path, *(c for c in self.clusters if c != path and os.path.exists(c)))

    def _folder(self, root: str, texts: dict[str, str], path: str | None = None) -> tuple:
        """What a lint of the folder ``root`` reads: the folder, and beside it each file in
        it the editor has but the disk has not yet (a walk finds none of them; one linted,
        ``path``, whatever its name), so that every file of the folder is linted with them."""
        from ..sources import EXTENSIONS
        new = {p for p in texts if p.endswith(EXTENSIONS) and self.root_of(p) == root}
        if path is not None:
            new.add(path)
        return (root, *sorted(p for p in new if not os.path.exists(p)))

    def prepare(self, path: str, texts: dict[str, str]) -> None:
        """What an edit of the file at ``path`` alone is compared with (``_again``), made
        ready after its folder was read, before the first edit comes: that edit is then
        answered as fast as the next."""
        path = os.path.abspath(path)
        paths = self._paths(path, {os.path.abspath(p): t for p, t in texts.items()})
        if paths in self.loaded:
            with uncollected():
                self._alone(paths, display_name(path))

    def rest(self, texts: dict[str, str]) -> dict[tuple, dict[str, Linted]]:
        """After ``lint``s that judged their ``first`` files alone: for each of those folders
        (paths), every file with findings, judged whole on its kept model (which the edits
        since have kept current)."""
        texts = {os.path.abspath(p): t for p, t in texts.items()}
        found = {}
        for paths in sorted(self.unjudged & self.loaded.keys()):
            result = self._whole(paths)
            found[paths] = _by_file(result, texts, {f.file for f in result.findings if f.file})
        self.unjudged = set()
        return found

    def lint_all(self, texts: dict[str, str], kept: bool = False) -> dict[str, Linted]:
        """Every file policylint reads in the workspace, each folder linted whole as
        ``policylint lint FOLDER`` lints it (workspace diagnostics): path -> its findings.
        ``kept``: a folder whose model is kept is judged on it, not read again: the editor
        reports what changes on disk, and the caller has judged each edit (``lint``)."""
        texts = {os.path.abspath(p): t for p, t in texts.items()}
        found: dict[str, Linted] = {}
        for root in self.roots:
            paths = self._folder(root, texts)
            result = self._whole(paths) if kept and paths in self.loaded else \
                self._run(list(paths), texts)
            found.update(_by_file(result, texts, set(result.read) |
                                  {f.file for f in result.findings if f.file}))
        return found

    def _whole(self, paths: tuple):
        """Every file of the kept model of ``paths`` judged."""
        settings, inputs = self.loaded[paths]
        with uncollected():
            result = judge(inputs, settings)
        result.findings = [f for f in result.findings if f.rule != "PL102"]
        return result

    def _run(self, paths: list[str], texts: dict[str, str], judged: set[str] | None = None,
             edited: str | None = None):
        """``lint(paths)`` with the editor's settings, its unsaved texts in place of the
        files on disk, and the files read before and unchanged not parsed again; the model
        kept for the edits that follow. ``judged``: as ``linter.judge`` takes it;
        ``edited``: the file whose edit this run answers, when the kept model may be made
        current for it without a read of the folder (``_kept``)."""
        held, cached = unsaved.set(texts), read_before.set(self.parsed)
        try:
            with uncollected():
                settings = resolve(paths, **self.options_of(paths[0]))
                inputs = self._kept(tuple(paths), edited, texts, settings) or \
                    load(paths, settings)
                result = judge(inputs, settings, judged=judged, elsewhere=None if judged is None
                               else weighed(inputs, settings, judged))
        except Exception:  # (a broken policy) what is kept is no longer what the files say
            self.loaded.pop(tuple(paths), None)
            raise
        finally:
            unsaved.reset(held)
            read_before.reset(cached)
        self.loaded[tuple(paths)] = settings, inputs
        self.alones, self.held = {}, dict(texts)
        # the model is kept, and makes no cycles (freed as it is dropped): no collection
        # walks it again (a full one would take 0.1 s for every 2,000 files)
        gc.freeze()
        result.findings = [f for f in result.findings if f.rule != "PL102"]
        return result

    def _again(self, paths: tuple, path: str, name: str, texts: dict[str, str]):
        """The result of the one file ``path`` read again from ``texts`` and judged among
        the folder's kept model (None: it cannot be judged alone, or nothing is kept)."""
        from ..sources.loader import replaced
        if paths not in self.loaded or path not in texts:
            return None
        settings, inputs = self.loaded[paths]
        with uncollected():
            made = replaced(inputs, self._parsed(path, name, texts, settings), self.spliced)
            if made is None:
                return None
            swapped, spliced = made
            alone = self._alone(paths, name)
            result = judge(swapped, settings, judged={name}, elsewhere=alone.others,
                           topics=spliced.by_group())
            if alone.changed_by(result, spliced):
                return None
        self.loaded[paths], self.spliced = (settings, swapped), spliced
        held = self.held.get(path)
        if texts[path] != (_on_disk(path) if held is None else held):  # (not one opened as
            # it is) what the other files' edits are compared with weighed it as it was
            self.alones = {(paths, name): alone}
        self.held[path] = texts[path]
        result.findings = [f for f in result.findings if f.rule != "PL102"]
        return result

    def _kept(self, paths: tuple, path: str | None, texts: dict[str, str], settings):
        """The kept model of ``paths`` made current for an edit of the file at ``path``
        (``settings``: the edit's) without a read of the folder: as it is, when no read of
        the folder takes that file (hidden, as ``.policylint.yaml``, or neither YAML nor
        JSON, as pyproject.toml: a policy's edit judges the kept model again); with that
        file read again, when it describes clusters alone (``loader.redescribed``). None
        when it cannot be: nothing kept, or settings that read otherwise
        (``Settings.reads_as``)."""
        from ..sources import EXTENSIONS
        from ..sources.loader import redescribed
        if path is None or paths not in self.loaded:
            return None
        kept, inputs = self.loaded[paths]
        if not kept.reads_as(settings):
            return None
        root = self.root_of(path)
        walked = path in paths or root is None or path.endswith(EXTENSIONS) and not any(
            part.startswith(".") for part in os.path.relpath(path, root).split(os.sep))
        if not walked:  # (a file named in ``paths`` is read, whatever its name)
            return inputs
        if settings.clusters or settings.joining or path not in texts:
            return None  # what a read of clusters adds to them: made again by a whole one
        return redescribed(inputs, self._parsed(path, display_name(path), texts, settings),
                           settings.policy.clusters)

    @staticmethod
    def _parsed(path: str, name: str, texts: dict[str, str], settings) -> Any:
        """The file at ``path`` parsed from the editor's ``texts``, as a read with
        ``settings`` parses it."""
        from ..sources import parse_files
        from ..sources.yamldoc import max_nodes
        held, bound = unsaved.set(texts), max_nodes.set(settings.max_yaml_values)
        try:
            return parse_files([(path, name, False)], settings.max_file_size)[0]
        finally:
            unsaved.reset(held)
            max_nodes.reset(bound)

    def _alone(self, paths: tuple, name: str) -> Alone:
        """What an edit of the file ``name`` judged alone on the kept model of ``paths`` is
        compared with: computed once, kept while the model's other files are as they were."""
        alone = self.alones.get((paths, name))
        if alone is None:
            settings, inputs = self.loaded[paths]
            others = weighed(inputs, settings, {name})
            judged = judge(inputs, settings, judged={name}, elsewhere=others)
            alone = self.alones[paths, name] = Alone(
                others, _said(judged.elsewhere), alike_names(inputs, settings, name),
                judged.all_break)
        return alone


class Alone(NamedTuple):
    """What an edit of one file judged alone is compared with: made once from the kept
    model, whose other files do not change while that file is edited (kept by the
    model's paths and the file's name: ``Workspace.alones``)."""
    others: Any  # what every other file's subjects weigh (linter.weighed)
    said: list[tuple]  # what a judgement of the file alone says of the others (_said)
    alike: list  # the others' topic names by the keys rules compare them by
    all_break: dict  # whether the file's topics break every value they inherit

    def changed_by(self, result: Any, spliced: Any) -> bool:
        """Whether the edit judged as ``result`` (its topics where ``spliced`` put them)
        changes another file's findings: a topic both declare, the one finding at a
        cluster's value every topic that inherits it breaks, a name Kafka's metrics cannot
        tell from another's."""
        return _said(result.elsewhere) != self.said or \
            renamed_alike(self.alike, spliced.renamed()) or \
            _regathered(self.others, self.all_break, result.all_break)


def _regathered(others, before: dict, after: dict) -> bool:
    """Whether an edit turns the findings of other files' topics that inherit one value
    (``others``: what they weigh) into one finding at that value, or back: when every one
    of them breaks its rule, the edited file's topics decide, by whether every one of
    theirs that inherits it breaks it too (``Result.all_break``, before and after; none
    inheriting it: all)."""
    return any(before.get(cause, True) != after.get(cause, True)
               for cause in before.keys() | after.keys()
               if 0 < others.inheritors[cause] == others.breaking[cause])


def _said(findings: list) -> list[tuple]:
    """What findings say, in their order (a run sorts them), comparable from one run to
    the next."""
    return [(f.rule, f.file, f.line, f.column, f.message, f.suppressed, f.subjects)
            for f in findings]


@contextmanager
def uncollected():
    """The cyclic collector off while a lint builds its many small objects, or a publish
    the diagnostics of many files (no cycles worth collecting; as the CLI runs): it would
    walk every parsed file the workspace keeps, again and again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def uncollecting(method: Any) -> Any:
    """``method`` run ``uncollected`` (one that does not wait: the collector is the
    process's)."""
    @functools.wraps(method)
    def run(*args: Any, **kwargs: Any) -> Any:
        with uncollected():
            return method(*args, **kwargs)
    return run


def _on_disk(path: str) -> str | None:
    """The text of the file at ``path`` as it is on disk, as an editor holds it (line ends
    as written); None when it cannot be read."""
    try:
        with open(path, encoding="utf-8", newline="") as file:
            return file.read()
    except (OSError, UnicodeDecodeError):
        return None


def _linted(name: str, text: str, result) -> Linted:
    """The file ``name`` as ``result`` judged it: without a result when the run did not
    read it as one of policylint's kinds (nor refused it)."""
    known = name in result.read or any(f.rule == "PL100" and f.file == name
                                       for f in result.findings)
    return Linted(name, text, result if known else None)


def _by_file(result, texts: dict[str, str], names: set[str]) -> dict[str, Linted]:
    """The run's findings for each of the files ``names`` (as findings name them), by
    absolute path; the editor's text of each, else the file's."""
    found = {}
    for name in sorted(names):
        full = os.path.abspath(name)
        try:
            text = texts.get(full) or open(full, encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        found[full] = Linted(name, text, result)
    return found


class Edit(NamedTuple):
    """Replace lines ``start`` to ``end`` (0-based, end excluded) by ``text``."""
    start: int
    end: int
    text: str


def edit(before: str, after: str) -> Edit:
    """The one edit, whole lines, that turns ``before`` into ``after``."""
    old, new = before.splitlines(True), after.splitlines(True)
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    blocks = [b for b in matcher.get_opcodes() if b[0] != "equal"]
    if not blocks:
        return Edit(0, 0, "")
    first, last = blocks[0], blocks[-1]
    return Edit(first[1], last[2], "".join(new[first[3]:last[4]]))
