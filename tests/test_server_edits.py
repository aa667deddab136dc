"""The editor's per-edit path: a file that only declares topics is read again and judged
alone among the folder's kept model (``loader.replaced``); a file that only describes
clusters is read again, and every topic judged on the clusters made again
(``loader.redescribed``). Whatever the edit, its findings are exactly those of ``policylint
lint FOLDER`` over the same texts; edits that change what other files depend on read the
folder again."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from policylint.linter import lint
from policylint.server.workspace import Workspace
from policylint.sources import unsaved

EXAMPLES = Path(__file__).parent.parent / "examples"
TOPIC = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: {name}
  labels:
    strimzi.io/cluster: {cluster}
spec:
  partitions: 6
  replicas: {rf}
  config:
    min.insync.replicas: {isr}
"""


def topic(name="edited", cluster="prod-eu-1", rf=3, isr=2) -> str:
    return TOPIC.format(name=name, cluster=cluster, rf=rf, isr=isr)


def inheriting(name: str, rf, partitions: int = 6) -> str:
    """A topic of prod-eu-1 that leaves min.insync.replicas to its cluster (2)."""
    return TOPIC.replace("  config:\n    min.insync.replicas: {isr}\n", "").format(
        name=name, cluster="prod-eu-1", rf=rf, isr=0).replace(
        "partitions: 6", f"partitions: {partitions}")


#: each edit's text of topics/edited.yaml, and whether it can be judged alone (after an
#: edit the folder was read again for, the kept model is that read's)
EDITS = [
    (topic(isr=4), True),  # PL301: min.insync.replicas above RF
    (topic(name="first"), True),  # PL117: a topic another file declares first
    # topics/z.yaml declares it too: its PL117 (the second) comes, and names this file
    (topic(name="zz-last") + "---\n" + topic(name="late", rf=1, isr=1), False),
    (topic(name="zz-last", isr=3) + "---\n" + topic(name="late", rf=1, isr=1), True),
    ("# a line\n" + topic(name="zz-last", isr=3), False),  # z.yaml's PL117 names line 5
    (topic(name="zz-last", rf=1, isr=1), False),  # and again line 4; "late" went
    (topic(name="late"), False),  # z.yaml's PL117 goes
    (topic(rf="three"), True),  # PL101: a value of the wrong type
    (topic(cluster="nowhere"), False),  # PL118: a cluster none of the inputs describe
    (topic(isr=1), True),  # back on a cluster: its PL118 stood for its topic alone
    (topic(isr=3), True),
    ("kind: [unclosed\n", True),  # PL100: YAML that does not parse (being typed)
    ("kind: [unclosed, still\n", True),
    (topic(name="zz-last", isr=3), False),  # z.yaml's PL117 comes
    ("kind: [unclosed\n", False),  # and goes: this file's topics went
    (topic(isr=3), True),
    (topic(rf=2) + "---\n" + (EXAMPLES / "gitops/kafka.yaml").read_text(), False),  # a Kafka
    (topic(name="Bad Name!"), False),  # the file held a Kafka: the folder read again
    (topic(name="Bad Name!", rf=1), True),
    ("", False),  # emptied: no longer a file of topics
    (topic(), False),
    (topic(name="first", isr=5), True),
]


@pytest.fixture
def folder(tmp_path) -> Path:
    shutil.copy(EXAMPLES / "gitops/kafka.yaml", tmp_path / "kafka.yaml")
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics/a.yaml").write_text(topic(name="first"))
    (tmp_path / "topics/edited.yaml").write_text(topic())
    (tmp_path / "topics/z.yaml").write_text(topic(name="zz-last"))
    return tmp_path


def _shown(findings, name) -> list[tuple]:
    return sorted((f.rule, f.line, f.column, f.message) for f in findings if f.file == name)


def test_each_edit_finds_what_a_whole_lint_finds(folder, monkeypatch):
    monkeypatch.chdir(folder)
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", EDITS) == \
        sum(a for _, a in EDITS)


def _edited_as_a_lint_finds(folder: Path, edited: str, edits: list) -> int:
    """Makes ``edits`` of the file ``edited`` (each text, and whether it can be judged
    alone); after each, every file's findings (those published before for the files not
    judged again, the edited file's now) must be those of a whole lint over the same
    texts. How many were judged alone."""
    space = Workspace([str(folder)])
    path = str(folder / edited)
    linted, _ = space.lint(path, {path: open(path).read()})
    shown, alone = _every_file(linted.result.findings), 0
    for text, judged_alone in edits:
        linted, others = space.lint(path, {path: text}, edited=True)
        assert (others is None) == judged_alone, text
        alone += others is None
        shown = _shown_after(shown, edited, linted, others)
        assert shown == _every_file(_whole(folder, {os.path.abspath(path): text}).findings), \
            text
    (folder / edited).write_text(edits[-1][0])  # saved: the edits of another file follow
    return alone


def test_a_file_opened_is_ready_for_its_first_edit(folder, monkeypatch):
    """``prepare`` (the server calls it once a document is opened) computes what an edit
    judged alone is compared with: the first edit computes no more than the next."""
    import policylint.server.workspace as workspace

    monkeypatch.chdir(folder)
    path = str(folder / "topics/edited.yaml")
    space = Workspace([str(folder)])
    space.lint(path, {path: topic()})
    space.prepare(path, {path: topic()})
    weighed = []
    monkeypatch.setattr(workspace, "weighed", lambda *a: weighed.append(a))
    linted, others = space.lint(path, {path: topic(isr=4)}, edited=True)
    assert others is None and not weighed  # judged alone, on what was made ready
    assert "PL301" in {f.rule for f in linted.result.findings}


def test_a_file_opened_as_the_disk_has_it_keeps_what_the_edited_one_is_compared_with(
        folder, monkeypatch):
    """Another file opened as it is on disk (judged alone, as an edit is) changes nothing
    an edit of the file being edited is compared with: its next edit weighs nothing again.
    Opened with another text, it changed: the next edit weighs the others again, and finds
    what a whole lint finds."""
    import policylint.server.workspace as workspace

    monkeypatch.chdir(folder)
    path, other = str(folder / "topics/edited.yaml"), str(folder / "topics/a.yaml")
    space = Workspace([str(folder)])
    texts = {path: topic(isr=4)}
    space.lint(path, texts)
    space.lint(path, texts, edited=True)  # what its edits are compared with, made
    real, weighed = workspace.weighed, []
    monkeypatch.setattr(workspace, "weighed", lambda *a: weighed.append(a) or real(*a))
    texts[other] = (folder / "topics/a.yaml").read_text()
    assert space.lint(other, texts, edited=True)[1] is None  # opened: judged alone
    opened = len(weighed)
    assert space.lint(path, {**texts, path: topic(isr=3)}, edited=True)[1] is None
    assert len(weighed) == opened
    texts[other] = topic(name="first", isr=4)  # opened with another text than the disk's
    space.lint(other, texts, edited=True)
    texts[path] = topic(isr=1)
    linted, others = space.lint(path, texts, edited=True)
    assert len(weighed) > opened + 1 and others is None
    assert _published(linted, others) == {
        name: rows for name, rows in _every_file(_whole(folder, texts).findings).items()
        if name == "topics/edited.yaml"}


def test_edits_of_two_files_in_turn_find_what_a_whole_lint_finds(folder, monkeypatch):
    """One workspace, two files edited in turn, each judged alone: where the last edit of
    one file put its topics (``loader.Spliced``) says nothing of the other's."""
    monkeypatch.chdir(folder)
    space, texts = Workspace([str(folder)]), {}
    space.lint(str(folder / "topics/a.yaml"), texts)
    for edited, text in [("topics/a.yaml", topic(name="first", isr=4)),
                         ("topics/a.yaml", topic(name="first", isr=5)),
                         ("topics/edited.yaml", topic(isr=4)),
                         ("topics/edited.yaml", topic(rf=2)),
                         ("topics/a.yaml", topic(name="first", isr=1))]:
        path = str(folder / edited)
        texts[path] = text
        linted, others = space.lint(path, texts, edited=True)
        assert others is None, edited  # judged alone
        whole = _whole(folder, texts)
        assert _shown(linted.result.findings, edited) == _shown(whole.findings, edited)


def test_a_kept_model_is_not_used_after_a_file_changes_on_disk(folder, monkeypatch):
    monkeypatch.chdir(folder)
    path = str(folder / "topics/edited.yaml")
    space = Workspace([str(folder)])
    space.lint(path, {path: topic()})
    (folder / "topics/a.yaml").write_text(topic(name="edited"))  # now declared first there
    space.forget(str(folder / "topics/a.yaml"))
    linted, others = space.lint(path, {path: topic()}, edited=True)
    assert others is not None  # the folder read again
    assert "PL117" in {f.rule for f in linted.result.findings
                       if f.file == "topics/edited.yaml"}


def test_an_edit_weighs_the_topics_that_inherit_the_same_cluster_setting(folder, monkeypatch):
    """min.insync.replicas left to the cluster (2): one finding at the cluster's setting when
    every topic that inherits it breaks PL301, else each its own. An edit judged alone
    weighs the other files' topics as a whole lint does, whichever file is edited; one
    that gathers the findings at the cluster's setting, or parts them, changes other files'
    (the cluster file's, the other topic's): the folder is judged again."""
    monkeypatch.chdir(folder)
    (folder / "topics/a.yaml").write_text(inheriting("first", 3))
    steps = [
        ("topics/edited.yaml", [(inheriting("edited", 1), True), (inheriting("edited", 3), True)]),
        ("topics/a.yaml", [(inheriting("first", 1), True), (inheriting("first", 3), True)]),
        ("topics/edited.yaml", [(inheriting("edited", 1), True)]),  # the one that breaks it
        ("topics/a.yaml", [(inheriting("first", 1), False),  # both: one finding, at kafka.yaml
                           (inheriting("first", 1, 12), True),  # as it was: alone
                           (inheriting("first", 3), False),  # parted again
                           (inheriting("first", 3, 12), True),
                           (inheriting("first", 1), False)]),  # and gathered, as saved
    ]
    for edited, edits in steps:
        assert _edited_as_a_lint_finds(folder, edited, edits) == sum(a for _, a in edits)
    assert "kafka.yaml" in {f.file for f in lint([str(folder)]).findings if f.rule == "PL301"}

def test_a_cluster_edit_checks_only_the_cluster_file_again(folder, monkeypatch):
    """Each edit of the cluster file judges every topic again: every file's findings are a
    whole lint's over the same texts, while the documents of the files that did not change
    are detected and validated once, when first read (``Document.kind``, ``.checked``)."""
    import policylint.sources as sources

    monkeypatch.chdir(folder)
    kafka, path = str(folder / "kafka.yaml"), str(folder / "topics/edited.yaml")
    cluster = (folder / "kafka.yaml").read_text()
    space = Workspace([str(folder)])
    space.lint(path, {})
    validated, detected = [], []
    real_errors, real_kind = sources._errors, sources._kind
    monkeypatch.setattr(sources, "_errors", lambda kind, doc: validated.append(
        doc.source.name) or real_errors(kind, doc))
    monkeypatch.setattr(sources, "_kind", lambda doc: detected.append(
        doc.source.name) or real_kind(doc))
    for brokers, isr in [(2, 2), (6, 4), (1, 1), (6, 2)]:
        text = cluster.replace("replicas: 6", f"replicas: {brokers}").replace(
            "min.insync.replicas: 2", f"min.insync.replicas: {isr}")
        texts = {kafka: text}
        checked = len(validated), len(detected)
        linted, others = space.lint(kafka, texts, edited=True)
        assert set(validated[checked[0]:]) == set(detected[checked[1]:]) == {"kafka.yaml"}
        assert others is not None  # not judged alone: every topic judged again
        whole = _whole(folder, {os.path.abspath(p): t for p, t in texts.items()})
        for name in ("kafka.yaml", "topics/edited.yaml", "topics/a.yaml"):
            mine = linted.result.findings if name == "kafka.yaml" else \
                (others[os.path.abspath(name)].result.findings
                 if os.path.abspath(name) in others else [])
            assert _shown(mine, name) == _shown(whole.findings, name), (brokers, isr, name)


def _every_file(findings) -> dict[str, list[tuple]]:
    """Each file's findings, with the topics each stands for (where they are written)."""
    found: dict[str, list[tuple]] = {}
    for f in findings:
        subjects = tuple(tuple(sorted(s.items())) for s in f.subjects or ())
        found.setdefault(f.file, []).append((f.rule, f.line, f.column, f.message, subjects))
    return {file: sorted(rows) for file, rows in found.items()}


def _whole(folder: Path, texts: dict[str, str]):
    """``policylint lint FOLDER`` with the editor's unsaved ``texts`` (path -> text)."""
    held = unsaved.set(texts)
    try:
        return lint([str(folder)])
    finally:
        unsaved.reset(held)


def _published(linted, others) -> dict[str, list[tuple]]:
    """Every file's findings of the run a ``Workspace.lint`` answered with (a file none of
    policylint's kinds has no result of its own; the folder's is the others')."""
    result = linted.result or next((o.result for o in (others or {}).values()
                                    if o.result is not None), None)
    return _every_file(result.findings if result is not None else [])


def _shown_after(shown: dict, edited: str, linted, others) -> dict:
    """Every file's findings as the editor shows them after an edit of ``edited``: all of
    them again when the folder was judged again, else the edited file's new ones beside
    the others' as published before."""
    found = _published(linted, others)
    if others is not None:
        return found
    return {**{f: rows for f, rows in shown.items() if f != edited},
            **({edited: found[edited]} if edited in found else {})}


@pytest.fixture
def reads(monkeypatch) -> list:
    """Each read of a folder a ``Workspace`` makes (``linter.load``), as it is made."""
    from policylint.server import workspace
    made: list = []
    real = workspace.load
    monkeypatch.setattr(workspace, "load", lambda *a: made.append(a) or real(*a))
    return made


#: edits of topics/edited.yaml whose topics name a cluster the folder does not describe
#: (PL118: one finding for them all, at the first, in topics/a.yaml), and whether each can
#: be judged alone: not when the finding at the first changes (a topic's name, how many
#: there are, where one is written)
UNDESCRIBED = [
    (topic(cluster="elsewhere", isr=4), True),  # PL301
    (topic(cluster="elsewhere", isr=1), True),
    (topic(name="renamed", cluster="elsewhere"), False),  # the first's message names it
    ("# moved a line down\n" + topic(name="renamed", cluster="elsewhere"), False),
    ("# moved a line down\n" + topic(name="renamed", cluster="elsewhere", isr=3), True),
    (topic(name="renamed"), False),  # on the folder's cluster: one topic fewer elsewhere
    (topic(name="renamed", isr=5), True),
    (topic(name="renamed", cluster="elsewhere"), False),  # back
    (topic(name="renamed", cluster="yet-another"), False),  # a cluster of its own
    (topic(name="renamed", cluster="yet-another", isr=1), True),  # its own PL118, here
]


def test_an_edit_among_topics_of_an_undescribed_cluster_leaves_every_file_as_a_lint_does(
        folder, monkeypatch):
    """Every file's findings, those published before for the files not judged again and
    the edited file's now, are those of a whole lint over the same texts, whichever file
    holds the one PL118 finding."""
    monkeypatch.chdir(folder)
    for name in ("a", "edited", "z"):
        path = folder / f"topics/{name}.yaml"
        path.write_text(path.read_text().replace("prod-eu-1", "elsewhere"))
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", UNDESCRIBED) == \
        sum(a for _, a in UNDESCRIBED)
    # the file that holds the finding
    assert _edited_as_a_lint_finds(folder, "topics/a.yaml", [
        (topic(name="first", cluster="elsewhere", isr=isr), True) for isr in (4, 1)]) == 2
    assert "PL118" in {f.rule for f in lint([str(folder)]).findings}


def test_a_name_kafka_metrics_confuse_with_another_files_topic_judges_both(folder,
                                                                         monkeypatch):
    """PL702 reports the later of two names Kafka's metrics cannot tell apart: an edit that
    makes (or unmakes) such a pair with another file's topic changes that file's findings."""
    monkeypatch.chdir(folder)
    (folder / "topics/a.yaml").write_text(topic(name="orders_v1"))
    edits = [(topic(name="orders.v1"), False),  # a.yaml's orders_v1 now collides with it
             (topic(name="orders.v1", isr=3), True),
             (topic(name="orders.v2"), False),  # and no longer
             (topic(name="orders.v3"), True)]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 2


def test_an_edit_of_a_topic_a_plan_moves_judges_the_plan_again(folder, monkeypatch):
    """A plan's entries are judged with their topics' declarations (PL201: the RF the
    manifest states, without a snapshot): an edit of a topic in a plan's cluster changes
    the plan's findings."""
    monkeypatch.chdir(folder)
    (folder / "plan.json").write_text('{"version": 1, "partitions": [{"topic": "edited", '
                                      '"partition": 0, "replicas": [1, 2]}]}')
    edits = [(topic(rf=2), False), (topic(rf=3), False)]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 0
    assert "PL201" in {f.rule for f in lint([str(folder)]).findings if f.file == "plan.json"}


def test_edits_that_name_their_topics_as_others_do_find_what_a_whole_lint_finds(
        folder, monkeypatch):
    """PL117 and PL702 compare the names of every topic of a cluster: an edit judged alone
    is told the other files' names (``engine.Weighed.names``), not read again, and finds
    what a whole lint finds, each name clash within the file or with another file's."""
    monkeypatch.chdir(folder)
    (folder / "topics/b.yaml").write_text(topic(name="orders.v1"))
    edits = [  # a name alike another file's, given or taken: the folder read again
        (topic(name="orders_v1"), False),  # PL702: Kafka's metrics name it as b.yaml's
        (topic(name="orders_v1", isr=1), True),  # kept
        (topic(name="orders-v1"), False),  # no clash
        (topic(name="orders.v1"), True),  # PL117: b.yaml declares it first
        (topic(name="orders.v1", isr=1), True),
        (topic(name="x.y") + "---\n" + topic(name="x_y"), True),  # PL702 within the file
        (topic(name="x") + "---\n" + topic(name="x", rf=1, isr=1), True),  # PL117 within
        (topic(), True),
    ]
    found = []
    real = Workspace.lint

    def lint_(self, *args, **kwargs):
        linted, others = real(self, *args, **kwargs)
        found.append({f.rule for f in linted.result.findings})
        return linted, others
    monkeypatch.setattr(Workspace, "lint", lint_)
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 6
    assert [("PL117" in f, "PL702" in f) for f in found[1:]] == [
        (False, True), (False, True), (False, False), (True, False), (True, False),
        (False, True), (True, False), (False, False)]


def test_edits_on_a_cluster_its_snapshot_describes_find_what_a_whole_lint_finds(
        tmp_path, monkeypatch):
    """The rules that compare each declaration with its live topic (PL202, PL206, PL210)
    judge the edited file's alone: another file's drift from the snapshot stays as it was
    published, and the edit finds what a whole lint finds."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "clusters/prod-eu-1.json", tmp_path / "prod-eu-1.json")
    (tmp_path / "topics").mkdir()
    (tmp_path / "topics/a.yaml").write_text(  # payments: 3 replicas live, 3 partitions
        TOPIC.format(name="payments", cluster="prod-eu-1", rf=2, isr=1)
        .replace("partitions: 6", "partitions: 2"))
    (tmp_path / "topics/edited.yaml").write_text(topic(name="orders"))
    edits = [
        (topic(name="orders", rf=2, isr=1), True),  # PL202: 3 replicas live
        (topic(name="orders").replace("partitions: 6", "partitions: 4"), True),  # PL206
        (topic(name="orders") + "    retention.ms: 1000\n", True),  # PL210
        (topic(name="orders"), True),
    ]
    found = []
    real = Workspace.lint

    def lint_(self, *args, **kwargs):
        linted, others = real(self, *args, **kwargs)
        found.append(sorted({f.rule for f in linted.result.findings if f.rule in
                             ("PL202", "PL206", "PL210") and f.file == "topics/edited.yaml"}))
        return linted, others
    monkeypatch.setattr(Workspace, "lint", lint_)
    assert _edited_as_a_lint_finds(tmp_path, "topics/edited.yaml", edits) == len(edits)
    assert found[1:] == [["PL202"], ["PL206"], ["PL210"], []]


def test_edits_beside_a_plan_find_what_a_whole_lint_finds(folder, monkeypatch):
    """A plan's entries read their topics' declarations: an edit that gives or takes a
    topic the plan moves reads the folder again (the plan's findings may change); any other
    is judged alone."""
    monkeypatch.chdir(folder)
    (folder / "plan.json").write_text(  # "first" is declared with 3 replicas: PL201
        '{"version": 1, "partitions": [{"topic": "first", "partition": 0, '
        '"replicas": [1, 2]}, {"topic": "second", "partition": 0, "replicas": [1, 2]}]}\n')
    edits = [
        (topic(isr=4), True),
        (topic(name="first", rf=2), False),  # declared again, after a.yaml's
        (topic(name="second"), False),  # "first" taken; the plan's PL201 on "second" comes
        (topic(name="second", isr=4), False),  # the plan reads its min.insync.replicas
        (topic(name="other"), False),  # and its PL201 goes
        (topic(name="other", isr=4), True),
    ]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 2
    assert "PL201" in {f.rule for f in _whole(folder, {}).findings if f.file == "plan.json"}


def test_edits_beside_a_file_with_findings_of_its_reading_find_what_a_whole_lint_finds(
        folder, monkeypatch):
    """Another file's findings of its reading (PL101, PL118) are published as they were
    while an edit cannot change them, and the edit finds what a whole lint finds; a PL118
    that comes to stand for the edited file's topic too, or no longer, is another file's
    finding changed: the folder is read again."""
    monkeypatch.chdir(folder)
    (folder / "topics/b.yaml").write_text(topic(name="bee", cluster="elsewhere", rf="three"))
    (folder / "topics/y.yaml").write_text(topic(name="why", cluster="faraway"))
    edits = [
        (topic(isr=4), True),  # PL301
        (topic(rf="three"), True),  # PL101, as b.yaml's
        (topic(cluster="elsewhere"), False),  # b.yaml's PL118 now names 2 topics
        (topic(cluster="elsewhere", isr=1), True),
        (topic(), False),  # and 1 again
        (topic(isr=1), True),
        (topic(cluster="faraway"), False),  # y.yaml's PL118 comes here, at the first topic
        (topic(cluster="faraway", isr=1), True),
        (topic(), False),  # and goes back
    ]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 5


def test_a_topic_moved_beside_a_name_alike_in_its_new_cluster_reads_the_folder_again(
        folder, monkeypatch):
    """PL702 compares the names of one cluster's topics: a topic that keeps its name but
    moves to the cluster of another file's topic named alike gives that file a finding (or
    takes it), so the folder is read again."""
    monkeypatch.chdir(folder)
    (folder / "topics/b.yaml").write_text(topic(name="orders_v1"))
    edits = [
        (topic(name="orders.v1", cluster="elsewhere"), False),  # a cluster of its own
        (topic(name="orders.v1", cluster="elsewhere", isr=1), True),
        (topic(name="orders.v1"), False),  # beside b.yaml's orders_v1: its PL702 comes
        (topic(name="orders.v1", isr=1), True),
        (topic(name="orders.v1", cluster="elsewhere"), False),  # and goes
    ]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 2


#: what the random edits below are made of: names alike (PL702), given twice (PL117), a
#: name Kafka refuses, the described cluster, two it does not describe (PL118), values
#: that break rules or the schema (PL101), the cluster's min.insync.replicas inherited,
#: and text that does not parse (PL100)
NAMES = ["a.b", "a_b", "orders", "orders", "pay", "y.z", "y_z", "first", "zz-last", "Bad Name!"]
CLUSTERS = ["prod-eu-1", "prod-eu-1", "prod-eu-1", "nowhere", "other"]


def _random_text(rng) -> str:
    if rng.random() < 0.1:
        return rng.choice(["kind: [unclosed\n", ""])
    return "---\n".join(
        topic(name=rng.choice(NAMES), cluster=rng.choice(CLUSTERS),
              rf=rng.choice([1, 2, 3, 3, 4, "three"]), isr=rng.choice([1, 2, 2, 3, 4]))
        .replace("partitions: 6", f"partitions: {rng.choice([1, 3, 6, 12])}")
        .replace(*rng.choice([("", ""), ("", ""), ("min.insync.replicas", "flush.messages")]))
        + rng.choice(["", "", "    retention.ms: 1000\n", "    bogus.key: 1\n"])
        for _ in range(rng.choice([1, 1, 2, 3])))


@pytest.mark.parametrize("seed", range(40))
def test_random_edits_of_random_files_find_what_a_whole_lint_finds(tmp_path, monkeypatch,
                                                                   reads, seed):
    """Edits of any of a folder's files, whatever they give, take or move, each judged alone
    where it can be: every file's findings (the edited file's now, the others' as last
    published) are a whole lint's, on a cluster a Kafka or a snapshot describes, with or
    without a plan."""
    import json
    import random
    rng = random.Random(seed)
    monkeypatch.chdir(tmp_path)
    if seed % 2:
        shutil.copy(EXAMPLES / "gitops/kafka.yaml", tmp_path / "kafka.yaml")
    else:
        shutil.copy(EXAMPLES / "clusters/prod-eu-1.json", tmp_path / "prod-eu-1.json")
    if seed % 4 < 2:
        (tmp_path / "plan.json").write_text(json.dumps({"version": 1, "partitions": [
            {"topic": rng.choice(NAMES), "partition": 0, "replicas": [1, 2]}
            for _ in range(3)]}))
    (tmp_path / "topics").mkdir()
    texts = {f"topics/f{i}.yaml": _random_text(rng) for i in range(rng.choice([2, 3, 4]))}
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    space = Workspace([str(tmp_path)])
    path = str(tmp_path / "topics/f0.yaml")
    shown = _published(*space.lint(path, {path: texts["topics/f0.yaml"]}))
    for _ in range(12):
        edited = rng.choice(sorted(texts))
        texts[edited] = _random_text(rng)
        unsaved_ = {str(tmp_path / name): text for name, text in texts.items()}
        linted, others = space.lint(str(tmp_path / edited), unsaved_, edited=True)
        shown = _shown_after(shown, edited, linted, others)
        assert shown == _every_file(_whole(tmp_path, unsaved_).findings), \
            (edited, texts[edited])
    # a workspace pull: the model the edits kept, judged whole (no read of the folder)
    read = len(reads)
    every = space.lint_all(unsaved_, kept=True)
    assert _every_file(next(iter(every.values())).result.findings) == shown
    assert len(reads) == read


def test_an_edit_that_takes_the_one_topic_meeting_an_inherited_setting_reads_the_folder_again(
        folder, monkeypatch):
    """topics/a.yaml's topic breaks PL301 with the cluster's min.insync.replicas (2) it
    inherits: one finding, at kafka.yaml, while it is the only topic that inherits it. An
    edited topic that inherits it and meets it parts that finding into a.yaml's own; one
    that goes (the file being typed), or gives its own value, gathers it again. The edited
    file has no finding of it either way: the folder is read again."""
    monkeypatch.chdir(folder)
    (folder / "topics/a.yaml").write_text(inheriting("first", 1))
    edits = [
        (inheriting("edited", 3), False),  # inherits it and meets it: a.yaml's own finding
        (inheriting("edited", 3, 12), True),
        ("kind: [unclosed\n", False),  # being typed: gathered at kafka.yaml again
        (inheriting("edited", 3), False),
        (topic(), False),  # its own value: gathered
        (topic(isr=3), True),
    ]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 2


def test_a_topic_whose_value_is_unknown_weighs_nothing_in_an_edit(folder, monkeypatch):
    """A topic whose replication factor is not known (a value of the wrong type, PL101) is
    not judged against the cluster's min.insync.replicas it inherits: it weighs nothing in
    whether every topic that inherits it breaks it, in an edit judged alone as in a whole
    lint (PL302 gathered at kafka.yaml)."""
    monkeypatch.chdir(folder)
    (folder / "topics/a.yaml").write_text(inheriting("first", "three"))
    edits = [(inheriting("edited", 2), False), (inheriting("edited", 2, 12), True)]
    assert _edited_as_a_lint_finds(folder, "topics/edited.yaml", edits) == 1
    whole = _whole(folder, {str(folder / "topics/edited.yaml"): edits[-1][0]})
    assert "kafka.yaml" in {f.file for f in whole.findings if f.rule == "PL302"}


KAFKA = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: Kafka
metadata:
  name: {name}
  annotations:
    strimzi.io/node-pools: {pools}
spec:
  kafka:
    version: 4.1.0
    replicas: {brokers}
{rack}    config:
      min.insync.replicas: {isr}
      default.replication.factor: {rf}
"""
POOL = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaNodePool
metadata:
  name: pool-{n}
  labels:
    strimzi.io/cluster: {cluster}
spec:
  replicas: {brokers}
  roles: [broker]
"""


def _random_cluster_text(rng) -> str:
    """A file that describes clusters (a Kafka, its node pools), or what it is while being
    typed, or something else."""
    if rng.random() < 0.12:
        return rng.choice(["kind: [unclosed\n", "", topic(name="in-the-cluster-file")])
    if rng.random() < 0.2:  # a snapshot of one of them
        import json
        snapshot = json.loads((EXAMPLES / "clusters/prod-eu-1.json").read_text())
        snapshot["cluster"] = rng.choice(CLUSTERS)
        snapshot["brokers"] = snapshot["brokers"][:rng.choice([1, 3, 6])]
        snapshot["config"]["min.insync.replicas"] = str(rng.choice([1, 2, 4]))
        return json.dumps(snapshot, indent=1)
    docs = []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        docs.append(KAFKA.format(
            name=rng.choice(CLUSTERS), pools=rng.choice(["enabled", "disabled"]),
            brokers=rng.choice([1, 2, 3, 6]), isr=rng.choice([1, 2, 3, 4]),
            rf=rng.choice([1, 2, 3, 4]),
            rack=rng.choice(["", "    rack:\n      topologyKey: zone\n"])))
    for n in range(rng.choice([0, 0, 1, 2])):
        docs.append(POOL.format(n=n, cluster=rng.choice(CLUSTERS),
                                brokers=rng.choice([1, 3, "three"])))
    return "---\n".join(docs) or "# emptied\n"


def _describing(text: str) -> bool:
    """Whether a text of ``_random_cluster_text`` describes clusters alone (or is being
    typed): not a topic's, not a file with no document."""
    return "KafkaTopic" not in text and text not in ("", "# emptied\n")


@pytest.mark.parametrize("seed", range(30))
def test_random_edits_of_a_cluster_file_find_what_a_whole_lint_finds(tmp_path, monkeypatch,
                                                                     reads, seed):
    """Edits of a file that describes clusters judge every topic again without reading the
    other files again (``loader.redescribed``), whatever they describe: clusters that come,
    go, are described twice or lose their node pools, beside another cluster file, topics
    and a plan. Every file's findings are a whole lint's; the folder is read again only
    when the file held, or holds, more than descriptions of clusters."""
    import json
    import random
    rng = random.Random(seed)
    monkeypatch.chdir(tmp_path)
    texts = {"kafka.yaml": _random_cluster_text(rng), "pools.yaml": _random_cluster_text(rng)}
    if seed % 2:
        texts["plan.json"] = json.dumps({"version": 1, "partitions": [
            {"topic": rng.choice(NAMES), "partition": 0, "replicas": [1, 2]}
            for _ in range(3)]})
    texts.update({f"topics/f{i}.yaml": _random_text(rng) for i in range(rng.choice([2, 3]))})
    (tmp_path / "topics").mkdir()
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
    space = Workspace([str(tmp_path)])
    shown = _published(*space.lint(str(tmp_path / "topics/f0.yaml"), {}))
    for _ in range(10):
        edited = rng.choice(["kafka.yaml", "kafka.yaml", "pools.yaml"])
        before, texts[edited] = texts[edited], _random_cluster_text(rng)
        unsaved_ = {str(tmp_path / name): text for name, text in texts.items()}
        reads.clear()
        linted, others = space.lint(str(tmp_path / edited), unsaved_, edited=True)
        if others is not None:  # every topic judged again (else topics typed into a file
            # that held none: judged alone), the other files read again only when it must
            assert (not reads) == (_describing(before) and _describing(texts[edited]))
        shown = _shown_after(shown, edited, linted, others)
        assert shown == _every_file(_whole(tmp_path, unsaved_).findings), \
            (edited, texts[edited])


#: edits of the folder's policy, and whether the folder is read again for each: only when
#: what a read takes changes (the files it leaves out, where clusters are placed)
POLICY_EDITS = [
    ("rules:\n  PL301:\n    severity: warning\n", False),
    ("rules:\n  PL301:\n    enabled: false\n  PL117:\n    severity: note\n", False),
    ("exclude: ['topics/a.yaml']\n", True),  # PL117's first declaration left out
    ("exclude: ['topics/a.yaml']\nrules:\n  PL301:\n    severity: error\n", False),
    ("clusters:\n  elsewhere: ['topics/**']\n", True),  # a cluster's placement
    ("extends: default\n", True),
    ("exemptions:\n  - rule: PL301\n    topics: ['edit*']\n    reason: on purpose\n", False),
]


def test_policy_edits_judge_the_kept_model_again_unless_what_is_read_changes(folder,
                                                                              monkeypatch,
                                                                              reads):
    """Typing in the folder's policy judges every file again by the unsaved policy; the
    files are read again only when the policy changes what a read takes. Every file's
    findings are a whole lint's over the same texts."""
    monkeypatch.chdir(folder)
    (folder / "topics/edited.yaml").write_text(topic(isr=4))  # PL301
    policy = str(folder / ".policylint.yaml")
    Path(policy).write_text("extends: default\n")
    space = Workspace([str(folder)])
    space.lint(str(folder / "topics/edited.yaml"), {})
    for text, read in POLICY_EDITS:
        reads.clear()
        linted, others = space.lint(policy, {policy: text}, edited=True)
        assert bool(reads) == read, text
        assert _published(linted, others) == \
            _every_file(_whole(folder, {policy: text}).findings), text


def test_the_kept_model_makes_no_cycles(folder, monkeypatch):
    """The server freezes what it keeps (``gc.freeze``: no collection walks it), which is
    right while dropping it frees it: edits judged alone, a cluster's edit, a whole read
    again leave no cycle to collect. Nor do files that cannot be read (their errors are
    kept while they are unchanged: with the frames that raised them, each would hold the
    run that met it, frozen for good)."""
    import gc
    monkeypatch.chdir(folder)
    (folder / "topics/broken.yaml").write_text("kind: KafkaTopic\nspec: [\n")
    (folder / "topics/twice.json").write_text('{"version": 1, "version": 1}\n')
    space = Workspace([str(folder)])
    path, kafka = str(folder / "topics/edited.yaml"), str(folder / "kafka.yaml")
    gc.unfreeze()  # what other tests left, frozen by their servers' reads
    gc.collect()
    try:
        space.lint(path, {})
        for text in (topic(isr=1), "spec: [\n", topic(isr=4), topic(isr=2)):
            space.lint(path, {path: text}, edited=True)
        texts = {path: topic(), kafka: (folder / "kafka.yaml").read_text().replace(
            "replicas: 6", "replicas: 2")}
        space.lint(kafka, texts, edited=True, first=set(texts))
        space.rest(texts)
        space.stale()
        space.lint(path, texts)
        del space
        gc.unfreeze()
        assert gc.collect() == 0
    finally:
        gc.unfreeze()
