"""The LSP client side the server tests share: open a document, and await the next
diagnostics published for one file whatever else is published meanwhile."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=version,
                                             text=text)))
    return uri


async def started(client: LanguageClient, workspace: Path, options: dict,
                  capabilities: types.ClientCapabilities | None = None) -> LanguageClient:
    """The client with a session begun on the one folder ``workspace``, the server's
    settings ``options``, its diagnostics counted (``counted``); ``answered``: what
    ``initialize`` answered."""
    client.answered = await client.initialize_session(types.InitializeParams(
        capabilities=capabilities or types.ClientCapabilities(),
        root_uri=workspace.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options=options))
    return counted(client)


def counted(client: LanguageClient) -> LanguageClient:
    """The client, counting the diagnostics published for each file (an empty list comes
    as the one empty tuple: what it holds cannot tell one publication from the next)."""
    client.published, client.versions = {}, {}
    handle = client.protocol._handle_notification

    def counting(method, params):
        if method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.published[params.uri] = client.published.get(params.uri, 0) + 1
            client.versions[params.uri] = params.version  # of the text they judged
        return handle(method, params)
    client.protocol._handle_notification = counting
    return client


def diagnostics(client: LanguageClient, uri: str):
    """The next diagnostics published for ``uri``, whatever else is published meanwhile (a
    lint publishes for every file of the folder with findings), to await. The count is
    read now, when the call is made (right after what was sent), not when a task starts."""
    seen = client.published.get(uri, 0)

    async def published():
        while client.published.get(uri, 0) == seen:
            await asyncio.sleep(0.005)
        return client.diagnostics[uri]
    return asyncio.wait_for(published(), timeout=120)
