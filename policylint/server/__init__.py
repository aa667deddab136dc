"""``policylint server``: the findings of ``policylint lint`` in the editor, as you type.

A Language Server Protocol server on standard input and output, on pygls (``pip install
'policylint[server]'``; imported only by this command). It publishes diagnostics for every
file policylint reads, from the editor's unsaved text, on open and on change (after a
pause in typing), linted as the CLI lints the workspace (``workspace.Workspace``); offers
each ``--fix`` and a suppression comment as code actions, and hover and completion of topic
config keys (``help``). It never writes a file: an edit is the editor's to apply.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from .. import __version__
from . import help as config_help
from .workspace import Linted, Workspace, edit

#: how long to wait after an edit for the next one before linting (milliseconds)
DEBOUNCE_MS = 50
#: the code action kind of "fix all", namespaced so that fix-on-save can name it alone
FIX_ALL = "source.fixAll.policylint"
#: the commands the server runs (``workspace/executeCommand``), named as ruff's are
APPLY_AUTOFIX = "policylint.applyAutofix"
DEBUG_INFORMATION = "policylint.printDebugInformation"


def serve() -> None:
    build().start_io()


def build() -> Any:
    """The server, its features registered."""
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path

    server = LanguageServer("policylint", __version__,
                            text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    state: dict[str, Any] = {"workspace": None, "linted": {}, "pending": {},
                             "debounce": DEBOUNCE_MS / 1000, "shutdown": False,
                             "elsewhere": {},  # uri -> the other files it published for
                             "options": {}}  # the editor's settings, as lint's keywords

    def workspace() -> Workspace:
        if state["workspace"] is None:  # a client that sent no folders: the working one
            state["workspace"] = Workspace([os.getcwd()], state["options"])
        return state["workspace"]

    def configure(raw: Any) -> None:
        """Settings as ruff's server takes them: ``initializationOptions``, or
        ``workspace/didChangeConfiguration``'s ``{"policylint": {...}}``."""
        state["options"], debounce = settings(raw)
        if debounce is not None:
            state["debounce"] = debounce
        if state["workspace"] is not None:
            state["workspace"].options = dict(state["options"])

    @server.feature(types.INITIALIZE)
    def initialize(ls: LanguageServer, params: types.InitializeParams) -> None:
        configure(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: LanguageServer, params: types.DidChangeConfigurationParams) -> None:
        configure(params.settings)
        republish(ls)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: LanguageServer, params: Any) -> None:
        state["shutdown"] = True

    @server.feature(types.EXIT)
    def exit_(ls: LanguageServer, params: Any) -> None:
        # LSP: exit code 0 after a shutdown request, 1 without one
        sys.stdout.flush()
        os._exit(0 if state["shutdown"] else 1)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: LanguageServer,
                        params: types.DidChangeWorkspaceFoldersParams) -> None:
        roots = set(workspace().roots)
        roots -= {os.path.abspath(to_fs_path(f.uri) or "") for f in params.event.removed}
        roots |= {os.path.abspath(p) for f in params.event.added if (p := to_fs_path(f.uri))}
        state["workspace"] = Workspace(sorted(roots), state["options"])
        republish(ls)

    @server.feature(types.INITIALIZED)
    def initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
        folders = [to_fs_path(f.uri) for f in ls.workspace.folders.values()] or \
            ([ls.workspace.root_path] if ls.workspace.root_path else [os.getcwd()])
        state["workspace"] = Workspace([f for f in folders if f], state["options"])
        watch = ls.client_capabilities.workspace
        watch = watch.did_change_watched_files if watch is not None else None
        if watch is not None and watch.dynamic_registration:  # cluster files edited elsewhere
            ls.client_register_capability(types.RegistrationParams(registrations=[
                types.Registration(
                    id="policylint-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                        types.FileSystemWatcher(glob_pattern="**/*.{yaml,yml,json,tf}")]))]))

    def open_texts(ls: LanguageServer) -> dict[str, str]:
        """The editor's unsaved text of each open file, by path."""
        return {p: d.source for u, d in list(ls.workspace.text_documents.items())
                if (p := to_fs_path(u))}

    def publish(ls: LanguageServer, uri: str, edited: bool = False) -> None:
        """Lints the document and publishes its findings, and those of the folder's other
        files; ``edited``: after a change of its text, when it may be judged alone."""
        document = ls.workspace.get_text_document(uri)
        path = to_fs_path(uri)
        if path is None:
            return
        texts = open_texts(ls)
        texts[path] = document.source
        others: dict = {}
        try:
            linted, others = workspace().lint(path, texts, edited)
        except Exception as exc:  # a problem with the call (a broken policy): said, not fatal
            ls.window_show_message(types.ShowMessageParams(
                types.MessageType.Error, f"policylint: {str(exc).splitlines()[0]}"))
            linted = Linted(path, document.source, None)
        state["linted"][uri] = (document.version, linted)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=document.version,
            diagnostics=diagnostics(linted, types, related(ls))))
        if others is None:  # this file alone judged again: the others' are as published
            return
        # the findings of the folder's other files, open or not (as ruff's workspace
        # diagnostics): a cluster's finding that names this file's topic is there; a file
        # whose findings went is cleared
        shown = {Path(p).as_uri(): found for p, found in others.items()}
        for other in sorted(set(shown) | state["elsewhere"].get(uri, set())):
            if other != uri:
                # an open document's diagnostics carry the version of the text they judged
                # (its unsaved text, this lint's): an editor drops them once it has a newer
                open_ = opened(ls, other)
                ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                    uri=other, version=open_.version if open_ is not None else None,
                    diagnostics=diagnostics(shown[other], types, related(ls))
                    if other in shown else []))
        state["elsewhere"][uri] = set(shown) - {uri}

    async def later(ls: LanguageServer, uri: str, version: int | None) -> None:
        await asyncio.sleep(state["debounce"])
        document = ls.workspace.get_text_document(uri)
        if document.version == version:  # the last edit of a burst
            publish(ls, uri, edited=True)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        await later(ls, params.text_document.uri, params.text_document.version)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = to_fs_path(params.text_document.uri)
        if path is not None and os.path.abspath(path) in workspace().clusters:
            workspace().forget(path)
            republish(ls)
        else:
            publish(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        state["linted"].pop(params.text_document.uri, None)
        path = to_fs_path(params.text_document.uri)
        if path is not None:  # its unsaved text is gone: the file on disk is read again
            workspace().forget(path)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: LanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        for change in params.changes:
            path = to_fs_path(change.uri)
            if path is not None:
                workspace().forget(path)
        workspace().stale()  # a cluster file changed, came or went: find the clusters again
        republish(ls)

    def republish(ls: LanguageServer) -> None:
        for uri in list(state["linted"]):
            publish(ls, uri)

    def opened(ls: LanguageServer, uri: str) -> Any:
        """The open document of ``uri``; None for one the editor has not opened (a request
        on it answers null, as for a document with nothing to say)."""
        return ls.workspace.text_documents.get(uri)

    def current(ls: LanguageServer, uri: str) -> Linted | None:
        document = opened(ls, uri)
        if document is None:
            return None
        known = state["linted"].get(uri)
        if known is None or known[0] != document.version:
            publish(ls, uri)
            known = state["linted"].get(uri)
        return known[1] if known else None

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    def code_action(ls: LanguageServer, params: types.CodeActionParams) -> list:
        linted = current(ls, params.text_document.uri)
        if linted is None or linted.result is None:
            return []
        return code_actions(linted, params, types)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: types.HoverParams) -> Any:
        document = opened(ls, params.text_document.uri)
        if document is None:
            return None
        lines = document.lines
        row = params.position.line
        if row >= len(lines):
            return None
        code = config_help.code_at(lines[row].rstrip("\r\n"), params.position.character)
        if code is not None:  # a suppression comment's code, a policy's rules: key
            text = config_help.rule_hover(code.key, workspace().options.get("policy"))
            return None if text is None else types.Hover(
                contents=types.MarkupContent(types.MarkupKind.Markdown, text),
                range=types.Range(types.Position(row, code.start), types.Position(row, code.end)))
        key = config_help.key_at(lines[row].rstrip("\r\n"), params.position.character)
        if key is None:
            return None
        text = config_help.hover(key.key, release(ls, params.text_document.uri))
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(types.MarkupKind.Markdown, text),
                           range=types.Range(types.Position(row, key.start),
                                             types.Position(row, key.end)))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=[":", " "]))
    def completion(ls: LanguageServer, params: types.CompletionParams) -> Any:
        document = opened(ls, params.text_document.uri)
        if document is None:
            return None
        lines = [line.rstrip("\r\n") for line in document.lines] or [""]
        row = min(params.position.line, len(lines) - 1)
        line = lines[row]
        version = release(ls, params.text_document.uri)
        key = config_help.value_of(line, params.position.character)
        if key is not None:
            found = config_help.values(key, version)
            kind = types.CompletionItemKind.Value
        elif config_help.in_config(lines, row):
            style = config_help.syntax(to_fs_path(params.text_document.uri) or "")
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

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: LanguageServer, params: types.DocumentSymbolParams) -> list:
        """One symbol per topic the file declares (the outline)."""
        linted = current(ls, params.text_document.uri)
        placed = getattr(linted.result, "placed", None) if linted else None
        found = []
        for spec, _, _ in placed or ():
            if spec.doc is None or spec.doc.source.name != linted.name:
                continue
            doc, path = spec.where("name")
            at = doc.locate(path) or (1, 1)
            start = types.Position(at[0] - 1, max(at[1] - 1, 0))
            found.append(types.DocumentSymbol(
                name=spec.name, kind=types.SymbolKind.Object, detail=spec.kind,
                range=types.Range(start, start), selection_range=types.Range(start, start)))
        return found

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="policylint", inter_file_dependencies=True, workspace_diagnostics=True))
    def pull(ls: LanguageServer, params: types.DocumentDiagnosticParams) -> Any:
        """Pull diagnostics: the same as those published."""
        linted = current(ls, params.text_document.uri)
        return types.RelatedFullDocumentDiagnosticReport(
            items=diagnostics(linted, types, related(ls)) if linted else [])

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    def pull_all(ls: LanguageServer, params: types.WorkspaceDiagnosticParams) -> Any:
        """Workspace pull diagnostics: every file policylint reads in every folder, open or
        not, with what ``policylint lint FOLDER`` gives it."""
        items = []
        for path, linted in sorted(workspace().lint_all(open_texts(ls)).items()):
            uri = Path(path).as_uri()
            document = ls.workspace.text_documents.get(uri)
            items.append(types.WorkspaceFullDocumentDiagnosticReport(
                uri=uri, version=document.version if document else None,
                items=diagnostics(linted, types, related(ls))))
        return types.WorkspaceDiagnosticReport(items=items)

    @server.command(APPLY_AUTOFIX)
    def apply_autofix(ls, *arguments):  # unannotated: pygls spreads the arguments
        """Every fix of the documents named (``{"uri": ...}`` each, as ruff's
        ``ruff.applyAutofix`` takes them), applied by the editor (``workspace/applyEdit``)."""
        for argument in arguments:
            uri = argument.get("uri") if isinstance(argument, dict) else argument
            linted = current(ls, uri) if isinstance(uri, str) else None
            if linted is None or linted.result is None:
                continue
            fixed = fix_all(linted, uri, types)
            if fixed is not None:
                ls.workspace_apply_edit(types.ApplyWorkspaceEditParams(
                    edit=fixed, label="policylint: fix all"))

    @server.command(DEBUG_INFORMATION)
    def debug_information(ls, *arguments):
        """What the server runs with (as ``ruff.printDebugInformation``): shown in the
        editor's log and returned."""
        space = workspace()
        text = "\n".join([
            f"policylint {__version__}, Python {sys.version.split()[0]}",
            f"settings: {space.options or 'defaults'}; debounce "
            f"{round(state['debounce'] * 1000)} ms",
            *(f"folder {root}: clusters {', '.join(space.of_root.get(root, [])) or 'none'}"
              for root in space.roots),
            f"open documents: {len(ls.workspace.text_documents)}"])
        ls.window_log_message(types.LogMessageParams(types.MessageType.Info, text))
        return text

    def release(ls: LanguageServer, uri: str) -> str:
        """The Kafka release a document's topics are judged by (its cluster's)."""
        from .. import kafka_configs
        linted = current(ls, uri)
        placed = getattr(linted.result, "placed", None) if linted else None
        if placed:
            spec, _, ctx = placed[0]
            return ctx.kafka_release(spec)
        return kafka_configs.newest()

    return server


_SEVERITY = {"error": 1, "warning": 2, "note": 3}


def settings(raw: Any) -> tuple[dict, float | None]:
    """(``lint``'s keywords, the debounce in seconds or None) of the editor's settings:
    ``policy`` (a file), ``select`` and ``ignore`` (codes, a list or comma-separated),
    ``kafkaVersion``, ``baseline`` (a file; "" for none), ``debounceMs``. What is not of its
    type is left out."""
    if isinstance(raw, dict) and isinstance(raw.get("policylint"), dict):
        raw = raw["policylint"]
    if not isinstance(raw, dict):
        return {}, None
    options: dict = {}
    for key, name in (("policy", "policy"), ("kafkaVersion", "kafka_version"),
                      ("baseline", "baseline")):
        if isinstance(raw.get(key), str):
            options[name] = raw[key]
    for key in ("select", "ignore"):
        value = raw.get(key)
        items = value.split(",") if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            options[key] = [i.strip() for i in items if i.strip()]
    debounce = raw.get("debounceMs")
    return options, (max(0, debounce) / 1000 if isinstance(debounce, (int, float))
                     and not isinstance(debounce, bool) else None)


def _column(text: str | None, column: int) -> int:
    """A 1-based column in characters as LSP's 0-based UTF-16 offset."""
    if not text:
        return max(column - 1, 0)
    head = text[:max(column - 1, 0)]
    return len(head.encode("utf-16-le", "surrogatepass")) // 2


def related(ls: Any) -> bool:
    """Whether the client takes ``relatedInformation`` (LSP: only where it says so)."""
    documents = ls.client_capabilities.text_document
    published = documents.publish_diagnostics if documents is not None else None
    return bool(published is not None and published.related_information)


def diagnostics(linted: Linted, types: Any, with_related: bool = True) -> list:
    """The unsuppressed findings of the file, as LSP diagnostics: located from start to
    end, the rule's code linked to its page."""
    if linted.result is None:
        return []
    from ..registry import all_rules
    rules = all_rules()
    lines = linted.text.splitlines()
    out = []
    for i, f in enumerate(linted.result.findings):
        if f.suppressed or f.file != linted.name:
            continue
        line = (f.line or 1) - 1
        text = lines[line] if 0 <= line < len(lines) else ""
        end = f.end() or (f.line or 1, len(text) + 1)
        start = types.Position(line, _column(text, f.column or 1))
        stop_text = lines[end[0] - 1] if 0 < end[0] <= len(lines) else ""
        stop = types.Position(end[0] - 1, _column(stop_text, end[1]))
        rule = rules.get(f.rule)
        href = rule.help_uri() if rule is not None else None
        related = [types.DiagnosticRelatedInformation(location=_location(r, types),
                                                      message=r["what"])
                   for r in f.related_at() if r.get("file") and r.get("line")]
        out.append(types.Diagnostic(
            range=types.Range(start, stop), message=f.message, source="policylint",
            severity=types.DiagnosticSeverity(_SEVERITY.get(f.severity, 3)), code=f.rule,
            code_description=types.CodeDescription(href=href) if href else None,
            related_information=related if related and with_related else None,
            data={"finding": i}))
    return sorted(out, key=lambda d: (d.range.start.line, d.range.start.character))


def _location(where: dict, types: Any) -> Any:
    """A related value's place (file, 1-based line and column) as an LSP Location."""
    at = types.Position(where["line"] - 1, max((where["column"] or 1) - 1, 0))
    return types.Location(uri=Path(os.path.abspath(where["file"])).as_uri(),
                          range=types.Range(at, at))


def code_actions(linted: Linted, params: Any, types: Any) -> list:
    """Per diagnostic in range its fix and a suppression comment; and "fix all"."""
    from .. import fixes
    findings = linted.result.findings
    uri = params.text_document.uri
    actions = []
    for diagnostic in params.context.diagnostics:
        finding = _finding_of(diagnostic, findings, linted.name)
        if finding is None:
            continue
        if finding.fix is not None:
            actions += _action(f"Fix {finding.rule}: {finding.message[:60]}",
                               _edit(fixes.apply([finding], write=False), linted, uri, types),
                               types.CodeActionKind.QuickFix, [diagnostic], types)
        actions += _action(f"Suppress {finding.rule} on this line",
                           _edit(fixes.add_noqa([finding], "", write=False), linted, uri, types),
                           types.CodeActionKind.QuickFix, [diagnostic], types)
    fixable = _fixable(linted)
    actions += _action(f"Fix all policylint findings ({len(fixable)})",
                       fix_all(linted, uri, types), FIX_ALL, None, types)
    return actions


def _fixable(linted: Linted) -> list:
    return [f for f in linted.result.findings if f.fix is not None and not f.suppressed
            and f.file == linted.name]


def fix_all(linted: Linted, uri: str, types: Any) -> Any:
    """The edit that applies every fix of the file's findings (None: nothing to fix)."""
    from .. import fixes
    fixable = _fixable(linted)
    return _edit(fixes.apply(fixable, write=False), linted, uri, types) if fixable else None


def _finding_of(diagnostic: Any, findings: list, name: str) -> Any:
    """The finding a diagnostic the client sends back stands for: by the index it carries,
    else (a client that drops ``data``) by its code and line."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    index = data.get("finding")
    if isinstance(index, int) and 0 <= index < len(findings) and \
            findings[index].rule == diagnostic.code:
        return findings[index]
    return next((f for f in findings if f.file == name and f.rule == diagnostic.code
                 and (f.line or 1) - 1 == diagnostic.range.start.line), None)


def _edit(outcomes: list, linted: Linted, uri: str, types: Any) -> Any:
    """The outcomes of a fix as one WorkspaceEdit of the file (None: it changes nothing)."""
    texts = [o.text for o in outcomes if o.text is not None and o.file == linted.name]
    if not texts or texts[0] == linted.text:
        return None
    change = edit(linted.text, texts[0])
    text_edit = types.TextEdit(range=types.Range(types.Position(change.start, 0),
                                                 types.Position(change.end, 0)),
                               new_text=change.text)
    return types.WorkspaceEdit(changes={uri: [text_edit]})


def _action(title: str, change: Any, kind: Any, diagnostics_: list | None,
            types: Any) -> list:
    return [] if change is None else [types.CodeAction(
        title=title, kind=kind, diagnostics=diagnostics_, edit=change)]
