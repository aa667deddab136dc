"""JSON locations: the offsets found at C speed in long arrays are the exact ones, also when
a string imitates the boundary between elements or the elements are written unevenly."""

import json

import pytest

from policylint.sources.document import SourceFile
from policylint.sources.formats import validator
from policylint.sources.jsondoc import JsonLocator, line_column, load_json

ENTRY = {"topic": "orders", "partition": 0, "replicas": [1, 2, 3], "log_dirs": ["any"] * 3}
EXTRA = [{"topic": "x"}, {"topic": "y"}]  # objects inside an entry that start as entries do


def plan_text(entries: list, separator: str = ", ", uneven_at: int | None = None) -> str:
    """A plan; the element at ``uneven_at`` follows another separator than the others."""
    items = list(map(json.dumps, entries))
    if uneven_at is not None:
        items[uneven_at] = "\n  " + items[uneven_at]
    return '{"version": 1, "partitions": [' + separator.join(items) + "]}"


def exact(text: str, path: tuple) -> tuple[int, int]:
    """Where the value at ``path`` starts, by scanning every element (the slow truth)."""
    locator = JsonLocator(text, json.loads(text))
    pos = locator._scanned(locator._member(0, "partitions"))[path[1]]
    if len(path) > 2:
        pos = locator._member(pos, path[2])
    return line_column(text, pos)


def entries(n: int) -> list:
    return [dict(ENTRY, partition=i) for i in range(n)]


@pytest.mark.parametrize("name,text", [
    ("compact", plan_text(entries(1000), ",")),
    ("pretty", json.dumps({"version": 1, "partitions": entries(1000)}, indent=2)),
    # an entry that holds objects starting as entries do: the boundary occurs once more,
    # and offsets after it would be one element off
    ("boundary inside", plan_text(entries(400) + [dict(ENTRY, extra=EXTRA)] + entries(600))),
    # one element written apart from the others: the boundary is missing once
    ("uneven separators", plan_text(entries(500), uneven_at=100)),
    # both at once: the counts agree, the offsets in between do not
    ("both", plan_text(entries(300) + [dict(ENTRY, extra=EXTRA)] + entries(300),
                       uneven_at=100)),
])
def test_long_array_offsets_are_exact(name, text):
    doc = load_json(SourceFile("plan.json", text, "json"))[0]
    n = len(doc.data["partitions"])
    for i in (0, 1, 2, 99, 100, 101, 299, 300, 301, 302, 400, 401, 599, n - 1):
        if i < n:
            for path in (("partitions", i), ("partitions", i, "replicas")):
                assert doc.locate(path) == exact(text, path), (name, path)


def test_a_missing_index_locates_the_array():
    text = plan_text(entries(300))
    doc = load_json(SourceFile("plan.json", text, "json"))[0]
    assert doc.locate(("partitions", 5000)) == line_column(text, text.index("[{"))


def snapshot_text(topics: int, extra_at: int | None = None) -> str:
    """Topics of ~3 KB; the one at ``extra_at`` also holds objects that start as topics do,
    so the boundary between topics occurs once more inside it."""
    items = [{"name": f"t{i}", "partitions": [
        {"partition": p, "replicas": [1, 2, 3], "isr": [1, 2, 3]} for p in range(40)]}
        for i in range(topics)]
    if extra_at is not None:
        items[extra_at]["extra"] = [{"name": "a"}, {"name": "b"}]
    return json.dumps({"kind": "ClusterSnapshot", "version": 1, "cluster": "c", "brokers": [],
                       "topics": items})


@pytest.mark.parametrize("text,scans", [(snapshot_text(300), 0),
                                        (snapshot_text(300, extra_at=150), 1)])
def test_offsets_in_an_array_of_large_objects(text, scans, monkeypatch):
    doc = load_json(SourceFile("snap.json", text, "json"))[0]
    scanned = []
    original = JsonLocator._scanned
    monkeypatch.setattr(JsonLocator, "_scanned",
                        lambda self, pos: scanned.append(pos) or original(self, pos))
    for i in (0, 1, 149, 150, 151, 299):
        for j in (0, 39):
            path = ("topics", i, "partitions", j, "replicas")
            offset = JsonLocator(text, doc.data).offset(path)
            # the j-th partition of the i-th topic, and its replicas
            assert text[:offset].count('{"partition": ') == i * 40 + j + 1
            assert text[offset:].startswith("[1, 2, 3]")
    topics = text.index('"topics": [') + len('"topics": ')
    # the boundary "}, {" between partitions alone would have been taken for topics
    assert scanned.count(topics) == scans * 12


def located(text: str, data, paths, monkeypatch, proven: bool) -> list[int]:
    """The offsets of ``paths`` in the model's types (as a large file is decoded); where
    ``proven``, no entry or partition is checked against its value."""
    holds = JsonLocator._holds
    if proven:
        monkeypatch.setattr(JsonLocator, "_holds", lambda self, starts, index, item: pytest.fail(
            "checked") if type(item).__name__ in ("Move", "PartitionState")
            else holds(self, starts, index, item))
    locator = JsonLocator(text, data)
    return [locator.offset(path) for path in paths]


@pytest.mark.parametrize("name,text,proven", [
    ("compact", plan_text(entries(1000), ","), True),
    ("pretty", json.dumps({"version": 1, "partitions": entries(1000)}, indent=2), True),
    # one element written apart from the others: its boundary is missing
    ("uneven separators", plan_text(entries(500), uneven_at=100), False),
    # a "{" in a string: one more than the elements, so each located element is checked
    ("a brace in a name", plan_text(entries(300) + [dict(ENTRY, topic="a{b")] + entries(300)),
     False),
])
def test_offsets_of_entries_in_the_models_types(name, text, proven, monkeypatch):
    data = validator("reassignment").decode(text)
    n = len(data.partitions)
    paths = [("partitions", i, *rest) for i in (0, 1, 99, 100, 101, 300, 301, n - 1)
             if i < n for rest in ((), ("replicas",))]
    offsets = located(text, data, paths, monkeypatch, proven)
    assert [line_column(text, o) for o in offsets] == [exact(text, p) for p in paths], name


@pytest.mark.parametrize("uneven,twin", [(None, False), ((150, 20), False), ((150, 20), True)])
def test_offsets_of_partitions_in_the_models_types(uneven, twin, monkeypatch):
    """A snapshot's partitions: each topic's array proven by itself. One partition written
    apart from the others (after a line break) leaves its boundary missing: the offsets
    found run on into the next topic's partitions, and are checked, also when that topic's
    last partition is written as this one's last (``twin``: the next topic's partitions are
    0 and 39, and the count of ``{`` tells the arrays apart)."""
    text = snapshot_text(300)
    if twin:
        last = '{"partition": 39, "replicas": [1, 2, 3], "isr": [1, 2, 3]}'
        start = text.index('"name": "t151"')
        start, end = text.index("[", start), text.index(last, start) + len(last) + 1
        text = text[:start] + '[{"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2, 3]}, ' \
            + last + "]" + text[end:]
    if uneven is not None:
        topic, partition = uneven
        at = text.index(f'{{"partition": {partition}, ', text.index(f'"name": "t{topic}"'))
        text = text[:at - 1] + "\n" + text[at:]  # ", {" -> ",\n{"
    data = validator("snapshot").decode(text)
    sizes = [len(topic.partitions) for topic in data.topics]
    paths = [("topics", i, "partitions", j, "replicas") for i in (0, 149, 150, 151, 152, 299)
             for j in (0, 19, 20, 21, 38, 39) if j < sizes[i]]
    for path, offset in zip(paths, located(text, data, paths, monkeypatch, uneven is None)):
        # the j-th partition of the i-th topic, and its replicas
        assert text[:offset].count('{"partition": ') == sum(sizes[:path[1]]) + path[3] + 1
        assert text[offset:].startswith("[1, 2, 3]")


def test_only_types_that_hold_no_object_are_flat():
    """The proof of a long array's offsets holds for elements of a type in which no JSON
    object can be written (see ``JsonLocator._written_alike``)."""
    import msgspec

    from policylint.sources.jsondoc import _flat

    class Inner(msgspec.Struct):
        a: int

    class Flat(msgspec.Struct):
        a: int
        b: str | None = None
        c: list[int] = []
        d: tuple[int, str] = (0, "")
        e: frozenset[str] = frozenset()

    kinds = {"a mapping": dict[str, int], "an object": Inner, "objects": list[Inner],
             "maybe an object": Inner | None, "anything": object}
    assert _flat(Flat) and not _flat(dict)
    for what, kind in kinds.items():
        assert not _flat(msgspec.defstruct("Holds", [("a", int), ("x", kind)])), what
    snapshot = validator("snapshot").type_at("properties", "topics", "items")
    assert not _flat(snapshot)  # a topic holds its partitions
    assert _flat(validator("snapshot").type_at("properties", "topics", "items", "properties",
                                               "partitions", "items"))
