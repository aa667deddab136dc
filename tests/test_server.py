"""policylint server, end to end: a real LSP client (pytest-lsp) talking to the server
process over standard input and output, in a workspace with a cluster."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from lsp_helpers import diagnostics as _diagnostics, started as _started  # noqa: E402
from lsp_helpers import open_document as _open  # noqa: E402

EXAMPLES = Path(__file__).parent.parent / "examples"
WORKSPACE: Path | None = None

TOPIC = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: orders
  labels:
    strimzi.io/cluster: prod-eu-1
spec:
  partitions: 6
  replicas: 3
  config:
    min.insync.replicas: 4
    retention.msx: 1000
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ws")
    shutil.copy(EXAMPLES / "gitops/kafka.yaml", root / "kafka.yaml")  # 6 brokers, 3 zones
    (root / "topics").mkdir()
    (root / "topics/orders.yaml").write_text(TOPIC)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "policylint", "server"]))
async def client(lsp_client: LanguageClient, workspace: Path):
    await _started(lsp_client, workspace, {"debounceMs": 0})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_diagnostics_on_open_with_the_workspace_cluster(client, workspace):
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    found = await _diagnostics(client, uri)
    codes = {d.code: d for d in found}
    assert {"PL301", "PL601"} <= set(codes)  # 4 > RF 3; an unknown key
    d = codes["PL301"]
    assert (d.range.start.line, d.range.start.character) == (10, 25)
    assert d.range.end.character == 26 and d.severity == types.DiagnosticSeverity.Error
    assert d.code_description.href.endswith("/PL301.md") and d.source == "policylint"


@pytest.mark.asyncio
async def test_diagnostics_follow_unsaved_edits(client, workspace):
    path = workspace / "topics/orders.yaml"
    uri = _open(client, path, TOPIC)
    await _diagnostics(client, uri)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(10, 25), types.Position(10, 26)), text="2")]))
    found = await _diagnostics(client, uri)
    assert "PL301" not in {d.code for d in found}  # from the editor's text, not the disk
    assert path.read_text() == TOPIC
    # replicas: 9 > the cluster's 6 brokers (the cluster file was found in the workspace)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(8, 12), types.Position(8, 13)), text="9")]))
    found = await _diagnostics(client, uri)
    assert "PL203" in {d.code for d in found}


@pytest.mark.asyncio
async def test_code_actions_fix_and_suppress(client, workspace):
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    found = await _diagnostics(client, uri)
    unknown = next(d for d in found if d.code == "PL601")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=unknown.range,
        context=types.CodeActionContext(diagnostics=[unknown])))
    titles = [a.title for a in actions]
    assert any(t.startswith("Fix PL601") for t in titles), titles
    assert "Suppress PL601 on this line" in titles
    assert any(t.startswith("Fix all policylint findings") for t in titles)
    fix = next(a for a in actions if a.title.startswith("Fix PL601"))
    [text_edit] = fix.edit.changes[uri]
    assert text_edit.new_text == "    retention.ms: 1000\n"  # the typo's key, renamed
    assert (text_edit.range.start.line, text_edit.range.end.line) == (11, 12)
    suppress = next(a for a in actions if a.title.startswith("Suppress"))
    [text_edit] = suppress.edit.changes[uri]
    assert text_edit.new_text.startswith("    # policylint: disable=PL601")
    # the editor applies the fix: the finding goes
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=fix.edit.changes[uri][0].range, text=fix.edit.changes[uri][0].new_text)]))
    assert "PL601" not in {d.code for d in await _diagnostics(client, uri)}


@pytest.mark.asyncio
async def test_hover_and_completion_of_config_keys(client, workspace):
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    await _diagnostics(client, uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(10, 8)))
    text = hover.contents.value
    assert "**min.insync.replicas** (Kafka 4.1" in text and "default: `1`" in text
    assert "acks=all" in text and "at least 1" in text
    keys = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(11, 4)))
    labels = {item.label for item in keys.items}
    assert {"cleanup.policy", "compression.type", "retention.ms"} <= labels
    assert "min.insync.replicas" not in labels  # written already
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(12, 0), types.Position(12, 0)),
            text="    cleanup.policy: \n")]))
    await _diagnostics(client, uri)
    values = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(12, 20)))
    assert [item.label for item in values.items] == ["compact", "delete"]


@pytest.mark.asyncio
async def test_other_files_get_none_and_a_broken_one_pl100(client, workspace):
    other = _open(client, workspace / "compose.yaml", "services:\n  web: {image: nginx}\n")
    assert list(await _diagnostics(client, other)) == []
    broken = _open(client, workspace / "topics/broken.yaml",
                   "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nspec: [\n")
    assert [d.code for d in await _diagnostics(client, broken)] == ["PL100"]
    # and the server keeps running
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC, version=7)
    assert "PL301" in {d.code for d in await _diagnostics(client, uri)}


@pytest.mark.asyncio
async def test_a_cluster_file_changed_on_disk_is_read_again(client, workspace, tmp_path):
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC.replace("replicas: 3",
                                                                        "replicas: 5"))
    assert "PL203" not in {d.code for d in await _diagnostics(client, uri)}  # 6 brokers
    kafka = workspace / "kafka.yaml"
    before = kafka.read_text()
    try:
        kafka.write_text(before.replace("replicas: 6", "replicas: 4"))
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=kafka.as_uri(), type=types.FileChangeType.Changed)]))
        assert "PL203" in {d.code for d in await _diagnostics(client, uri)}  # 5 > 4 brokers
    finally:
        kafka.write_text(before)


@pytest.mark.asyncio
async def test_hostile_unsaved_text_never_stops_the_server(client, workspace):
    """The fuzz families' documents, as an editor's unsaved text."""
    import random
    sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
    from hostile import files
    rng = random.Random(47)
    uri = (workspace / "topics/edited.yaml").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1,
                                             text="")))
    await _diagnostics(client, uri)
    for version in range(2, 42):
        text = next((t for t in files(rng).values() if isinstance(t, str)), "")
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        await asyncio.wait_for(_diagnostics(client, uri), timeout=20)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0)))
    assert hover is None or hover.contents  # still answering


@pytest.mark.asyncio
async def test_workspace_pull_diagnostics_cover_files_not_open(client, workspace):
    """workspace/diagnostic: every file policylint reads, open or not, with what lint
    gives it; an open file's report carries its version and its unsaved text's findings."""
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[]))
    by_uri = {item.uri: item for item in report.items}
    orders = (workspace / "topics/orders.yaml").as_uri()
    assert (workspace / "kafka.yaml").as_uri() in by_uri  # read, not open
    assert {"PL301", "PL601"} <= {d.code for d in by_uri[orders].items}
    assert by_uri[orders].version is None
    uri = _open(client, workspace / "topics/orders.yaml",
                TOPIC.replace("min.insync.replicas: 4", "min.insync.replicas: 2"), version=5)
    await _diagnostics(client, uri)
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[]))
    [item] = [i for i in report.items if i.uri == orders]
    assert item.version == 5 and "PL301" not in {d.code for d in item.items}


@pytest.mark.asyncio
async def test_commands_fix_all_and_print_debug_information(client, workspace):
    """The commands the server lists (as ruff's: applyAutofix, printDebugInformation)."""
    listed = client.answered.capabilities.execute_command_provider.commands
    assert sorted(listed) == ["policylint.applyAutofix", "policylint.printDebugInformation"]
    applied = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams):
        applied.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC, version=9)
    await _diagnostics(client, uri)
    await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="policylint.applyAutofix", arguments=[{"uri": uri, "version": 9}]))
    [edit] = applied
    assert [e.new_text for e in edit.changes[uri]] == [  # every fix, as lint --fix
        "    min.insync.replicas: 2\n    retention.ms: 1000\n"]
    text = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="policylint.printDebugInformation", arguments=[]))
    assert text.startswith("policylint ") and "debounce 0 ms" in text
    assert f"folder {workspace}: clusters {workspace / 'kafka.yaml'}" in text


@pytest.mark.asyncio
async def test_requests_on_a_document_never_opened_answer_null(client, workspace):
    """A hover, completion, code action or outline on a URI the server never saw (no file
    behind it either) answers null or nothing, and logs no traceback."""
    uri = (workspace / "never-opened.yaml").as_uri()
    where = types.TextDocumentIdentifier(uri=uri)
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=where, position=types.Position(0, 0))) is None
    assert await client.text_document_completion_async(types.CompletionParams(
        text_document=where, position=types.Position(0, 0))) is None
    assert not await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=where))
    assert not await client.text_document_code_action_async(types.CodeActionParams(
        text_document=where, range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    assert not any("Traceback" in str(m) for m in client.log_messages), client.log_messages


@pytest.mark.asyncio
async def test_an_open_documents_diagnostics_carry_its_version_whoever_published_them(
        client, workspace):
    """Two open files of one folder: the lint of the one opened last, whose unsaved text
    declares the other's topic too, publishes the other's findings too (PL117: the topic is
    defined again there, the later file), with the version of the other's text it judged,
    so that an editor keeps the newest."""
    text = TOPIC.replace("orders", "dup")
    for name in ("dup-a", "dup-b"):
        (workspace / f"topics/{name}.yaml").write_text(text.replace("dup", name))
    try:
        first = _open(client, workspace / "topics/dup-b.yaml", text, 5)
        assert "PL117" not in {d.code for d in await _diagnostics(client, first)}
        waiting = _diagnostics(client, first)
        _open(client, workspace / "topics/dup-a.yaml", text)
        assert "PL117" in {d.code for d in await waiting}  # published by the second's lint
        assert client.versions[first] == 5
    finally:
        for name in ("dup-a", "dup-b"):
            (workspace / f"topics/{name}.yaml").unlink()


@pytest.mark.asyncio
async def test_typing_in_a_cluster_file_answers_the_open_documents_then_every_file(
        client, workspace):
    """An edit of the cluster's broker count (unsaved): the open manifest's topics are
    judged against it at once; a topic file that is not open gets its finding once the
    folder is judged whole, and loses it when the edit is undone."""
    (workspace / "topics/closed.yaml").write_text(
        TOPIC.replace("orders", "closed").replace("replicas: 3", "replicas: 5"))
    try:
        uri = _open(client, workspace / "topics/orders.yaml",
                    TOPIC.replace("replicas: 3", "replicas: 5"))
        await _diagnostics(client, uri)
        kafka = workspace / "kafka.yaml"
        text = kafka.read_text()
        judged_again = _diagnostics(client, uri)  # the cluster file's lint publishes the
        kafka_uri = _open(client, kafka, text)  # folder's open documents after its own
        await _diagnostics(client, kafka_uri)
        await judged_again  # (else an edit's wait below may take that publication)
        closed = (workspace / "topics/closed.yaml").as_uri()
        for version, brokers, expected in ((2, "4", True), (3, "6", False)):
            opened, other = _diagnostics(client, uri), _diagnostics(client, closed)
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=kafka_uri,
                                                                    version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(
                    text=text.replace("replicas: 6", f"replicas: {brokers}"))]))
            assert ("PL203" in {d.code for d in await opened}) == expected
            assert ("PL203" in {d.code for d in await other}) == expected  # 5 > 4 brokers
    finally:
        (workspace / "topics/closed.yaml").unlink()


@pytest.mark.asyncio
async def test_requests_on_an_open_file_answer_what_a_cluster_edit_made_of_it(client,
                                                                             workspace):
    """After an unsaved edit of the cluster's broker count, a pull of an open topic file's
    diagnostics (a pull client's only view) answers what that edit made of the file, as
    was published: not what the file was judged before it."""
    uri = _open(client, workspace / "topics/orders.yaml",
                TOPIC.replace("replicas: 3", "replicas: 5"))
    await _diagnostics(client, uri)
    kafka = workspace / "kafka.yaml"
    text = kafka.read_text()
    judged_again = _diagnostics(client, uri)
    kafka_uri = _open(client, kafka, text)
    await _diagnostics(client, kafka_uri)
    await judged_again
    for version, brokers, expected in ((2, "4", True), (3, "6", False)):
        pushed = _diagnostics(client, uri)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=kafka_uri,
                                                                version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(
                text=text.replace("replicas: 6", f"replicas: {brokers}"))]))
        assert ("PL203" in {d.code for d in await pushed}) == expected  # 5 > 4 brokers
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert [d.code for d in report.items] == [d.code for d in client.diagnostics[uri]]


@pytest.mark.asyncio
async def test_a_cluster_edit_publishes_the_closed_files_whose_findings_change(client,
                                                                             workspace):
    """After a cluster file's edit every file is judged again, and a closed file is
    published again only when its findings changed: an editor's list of problems is not
    redrawn for every file of the workspace."""
    files = {"topics/same.yaml": TOPIC.replace("orders", "same").replace("replicas: 3",
                                                                          "replicas: 5"),
             "topics/wide.yaml": TOPIC.replace("orders", "wide").replace("replicas: 3",
                                                                          "replicas: 7")}
    for name, text in files.items():
        (workspace / name).write_text(text)
    same, wide = ((workspace / name).as_uri() for name in files)
    kafka = workspace / "kafka.yaml"
    text = kafka.read_text()
    try:
        first = _diagnostics(client, wide)
        kafka_uri = _open(client, kafka, text)
        assert "PL203" in {d.code for d in await first}  # 7 replicas > 6 brokers
        await asyncio.sleep(0.3)  # the rest of that judgement's publications
        published = client.published.get(same, 0)
        assert published and client.diagnostics[same]  # PL601: retention.msx
        changed = _diagnostics(client, wide)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=kafka_uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(
                text=text.replace("replicas: 6", "replicas: 7"))]))
        assert "PL203" not in {d.code for d in await changed}
        await asyncio.sleep(0.3)
        assert client.published[same] == published  # as it was: not published again
    finally:
        for name in files:
            (workspace / name).unlink()
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=kafka.as_uri())))


@pytest.mark.asyncio
async def test_typing_in_the_policy_judges_the_open_documents_by_it(client, workspace):
    """The policy being typed judges as a cluster file being typed does: by its unsaved
    text. A policy that cannot be used is said on the policy file, where it is wrong (not
    in a window); closed unsaved, the open documents are judged by the file on disk
    again."""
    policy = workspace / ".policylint.yaml"
    written = "extends: default\nrules:\n  PL301:\n    severity: {}\n"
    policy.write_text(written.format("warning"))
    try:
        uri = _open(client, workspace / "topics/orders.yaml", TOPIC)

        async def severity() -> types.DiagnosticSeverity:
            return next(d.severity for d in await waiting if d.code == "PL301")
        waiting = _diagnostics(client, uri)
        assert await severity() == types.DiagnosticSeverity.Warning
        waiting = _diagnostics(client, uri)
        policy_uri = _open(client, policy, written.format("warning"))
        assert await severity() == types.DiagnosticSeverity.Warning

        def change(version: int, text: str) -> None:
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=policy_uri,
                                                                    version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        waiting = _diagnostics(client, uri)
        change(2, written.format("error"))
        assert await severity() == types.DiagnosticSeverity.Error  # the unsaved policy's
        assert policy.read_text() == written.format("warning")

        refused = _diagnostics(client, policy_uri)
        change(3, written.format("bogus"))
        [said] = await refused
        assert (said.range.start.line, said.range.start.character) == (3, 14)
        assert said.range.end.character == len("    severity: bogus")
        assert said.message.startswith('rules.PL301.severity: the string "bogus" must be')
        assert client.versions[policy_uri] == 3 and not client.messages

        waiting, cleared = _diagnostics(client, uri), _diagnostics(client, policy_uri)
        change(4, written.format("error"))
        assert await severity() == types.DiagnosticSeverity.Error
        assert not await cleared

        waiting = _diagnostics(client, uri)
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=policy_uri)))
        assert await severity() == types.DiagnosticSeverity.Warning  # the disk's again

        policy.write_text(written.format("bogus"))  # not open: said in a window
        waiting = _diagnostics(client, uri)
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=policy_uri, type=types.FileChangeType.Changed)]))
        assert not await waiting
        [shown] = client.messages
        assert shown.type == types.MessageType.Error and shown.message.startswith(
            "policylint: policy ") and ".policylint.yaml:4:15: rules.PL301" in shown.message
    finally:
        policy.unlink()


@pytest.mark.asyncio
async def test_an_untitled_document_is_judged_alone_with_the_workspace_clusters(client,
                                                                               workspace):
    """A document with no file yet (VS Code's ``untitled:Untitled-1``) is linted as a file
    outside every folder: with the workspace's clusters, alone, in the format its language
    says; its findings carry its version, and name no file of the workspace."""
    def opened(uri: str, language: str, text: str) -> None:
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1,
                                                 text=text)))
    yaml_uri = "untitled:Untitled-1"
    waiting = _diagnostics(client, yaml_uri)
    opened(yaml_uri, "yaml", TOPIC.replace("replicas: 3", "replicas: 9"))
    found = {d.code: d for d in await waiting}
    assert {"PL203", "PL601"} <= set(found)  # 9 > the cluster's 6 brokers; an unknown key
    assert found["PL203"].range.start.line == 8 and client.versions[yaml_uri] == 1

    waiting = _diagnostics(client, yaml_uri)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=yaml_uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=TOPIC)]))
    codes = {d.code for d in await waiting}
    assert {"PL301", "PL601"} <= codes and "PL203" not in codes  # 4 > RF 3, which fits
    assert client.versions[yaml_uri] == 2

    json_uri = "untitled:Untitled-2"  # JSON indented by tabs: no YAML
    waiting = _diagnostics(client, json_uri)
    opened(json_uri, "json", '{\n\t"version": 1,\n\t"partitions": [\n\t\t{"topic": "orders", '
           '"partition": 0, "replicas": [1, 1, 2]}\n\t]\n}\n')
    found = {d.code: d for d in await waiting}
    assert "PL112" in found and "PL100" not in found  # broker 1 twice
    assert found["PL112"].range.start.line == 3

    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=yaml_uri)))
    assert not [u for u in client.published if u.startswith("file:") and "untitled" in u]
