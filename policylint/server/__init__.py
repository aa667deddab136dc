"""``policylint server``: the findings of ``policylint lint`` in the editor, as you type.

A Language Server Protocol server on standard input and output, on pygls (``pip install
'policylint[server]'``; imported only by this command). It publishes diagnostics for every
file policylint reads, from the editor's unsaved text, on open and on change (after a
pause in typing), linted as the CLI lints the workspace (``workspace.Workspace``); offers
each ``--fix`` and a suppression comment as code actions, and hover and completion of topic
config keys (``help``). It never writes a file: an edit is the editor's to apply.

``session.Session`` is the server: one method per LSP message; ``workspace.Workspace`` reads
and keeps each folder's model; ``answers`` turns a lint into diagnostics and code actions;
``help`` answers hover and completion.
"""

from __future__ import annotations


def serve() -> None:
    from .session import build  # pygls and lsprotocol: only for this command
    build().start_io()
