"""JSON locations: the offsets found at C speed in long arrays are the exact ones, also when
a string imitates the boundary between elements or the elements are written unevenly."""

import json

import pytest

from policylint.sources.document import SourceFile
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
