"""The editor's session as one class: each LSP message a method of ``Session``, registered
by ``build`` on a pygls server (imported only by ``policylint server``)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any, Iterator

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from . import help as config_help
from ..sources import display_name
from .answers import FIX_ALL, code_actions, diagnostics, fix_all, refusal, related, \
    settings
from .workspace import Linted, Workspace, uncollecting, untitled

#: how long to wait after an edit for the next one before linting (milliseconds)
DEBOUNCE_MS = 50
#: how long no text changes before the folder's other files are judged whole after a
#: cluster file's edit (milliseconds; the open documents are answered at once)
REST_MS = 300
#: the commands the server runs (``workspace/executeCommand``), named as ruff's are
APPLY_AUTOFIX = "policylint.applyAutofix"
DEBUG_INFORMATION = "policylint.printDebugInformation"


def build() -> LanguageServer:
    """The server, each feature a method of one session."""
    server = LanguageServer("policylint", __version__,
                            text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    session = Session()
    server.feature(types.INITIALIZE)(_handler(session.initialize))
    server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(_handler(session.configuration))
    server.feature(types.SHUTDOWN)(_handler(session.shutdown))
    server.feature(types.EXIT)(_handler(session.exit_))
    server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(_handler(session.folders_changed))
    server.feature(types.INITIALIZED)(_handler(session.initialized))
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(_handler(session.did_open))
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(_handler(session.did_change))
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(_handler(session.did_save))
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(_handler(session.did_close))
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(_handler(session.watched))
    server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))(
            _handler(session.code_action))
    server.feature(types.TEXT_DOCUMENT_HOVER)(_handler(session.hover))
    server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(
        trigger_characters=[":", " "]))(_handler(session.completion))
    server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)(_handler(session.symbols))
    server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="policylint", inter_file_dependencies=True, workspace_diagnostics=True))(
            _handler(session.pull))
    server.feature(types.WORKSPACE_DIAGNOSTIC)(_handler(session.pull_all))
    server.command(APPLY_AUTOFIX)(_handler(session.apply_autofix))
    server.command(DEBUG_INFORMATION)(_handler(session.debug_information))
    return server


def _handler(method: Any) -> Any:
    """A session's method as the plain function pygls registers (it marks each handler
    with attributes, which a bound method cannot take)."""
    if asyncio.iscoroutinefunction(method):
        async def handle(ls: LanguageServer, *args: Any) -> Any:  # pygls passes ls by name
            return await method(ls, *args)
    else:
        def handle(ls: LanguageServer, *args: Any) -> Any:
            return method(ls, *args)
    handle.__name__ = handle.__qualname__ = method.__name__
    return handle


class Session:
    """One editor's session: the workspace it lints, what was published, its settings;
    each LSP message a method (``build`` registers them)."""

    def __init__(self) -> None:
        self._workspace: Workspace | None = None
        self.linted: dict[str, tuple] = {}  # uri -> (version, Linted)
        self.debounce = DEBOUNCE_MS / 1000
        self.shut_down = False
        self.elsewhere: dict[tuple, set] = {}  # folder (paths) -> the files published for
        self.options: dict = {}  # the editor's settings, as settings.resolve's keywords
        self.finishing = False  # a judgement of the folder's other files is scheduled
        self.edits = 0  # the changes of text so far
        self.changed: set[str] = set()  # open documents changed since opened or saved
        self.untitled: dict[str, str] = {}  # uri -> the path an untitled document is linted as
        self.shown: dict[str, list] = {}  # uri -> what a closed file was last published with
        self.watching = False  # the editor reports the files changed on disk

    def workspace(self) -> Workspace:
        if self._workspace is None:  # a client that sent no folders: the working one
            self._workspace = Workspace([os.getcwd()], self.options)
        return self._workspace

    def configure(self, raw: Any) -> None:
        """Settings as ruff's server takes them: ``initializationOptions``, or
        ``workspace/didChangeConfiguration``'s ``{"policylint": {...}}``."""
        self.options, debounce = settings(raw)
        if debounce is not None:
            self.debounce = debounce
        if self._workspace is not None:
            self._workspace.options = dict(self.options)

    def initialize(self, ls: LanguageServer, params: types.InitializeParams) -> None:
        self.configure(params.initialization_options)

    def configuration(self, ls: LanguageServer,
                      params: types.DidChangeConfigurationParams) -> None:
        if not isinstance(params.settings, dict):  # null, as clients that pull settings
            return  # send it: the settings stay as they were
        self.configure(params.settings)
        self.republish(ls)

    def shutdown(self, ls: LanguageServer, params: Any) -> None:
        self.shut_down = True

    def exit_(self, ls: LanguageServer, params: Any) -> None:
        # LSP: exit code 0 after a shutdown request, 1 without one
        sys.stdout.flush()
        os._exit(0 if self.shut_down else 1)

    def folders_changed(self, ls: LanguageServer,
                        params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = {os.path.abspath(to_fs_path(f.uri) or "") for f in params.event.removed}
        roots = set(self.workspace().roots) - removed
        roots |= {os.path.abspath(p) for f in params.event.added if (p := to_fs_path(f.uri))}
        self._workspace = Workspace(sorted(roots), self.options)
        for folder in [f for f in self.elsewhere if f[0] in removed]:  # its files' findings
            for uri in sorted(self.elsewhere.pop(folder)):  # go with it (an open one's are
                if self.opened(ls, uri) is None:  # published again below)
                    self.show(ls, uri, None)
        self.republish(ls)

    def initialized(self, ls: LanguageServer, params: types.InitializedParams) -> None:
        folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()] or \
            ([ls.workspace.root_path] if ls.workspace.root_path else [os.getcwd()])
        self._workspace = Workspace([f for f in folders if f], self.options)
        watch = ls.client_capabilities.workspace
        watch = watch.did_change_watched_files if watch is not None else None
        self.watching = bool(watch is not None and watch.dynamic_registration)
        if self.watching:  # files edited elsewhere: the inputs, a policy in pyproject.toml,
            # what git ignores
            ls.client_register_capability(types.RegistrationParams(registrations=[
                types.Registration(
                    id="policylint-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                        types.FileSystemWatcher(glob_pattern=pattern) for pattern in (
                            "**/*.{yaml,yml,json,tf}", "**/{pyproject.toml,.gitignore}")]))]))

    def path_of(self, ls: LanguageServer, uri: str) -> str | None:
        """The file a document is linted as: its own; an untitled one's (``untitled:``, no
        file yet) outside every folder (``workspace.untitled``); None for other schemes."""
        path = to_fs_path(uri)
        if path is None and uri.startswith("untitled:"):
            document = self.opened(ls, uri)
            if document is not None:
                self.untitled[uri] = untitled(uri, document.language_id or "")
            path = self.untitled.get(uri)
        return path

    def open_texts(self, ls: LanguageServer) -> dict[str, str]:
        """The editor's unsaved text of each open file, by path."""
        return {p: d.source for u, d in list(ls.workspace.text_documents.items())
                if (p := to_fs_path(u))}

    @uncollecting
    def publish(self, ls: LanguageServer, uri: str, edited: bool = False) -> None:
        """Lints the document and publishes its findings, and those of the folder's other
        files; ``edited``: after a change of its text, when it may be judged alone."""
        document = ls.workspace.get_text_document(uri)
        path = self.path_of(ls, uri)
        if path is None:
            return
        texts = self.open_texts(ls)
        texts[path] = document.source
        try:  # the open documents first; the folder's other files when judged whole (rest)
            linted, others = self.workspace().lint(path, texts, edited, set(texts))
        except Exception as exc:  # a problem with the call (a broken policy): said, not fatal
            self.linted[uri] = (document.version, Linted(path, document.source, None))
            if self.refused(ls, str(exc).splitlines()[0]) != uri:
                self.show(ls, uri, None)
            return
        self.linted[uri] = (document.version, linted)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=document.version,
            diagnostics=diagnostics(linted, types, related(ls))))
        if others is None:  # this file alone judged again: the others' are as published
            return
        for other in sorted(self.workspace().fellows(path, texts)):  # the folder's open
            # ones, judged now: found or not
            self.show(ls, Path(other).as_uri(), others.get(other))
        for known in self.linted.keys() - {uri}:  # and what their requests (a pull, a code
            # action) answer from: this run's judgement of their text as it is
            fellow, document = others.get(os.path.abspath(to_fs_path(known) or "")), \
                self.opened(ls, known)
            if fellow is not None and document is not None:
                self.linted[known] = (document.version, fellow)
        if not self.finishing:
            self.finishing = True
            asyncio.get_running_loop().call_later(REST_MS / 1000, self.finish, ls,
                                                  self.edits)

    def refused(self, ls: LanguageServer, said: str) -> str | None:
        """Says why the lint could not run (a broken policy): on the open policy file it
        names, where it names it (typing a policy is answered there, not by a window), else
        in a message window. The URI it was shown on, if any."""
        for uri, document in list(ls.workspace.text_documents.items()):
            path = to_fs_path(uri)
            names = {display_name(path), display_name(os.path.realpath(path))} if path else ()
            found = [diagnostic for name in names for diagnostic in refusal(
                said, Linted(name, document.source, None), types)][:1]
            if found:
                ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                    uri=uri, version=document.version, diagnostics=found))
                return uri
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Error,
                                                       f"policylint: {said}"))
        return None

    @uncollecting
    def finish(self, ls: LanguageServer, edits: int) -> None:
        """The folder's other files, judged whole on the model the edits since have kept
        current (never a result from before a change), once no edit has come for REST_MS:
        typing in a cluster file is answered for the open documents alone."""
        if edits != self.edits:  # typing goes on: later
            asyncio.get_running_loop().call_later(REST_MS / 1000, self.finish, ls,
                                                  self.edits)
            return
        self.finishing = False
        texts = self.open_texts(ls)
        besides = {Path(p).as_uri() for p in texts}  # an open document's are its own lint's:
        # its text may be newer
        for folder, others in self.workspace().rest(texts).items():
            self.publish_others(ls, folder, others, besides)

    def publish_others(self, ls: LanguageServer, folder: tuple, others: dict,
                       besides: set[str]) -> None:
        """The findings of a folder's files, open or not (as ruff's workspace diagnostics):
        a cluster's finding that names an open file's topic is there; a file whose findings
        went is cleared. ``besides``: files not published here."""
        shown = {Path(p).as_uri(): found for p, found in others.items()}
        for other in sorted(set(shown) | self.elsewhere.get(folder, set())):
            if other not in besides:
                self.show(ls, other, shown.get(other))
        self.elsewhere[folder] = set(shown)

    def show(self, ls: LanguageServer, uri: str, linted: Linted | None) -> None:
        """Publishes a file's findings (none: cleared). An open document's carry the version
        of the text they judged (its unsaved text, this lint's): an editor drops them once
        it has a newer. A closed file's are published when they differ from what it was
        last shown (a cluster's edit judges every file again; few change)."""
        open_ = self.opened(ls, uri)
        found = diagnostics(linted, types, related(ls)) if linted else []
        if open_ is None:
            shown = [(d.range, d.message, d.severity, d.code, d.related_information)
                     for d in found]  # (not ``data``: a finding's place in its run)
            if self.shown.get(uri) == shown:
                return
            self.shown[uri] = shown
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=open_.version if open_ is not None else None,
            diagnostics=found))

    async def later(self, ls: LanguageServer, uri: str, version: int | None) -> None:
        await asyncio.sleep(self.debounce)
        document = ls.workspace.get_text_document(uri)
        known = self.linted.get(uri)
        if document.version == version and (known is None or known[0] != version):  # the
            # last edit of a burst, not judged yet by a request that needed it (``current``)
            self.publish(ls, uri, edited=True)

    def did_open(self, ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        # judged alone among the kept model where one is, as after an edit: the model holds
        # the file as the disk has it, which the editor's text most often is
        self.publish(ls, uri, edited=True)
        path = self.path_of(ls, uri)
        if path is not None:  # opened to be edited: its first edit as fast as the next
            asyncio.get_running_loop().call_soon(
                lambda: self.workspace().prepare(path, self.open_texts(ls)))

    async def did_change(self, ls: LanguageServer,
                         params: types.DidChangeTextDocumentParams) -> None:
        self.edits += 1
        self.changed.add(params.text_document.uri)
        await self.later(ls, params.text_document.uri, params.text_document.version)

    def did_save(self, ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        self.changed.discard(params.text_document.uri)
        self.saved(ls, params.text_document.uri)

    def saved(self, ls: LanguageServer, uri: str) -> None:
        """An open file's text reached disk (saved; the change a watcher then reports).
        Where that text is what was judged (an input, a policy: the editor's unsaved text
        stands in for the disk's), the file is judged again as after an edit, and the
        files outside every folder, which read the workspace's clusters, with it; where the
        disk's is read whatever the editor holds (.gitignore, the baseline), every file is
        judged again by it."""
        path = to_fs_path(uri)
        if path is None:
            return
        if self.workspace().judged_by_text(path):
            self.workspace().saved()
            self.publish(ls, uri, edited=True)
            for other in list(self.linted):
                elsewhere = self.path_of(ls, other)
                if other != uri and elsewhere and self.workspace().root_of(
                        os.path.abspath(elsewhere)) is None:
                    self.publish(ls, other)
        else:
            self.workspace().forget(path)
            self.workspace().stale()
            self.republish(ls)

    def did_close(self, ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        self.linted.pop(uri, None)
        self.shown.pop(uri, None)  # cleared below: its findings are published again
        path = to_fs_path(uri) or self.untitled.pop(uri, None)
        if path is not None:  # its unsaved text is gone: the disk's stands for it again
            self.workspace().closed(path)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, diagnostics=[]))
        if uri in self.changed:  # changes closed unsaved (a policy's, a cluster's) judged
            self.changed.discard(uri)  # the other files: judged again by the disk's text
            self.republish(ls)

    def watched(self, ls: LanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        elsewhere = False  # a change the editor did not make: a file not open changed
        for change in params.changes:
            if change.type == types.FileChangeType.Changed and \
                    self.opened(ls, change.uri) is not None:  # an open one saved: its text
                self.saved(ls, change.uri)  # is the editor's
                continue
            path = to_fs_path(change.uri)
            if path is not None:
                self.workspace().forget(path)
                elsewhere = True
        if elsewhere:  # a cluster file changed, came or went: find the clusters again
            self.workspace().stale()
            self.republish(ls)

    def republish(self, ls: LanguageServer) -> None:
        for uri in list(self.linted):
            self.publish(ls, uri)

    def opened(self, ls: LanguageServer, uri: str) -> Any:
        """The open document of ``uri``; None for one the editor has not opened (a request
        on it answers null, as for a document with nothing to say)."""
        return ls.workspace.text_documents.get(uri)

    def current(self, ls: LanguageServer, uri: str) -> Linted | None:
        document = self.opened(ls, uri)
        if document is None:
            return None
        known = self.linted.get(uri)
        if known is None or known[0] != document.version:  # edited since (a request that
            # comes before the debounce ends): judged as the debounce would judge it
            self.publish(ls, uri, edited=known is not None)
            known = self.linted.get(uri)
        return known[1] if known else None

    def code_action(self, ls: LanguageServer, params: types.CodeActionParams) -> list:
        linted = self.current(ls, params.text_document.uri)
        if linted is None or linted.result is None:
            return []
        return code_actions(linted, params, types)

    def hover(self, ls: LanguageServer, params: types.HoverParams) -> Any:
        document = self.opened(ls, params.text_document.uri)
        if document is None:
            return None
        lines = document.lines
        row = params.position.line
        if row >= len(lines):
            return None
        code = config_help.code_at(lines[row].rstrip("\r\n"), params.position.character)
        if code is not None:  # a suppression comment's code, a policy's rules: key
            path = self.path_of(ls, params.text_document.uri) or ""
            text = config_help.rule_hover(code.key, self.workspace().options_of(path).get(
                "policy"), Path(path).parent)
            return None if text is None else types.Hover(
                contents=types.MarkupContent(types.MarkupKind.Markdown, text),
                range=types.Range(types.Position(row, code.start), types.Position(row, code.end)))
        key = config_help.key_at(lines[row].rstrip("\r\n"), params.position.character)
        if key is None:
            return None
        text = config_help.hover(key.key, self.release(ls, params.text_document.uri))
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text),
                           range=types.Range(types.Position(row, key.start),
                                             types.Position(row, key.end)))

    def completion(self, ls: LanguageServer, params: types.CompletionParams) -> Any:
        document = self.opened(ls, params.text_document.uri)
        if document is None:
            return None
        lines = [line.rstrip("\r\n") for line in document.lines] or [""]
        row = min(params.position.line, len(lines) - 1)
        line = lines[row]
        version = self.release(ls, params.text_document.uri)
        key = config_help.value_of(line, params.position.character)
        if key is not None:
            found = config_help.values(key, version)
            kind = types.CompletionItemKind.Value
        elif config_help.in_config(lines, row):
            style = config_help.syntax(self.path_of(ls, params.text_document.uri) or "")
            found = config_help.keys(version, config_help.written(lines, row), style)
            kind = types.CompletionItemKind.Property
        else:
            return None
        column = min(params.position.character, len(line))
        replaced = types.Range(types.Position(row, config_help.typed(line, column)),
                               types.Position(row, column))
        return types.CompletionList(is_incomplete=False, items=[
            types.CompletionItem(label=c.label, kind=kind, detail=c.detail,
                                 documentation=c.doc or None, filter_text=c.label,
                                 text_edit=types.TextEdit(range=replaced, new_text=c.insert))
            for c in found])

    def symbols(self, ls: LanguageServer, params: types.DocumentSymbolParams) -> list:
        """One symbol per topic the file declares (the outline)."""
        found = []
        for spec, _ in _declared(self.current(ls, params.text_document.uri)):
            doc, path = spec.where("name")
            at = doc.locate(path) or (1, 1)
            start = types.Position(at[0] - 1, max(at[1] - 1, 0))
            found.append(types.DocumentSymbol(
                name=spec.name, kind=types.SymbolKind.Object, detail=spec.kind,
                range=types.Range(start, start), selection_range=types.Range(start, start)))
        return found

    def pull(self, ls: LanguageServer, params: types.DocumentDiagnosticParams) -> Any:
        """Pull diagnostics: the same as those published."""
        linted = self.current(ls, params.text_document.uri)
        return types.RelatedFullDocumentDiagnosticReport(
            items=diagnostics(linted, types, related(ls)) if linted else [])

    @uncollecting
    def pull_all(self, ls: LanguageServer, params: types.WorkspaceDiagnosticParams) -> Any:
        """Workspace pull diagnostics: every file policylint reads in every folder, open or
        not, with what ``policylint lint FOLDER`` gives it."""
        for uri in list(self.linted):  # each edit judged first, as its debounce would
            self.current(ls, uri)
        items = []
        found = self.workspace().lint_all(self.open_texts(ls), kept=self.watching)
        for path, linted in sorted(found.items()):
            uri = Path(path).as_uri()
            document = ls.workspace.text_documents.get(uri)
            items.append(types.WorkspaceFullDocumentDiagnosticReport(
                uri=uri, version=document.version if document else None,
                items=diagnostics(linted, types, related(ls))))
        return types.WorkspaceDiagnosticReport(items=items)

    def apply_autofix(self, ls, *arguments):  # unannotated: pygls spreads the arguments
        """Every fix of the documents named (``{"uri": ...}`` each, as ruff's
        ``ruff.applyAutofix`` takes them), applied by the editor (``workspace/applyEdit``)."""
        for argument in arguments:
            uri = argument.get("uri") if isinstance(argument, dict) else argument
            linted = self.current(ls, uri) if isinstance(uri, str) else None
            if linted is None or linted.result is None:
                continue
            fixed = fix_all(linted, uri, types)
            if fixed is not None:
                ls.workspace_apply_edit(types.ApplyWorkspaceEditParams(
                    edit=fixed, label="policylint: fix all"))

    def debug_information(self, ls, *arguments):
        """What the server runs with (as ``ruff.printDebugInformation``): shown in the
        editor's log and returned."""
        space = self.workspace()
        text = "\n".join([
            f"policylint {__version__}, Python {sys.version.split()[0]}",
            f"settings: {space.options or 'defaults'}; debounce "
            f"{round(self.debounce * 1000)} ms",
            *(f"folder {root}: clusters {', '.join(space.of_root.get(root, [])) or 'none'}"
              for root in space.roots),
            f"open documents: {len(ls.workspace.text_documents)}"])
        ls.window_log_message(types.LogMessageParams(types.MessageType.Info, text))
        return text

    def release(self, ls: LanguageServer, uri: str) -> str:
        """The Kafka release a document's topics are judged by (its cluster's)."""
        from .. import kafka_configs
        for spec, ctx in _declared(self.current(ls, uri)):  # the first of its topics
            return ctx.kafka_release(spec)
        return kafka_configs.newest()


def _declared(linted: Linted | None) -> Iterator[tuple]:
    """(declaration, its run's context) of each topic the linted file declares."""
    placed = linted.result.placed() if linted and linted.result else ()
    return ((spec, ctx) for spec, _, ctx in placed
            if spec.doc is not None and spec.doc.source.name == linted.name)
