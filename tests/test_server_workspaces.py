"""policylint server on the workspaces real repositories are: a ClusterSnapshot among the files,
folders added after start, the transport flag editors' clients add, and the LSP lifecycle.
A real LSP client (pytest-lsp) or raw JSON-RPC against the server process."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from lsp_helpers import diagnostics as _diagnostics, started as _started  # noqa: E402
from lsp_helpers import open_document as _open  # noqa: E402
from policylint.server.session import REST_MS  # noqa: E402

EXAMPLES = Path(__file__).parent.parent / "examples"
TOPIC = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: orders
  labels:
    strimzi.io/cluster: prod-eu-1
spec:
  partitions: 6
  replicas: 1
"""


@pytest.fixture
def workspace(tmp_path) -> Path:
    """A Strimzi cluster (min.insync.replicas 2), one topic that meets it, and a snapshot."""
    shutil.copy(EXAMPLES / "gitops/kafka.yaml", tmp_path / "kafka.yaml")
    (tmp_path / "snapshots").mkdir()  # another cluster's, in a directory of its own
    snapshot = json.loads((EXAMPLES / "clusters/prod-eu-1.json").read_text())
    (tmp_path / "snapshots/prod.json").write_text(json.dumps({**snapshot, "cluster": "other"},
                                                             indent=1))
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics/ok.yaml").write_text(TOPIC.replace("orders", "ok")
                                             .replace("replicas: 1", "replicas: 3"))
    return tmp_path


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "policylint", "server", "--stdio"]))
async def client(lsp_client: LanguageClient, workspace: Path):
    await _started(lsp_client, workspace, {"debounceMs": 0}, types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True))))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_workspace_with_a_snapshot_gets_diagnostics(client, workspace):
    """The snapshot parsed in the workspace scan was later taken for a plan: no diagnostics
    for any file, and an error message on every edit."""
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    found = await _diagnostics(client, uri)
    assert "PL301" in {d.code for d in found}
    assert not client.messages  # no window/showMessage error
    snapshot = workspace / "snapshots/prod.json"
    found = await _diagnostics(client, _open(client, snapshot, snapshot.read_text()))
    assert found and not client.messages


@pytest.mark.asyncio
async def test_a_finding_names_the_other_value_as_related_information(client, workspace):
    """replicas: 1 under the cluster's min.insync.replicas 2, which the other topic meets:
    the topic's own line, and the cluster's setting as related information."""
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    (d,) = [d for d in await _diagnostics(client, uri) if d.code == "PL301"]
    assert d.range.start.line == 8
    (related,) = d.related_information
    assert related.location.uri == (workspace / "kafka.yaml").as_uri()
    assert related.message == "min.insync.replicas"


@pytest.mark.asyncio
async def test_fix_all_is_namespaced_for_fix_on_save(client, workspace):
    text = TOPIC.replace("replicas: 1", "replicas: 3\n  config:\n    retention.msx: 1")
    uri = _open(client, workspace / "topics/orders.yaml", text)
    await _diagnostics(client, uri)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=["source.fixAll.policylint"])))
    assert [a.kind for a in actions] == ["source.fixAll.policylint"]


@pytest.mark.asyncio
async def test_a_folder_added_after_start_brings_its_clusters(client, workspace, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    shutil.copy(EXAMPLES / "gitops/kafka.yaml", other / "kafka.yaml")
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=other.as_uri(), name="other")], removed=[])))
    uri = _open(client, other / "t.yaml", TOPIC.replace("replicas: 1", "replicas: 9"))
    found = await _diagnostics(client, uri)
    assert "PL203" in {d.code for d in found}  # 9 > the added folder's cluster's brokers


@pytest.mark.asyncio
async def test_each_folder_publishes_its_own_files(client, workspace, tmp_path_factory):
    """Two folders, a document open in each: opening, then editing, the second leaves the
    first's findings as its own folder's lint found them."""
    other = tmp_path_factory.mktemp("other")
    shutil.copy(EXAMPLES / "gitops/kafka.yaml", other / "kafka.yaml")
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=other.as_uri(), name="other")], removed=[])))
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    assert "PL301" in {d.code for d in await _diagnostics(client, uri)}
    published = client.published[uri]
    second = _open(client, other / "t.yaml", TOPIC.replace("replicas: 1", "replicas: 9"))
    assert "PL203" in {d.code for d in await _diagnostics(client, second)}
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=second, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(TOPIC)]))
    assert "PL203" not in {d.code for d in await _diagnostics(client, second)}
    await asyncio.sleep(REST_MS / 1000 + 0.3)  # what a whole judgement would publish after
    assert client.published[uri] == published


@pytest.mark.asyncio
async def test_hover_is_of_the_release_of_the_files_own_cluster(client, workspace):
    """Two clusters in one folder, each with its topics beside it: a config key's hover in a
    file names the release of that file's cluster, not the folder's first."""
    cluster = (EXAMPLES / "gitops/kafka.yaml").read_text()
    for name, version in (("a", "3.9.0"), ("b", "4.1.0")):
        (workspace / name).mkdir()
        (workspace / name / "kafka.yaml").write_text(
            cluster.replace("prod-eu-1", name).replace("4.1.0", version))
    topic = TOPIC.replace("replicas: 1", "replicas: 3\n  config:\n    retention.ms: 1000")
    for name in ("a", "b"):
        (workspace / name / "t.yaml").write_text(topic.replace("prod-eu-1", name)
                                                 .replace("orders", f"orders-{name}"))
    for name, release in (("a", "3.9"), ("b", "4.1")):
        path = workspace / name / "t.yaml"
        uri = _open(client, path, path.read_text())
        await _diagnostics(client, uri)
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(10, 6)))
        assert f"**retention.ms** (Kafka {release}" in hover.contents.value, name


@pytest.mark.asyncio
async def test_a_file_outside_the_folders_leaves_the_open_documents_findings(
        client, workspace, tmp_path_factory):
    """A file opened from outside every folder is judged alone; the folder's open documents
    keep their findings (they were published cleared)."""
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    assert "PL301" in {d.code for d in await _diagnostics(client, uri)}
    published = client.published[uri]
    outside = tmp_path_factory.mktemp("outside") / "t.yaml"
    await _diagnostics(client, _open(client, outside, TOPIC.replace("orders", "o")))
    await asyncio.sleep(REST_MS / 1000 + 0.3)  # what a whole judgement would publish after
    assert client.published[uri] == published
    assert "PL301" in {d.code for d in client.diagnostics[uri]}


def _message(body: dict) -> bytes:
    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(data), data)


@pytest.mark.parametrize("shutdown, code", [(True, 0), (False, 1)])
def test_exit_is_0_after_shutdown_and_1_without(tmp_path, shutdown, code):
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"processId": None, "rootUri": tmp_path.as_uri(),
                            "capabilities": {}}},
                {"jsonrpc": "2.0", "method": "initialized", "params": {}}]
    if shutdown:
        messages.append({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    messages.append({"jsonrpc": "2.0", "method": "exit"})
    done = subprocess.run([sys.executable, "-m", "policylint", "server", "--stdio"],
                          input=b"".join(map(_message, messages)), capture_output=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == code, done.stderr.decode()


@pytest.mark.asyncio
async def test_a_finding_at_the_cluster_is_published_for_the_cluster_file(client, workspace):
    """Every topic that inherits the cluster's min.insync.replicas breaks it: one finding at
    kafka.yaml, as lint . gives it, published for kafka.yaml though only the topic is open."""
    (workspace / "topics/ok.yaml").unlink()
    _open(client, workspace / "topics/orders.yaml", TOPIC)
    found = await _diagnostics(client, (workspace / "kafka.yaml").as_uri())
    assert "PL301" in {d.code for d in found}


@pytest.mark.asyncio
async def test_a_folder_removed_takes_its_files_findings(client, workspace):
    """The finding at kafka.yaml (every topic that inherits its min.insync.replicas breaks
    it), published though kafka.yaml is not open, is cleared when its folder is removed."""
    (workspace / "topics/ok.yaml").unlink()
    _open(client, workspace / "topics/orders.yaml", TOPIC)
    kafka = (workspace / "kafka.yaml").as_uri()
    assert "PL301" in {d.code for d in await _diagnostics(client, kafka)}
    cleared = _diagnostics(client, kafka)
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[], removed=[
            types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")])))
    assert list(await cleared) == []


def _cli(root: Path) -> set:
    from policylint.linter import lint
    return {(f.file, f.line, f.column, f.rule, f.message) for f in lint([str(root)]).findings
            if f.rule != "PL102" and not f.suppressed}


#: the example repositories, the corpus of real repositories' shapes, and (where this
#: checkout sits beside it) the public files that corpus was written from
REPOSITORIES = [EXAMPLES / name for name in ("gitops", "two-clusters", "clean", "platform",
                                             "team-rules")] + \
    [Path(__file__).parent / "realworld", Path(__file__).parents[2] / "shared/realworld"]


@pytest.mark.parametrize("repository", REPOSITORIES, ids=lambda p: p.name)
def test_the_workspace_gives_what_lint_gives_for_every_file(repository, tmp_path,
                                                            monkeypatch):
    """For each file of a repository opened in the editor, unchanged: the findings the
    server has for it, and for the other files, are those of policylint lint FOLDER; and
    workspace pull diagnostics give every file the same."""
    from policylint.server.workspace import Workspace
    if not repository.is_dir():
        pytest.skip(f"{repository} is not beside this checkout")
    root = tmp_path / repository.name
    shutil.copytree(repository, root, symlinks=True)
    monkeypatch.chdir(tmp_path)
    expected = _cli(root)
    space = Workspace([str(root)])
    space.scan()
    def rows(result, name=None):
        return {(f.file, f.line, f.column, f.rule, f.message) for f in result.findings
                if f.rule != "PL102" and not f.suppressed and (name is None or f.file == name)}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        linted, others = space.lint(str(path), {str(path): path.read_text()})
        mine = rows(linted.result, linted.name) if linted.result is not None else set()
        assert mine == {row for row in expected if row[0] == linted.name}, path
        for other in others.values():  # published for the other files
            assert rows(other.result, other.name) == \
                {row for row in expected if row[0] == other.name}
        shown = mine | {row for o in others.values() for row in rows(o.result, o.name)}
        assert shown == expected, path
    pulled = {row for linted in space.lint_all({}).values()
              for row in rows(linted.result, linted.name)}
    assert pulled == expected


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "policylint", "server"]))
async def configured(lsp_client: LanguageClient, workspace: Path):
    """A client that sets policylint's settings at start, as ruff's users do."""
    await _started(lsp_client, workspace, {"debounceMs": 0, "ignore": ["PL209"]})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_settings_from_the_client_and_when_they_change(configured, workspace):
    uri = _open(configured, workspace / "topics/orders.yaml", TOPIC)
    codes = {d.code for d in await _diagnostics(configured, uri)}
    assert "PL301" in codes and "PL209" not in codes  # ignore: PL209
    configured.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings=None))  # as a client that pulls settings sends it: they stay
    configured.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(TOPIC + "\n")]))
    codes = {d.code for d in await _diagnostics(configured, uri)}
    assert "PL301" in codes and "PL209" not in codes
    configured.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"policylint": {"select": "PL209"}}))
    codes = {d.code for d in await _diagnostics(configured, uri)}
    assert codes == {"PL209"}


@pytest.mark.asyncio
async def test_outline_hover_on_codes_and_pull_diagnostics(client, workspace):
    text = TOPIC.replace("  replicas: 1", "  # policylint: disable=PL209 a test topic\n"
                                          "  replicas: 1")
    uri = _open(client, workspace / "topics/orders.yaml", text)
    pushed = await _diagnostics(client, uri)
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [(s.name, s.range.start.line) for s in symbols] == [("orders", 3)]
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(8, 28)))
    assert hover.contents.value.startswith("**PL209** `rf-below-minimum`")
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [d.code for d in report.items] == [d.code for d in pushed]


def test_completion_where_editors_ask_for_it():
    """An auto-indented empty line after a block's last key is in the block; the keys
    offered are those the block has not written (another topic's do not count); Terraform
    and JSON get their own syntax; what is typed is replaced."""
    from policylint.server import help as config_help
    text = ["apiVersion: kafka.strimzi.io/v1beta2", "kind: KafkaTopic",
            "metadata: {name: a}", "spec:", "  config:", "    retention.ms: 1", "    ",
            "---", "kind: KafkaTopic", "spec:", "  config:", "    segment.bytes: 1", ""]
    assert config_help.in_config(text, 6) and not config_help.in_config(text, 3)
    assert config_help.written(text, 6) == {"retention.ms"}  # not segment.bytes
    offered = {c.label for c in config_help.keys("4.1", config_help.written(text, 6))}
    assert "segment.bytes" in offered and "retention.ms" not in offered
    assert config_help.keys("4.1", set(), "hcl")[0].insert.endswith('" = ')
    assert config_help.keys("4.1", set(), "json")[0].insert.endswith('": ')
    assert config_help.typed('    "segm', 9) == 4
    tf = ['resource "kafka_topic" "t" {', '  config = {', '    "retention.ms" = "1"', "",
          "  }", "}"]
    assert config_help.in_config(tf, 3)


@pytest.mark.asyncio
async def test_completion_items_replace_what_is_typed(client, workspace):
    text = TOPIC.replace("  replicas: 1", "  replicas: 3\n  config:\n    retention.ms: 1\n"
                                          "    segm")
    uri = _open(client, workspace / "topics/orders.yaml", text)
    await _diagnostics(client, uri)
    found = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(12, 8)))
    item = next(i for i in found.items if i.label == "segment.bytes")
    assert item.text_edit.new_text == "segment.bytes: "
    assert (item.text_edit.range.start.character, item.text_edit.range.end.character) == (4, 8)
    assert "retention.ms" not in {i.label for i in found.items}


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "policylint", "server"]))
async def watching(lsp_client: LanguageClient, workspace: Path):
    """A client that lets the server register which files it watches (as VS Code does)."""
    lsp_client.registered = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registered += params.registrations

    await _started(lsp_client, workspace, {"debounceMs": 0}, types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True))))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_policy_in_pyproject_changed_on_disk_judges_again(watching, workspace):
    """The server watches pyproject.toml beside the inputs (a ``[tool.policylint]`` table is
    a policy) and .gitignore (what a walk reads): a change the editor reports is judged."""
    uri = _open(watching, workspace / "topics/orders.yaml", TOPIC)
    assert "PL301" in {d.code for d in await _diagnostics(watching, uri)}
    [registration] = watching.registered
    patterns = {w["globPattern"] for w in registration.register_options["watchers"]}
    assert {"**/*.{yaml,yml,json,tf}", "**/{pyproject.toml,.gitignore}"} == patterns
    pyproject = workspace / "pyproject.toml"
    pyproject.write_text('[tool.policylint]\nextends = "default"\n'
                         '[tool.policylint.rules.PL301]\nenabled = false\n')
    try:
        waiting = _diagnostics(watching, uri)
        watching.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=pyproject.as_uri(), type=types.FileChangeType.Created)]))
        assert "PL301" not in {d.code for d in await waiting}
    finally:
        pyproject.unlink()


@pytest.mark.asyncio
async def test_a_pull_before_the_debounce_ends_judges_the_edit_once(watching, workspace):
    """Requests that come while an edit waits for typing to stop (a workspace pull, a
    document pull) answer its text, and the edit is judged once: the debounce that ends
    after them publishes nothing more. The client watches the files: the workspace pull
    judges the model the edits keep."""
    watching.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"policylint": {"debounceMs": 400}}))
    text = TOPIC.replace("orders", "ok")  # topics/ok.yaml, unsaved: RF 1 breaks PL209
    uri = _open(watching, workspace / "topics/ok.yaml", text)
    assert "PL209" in {d.code for d in await _diagnostics(watching, uri)}
    published = watching.published[uri]
    watching.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(
            text=text.replace("replicas: 1", "replicas: 3"))]))
    report = await watching.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[]))
    [item] = [i for i in report.items if i.uri == uri]
    assert item.version == 2 and "PL209" not in {d.code for d in item.items}
    report = await watching.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert "PL209" not in {d.code for d in report.items}
    await asyncio.sleep(0.8)  # the debounce has ended
    assert watching.published[uri] == published + 1 and watching.versions[uri] == 2


@pytest.mark.asyncio
async def test_a_new_file_not_saved_yet_is_linted_with_its_folder(client, workspace):
    """A file the editor has and the disk has not yet (topics/orders.yaml here: a walk does
    not find it) is linted with its folder's files: opening and editing the cluster file
    judge it too, not publish it cleared."""
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC.replace(
        "replicas: 1", "replicas: 5") + "  config:\n    retention.msx: 1\n")
    ours = {"PL203", "PL601"}  # (the example rule pack's are left aside)
    assert ours & {d.code for d in await _diagnostics(client, uri)} == {"PL601"}
    kafka = workspace / "kafka.yaml"
    judged_again = _diagnostics(client, uri)  # the cluster file's lint publishes the
    kafka_uri = _open(client, kafka, kafka.read_text())  # folder's open documents after its
    await _diagnostics(client, kafka_uri)  # own
    await judged_again  # (else an edit's wait below may take that publication)
    for version, brokers, expected in ((2, "4", {"PL203", "PL601"}), (3, "6", {"PL601"})):
        judged = _diagnostics(client, uri)
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=kafka_uri,
                                                                version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(
                text=kafka.read_text().replace("replicas: 6", f"replicas: {brokers}"))]))
        assert ours & {d.code for d in await judged} == expected


@pytest.mark.asyncio
async def test_a_save_keeps_what_the_edits_judged_and_a_change_on_disk_is_read(
        watching, workspace, tmp_path_factory):
    """A cluster file typed in, then saved (as VS Code saves: the file written, didSave,
    then its watcher's change): the open manifest keeps what the edit judged, and a file
    outside every folder, which reads the workspace's clusters, is judged by the saved
    one. A file not open changed on disk (a checkout) is read again and published."""
    uri = _open(watching, workspace / "topics/orders.yaml",
                TOPIC.replace("replicas: 1", "replicas: 5"))
    await _diagnostics(watching, uri)
    outside = _open(watching, tmp_path_factory.mktemp("outside") / "t.yaml",
                    TOPIC.replace("orders", "o").replace("replicas: 1", "replicas: 5"))
    assert "PL203" not in {d.code for d in await _diagnostics(watching, outside)}
    kafka = workspace / "kafka.yaml"
    text = kafka.read_text().replace("replicas: 6", "replicas: 4")
    judged = _diagnostics(watching, uri)
    kafka_uri = _open(watching, kafka, kafka.read_text())
    await judged
    judged = _diagnostics(watching, uri)
    watching.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=kafka_uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    assert "PL203" in {d.code for d in await judged}  # 5 replicas > 4 brokers
    kafka.write_text(text)
    judged = _diagnostics(watching, outside)
    watching.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=kafka_uri)))
    watching.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=kafka_uri, type=types.FileChangeType.Changed)]))
    assert "PL203" in {d.code for d in await judged}
    assert "PL203" in {d.code for d in watching.diagnostics[uri]}
    ok = workspace / "topics/ok.yaml"
    judged = _diagnostics(watching, ok.as_uri())
    ok.write_text(TOPIC.replace("orders", "ok"))  # RF 1: below the minimum
    watching.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=ok.as_uri(), type=types.FileChangeType.Changed)]))
    assert "PL209" in {d.code for d in await judged}


@pytest.mark.asyncio
async def test_a_file_closed_is_judged_by_the_disk_again(watching, workspace):
    """A file opened with another text than the disk's (an editor restores unsaved work so)
    and closed unchanged: what the server keeps judges the disk's text again, as it does
    for one opened as the disk has it."""
    ok = workspace / "topics/ok.yaml"
    for text, kept in ((TOPIC.replace("orders", "ok"), False), (ok.read_text(), True)):
        uri = _open(watching, ok, text)  # the first: RF 1, below the minimum (PL209)
        assert ("PL209" in {d.code for d in await _diagnostics(watching, uri)}) != kept
        cleared = _diagnostics(watching, uri)
        watching.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        await cleared
        report = await watching.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
            previous_result_ids=[]))
        [item] = [i for i in report.items if i.uri == uri]
        assert "PL209" not in {d.code for d in item.items}  # the disk's RF 3


@pytest.mark.asyncio
async def test_a_workspace_pull_reads_what_changed_on_disk_unannounced(client, workspace):
    """A client that does not watch files: each workspace pull reads the folders again, so
    a file changed on disk that no notification announced (a git checkout) is judged as it
    is now."""
    uri = _open(client, workspace / "topics/orders.yaml", TOPIC)
    await _diagnostics(client, uri)
    ok = workspace / "topics/ok.yaml"
    for text, expected in ((ok.read_text(), False),
                           (TOPIC.replace("orders", "ok") + "  config:\n    retention.ms: 1\n",
                            True)):
        ok.write_text(text)
        report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
            previous_result_ids=[]))
        [item] = [i for i in report.items if i.uri == ok.as_uri()]
        assert ("PL209" in {d.code for d in item.items}) == expected


@pytest_lsp.fixture(config=ClientServerConfig(
    server_command=[sys.executable, "-m", "policylint", "server"]))
async def relative(lsp_client: LanguageClient, workspace: Path):
    """A client whose ``policy`` setting is a path relative to the workspace folder; the
    server runs elsewhere (its working directory is the test run's)."""
    (workspace / "team").mkdir()
    (workspace / "team/policy.yaml").write_text(
        "extends: default\nrules:\n  PL209:\n    enabled: false\n")
    await _started(lsp_client, workspace, {"debounceMs": 0, "policy": "team/policy.yaml"})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_a_relative_policy_setting_is_the_workspace_folders(relative, workspace):
    assert not (Path.cwd() / "team/policy.yaml").exists()
    uri = _open(relative, workspace / "topics/orders.yaml", TOPIC)
    codes = {d.code for d in await _diagnostics(relative, uri)}
    assert "PL301" in codes and "PL209" not in codes and not relative.messages


def test_an_untitled_document_is_placed_in_no_folder_and_named_back_by_its_uri(tmp_path):
    """The path an untitled document is linted as is in no workspace folder, even one that
    holds the temporary directory, and its findings' places name the document again."""
    import os

    from policylint.server.workspace import Workspace, untitled, uri_of
    for uri in ("untitled:Untitled-1", "untitled:/a b/notes.v1", "untitled:x%2Fy"):
        path = untitled(uri, "json")
        assert path.endswith(".json") and uri_of(path) == uri
        assert Workspace([os.path.dirname(os.path.dirname(path))]).root_of(path) is None
    assert untitled("untitled:Untitled-1", "yaml").endswith("Untitled-1.yaml")
    assert uri_of(str(tmp_path / "a.yaml")) == (tmp_path / "a.yaml").as_uri()


def test_a_results_findings_are_grouped_by_file_once_for_each_list_of_them():
    """The editor publishes each file's findings of one run (``Result.of_file``): grouped
    once, with each one's place in the run's list, and again once the list is assigned
    anew (the editor leaves PL102 out)."""
    from policylint.engine import Result
    from policylint.model import Finding
    a, b = (Finding("PL301", "n", "error", "m", file=name) for name in ("a.yaml", "b.yaml"))
    result = Result([a, b, a], 2, {})
    assert result.of_file("a.yaml") == [(0, a), (2, a)] and result.of_file("c.yaml") == []
    result.findings = [b]
    assert result.of_file("a.yaml") == [] and result.of_file("b.yaml") == [(0, b)]
