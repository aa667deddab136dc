"""``kafka-topics.sh --describe`` output, saved as printed: a snapshot of the topics it lists.

Each topic is a line ``Topic: NAME  TopicId: ...  PartitionCount: N  ReplicationFactor: R
Configs: k=v,...`` followed by one line per partition ``Topic: NAME  Partition: P  Leader: L
Replicas: a,b,c  Isr: a,b`` (with ``Adding Replicas:``/``Removing Replicas:`` while it is
reassigning, ``Elr:``/``LastKnownElr:`` on newer releases). Tabs or spaces, prose and
Markdown fences around it (a README's pasted output) are all taken. It names no cluster
and not its brokers: the snapshot's cluster is named after the file, its brokers unknown.
Usable as a linted file, ``--cluster`` and ``--current``.
"""

from __future__ import annotations

import posixpath
import re

from ..model import ClusterProfile, PartitionState, Snapshot, TopicState
from .document import Document, ParseError, SourceFile

KINDS = {"topics-describe": "snapshot"}
ORDER = 5
DESCRIBE = "kafka-topics.sh --describe"
_HEADER = re.compile(r"^[ \t>]*Topic:[ \t]*\S+[ \t]+(?:TopicId:[ \t]*\S*[ \t]+)?"
                     r"PartitionCount:", re.M)
#: the start of a text that JSON's ``{`` or ``[`` opens
_JSON = re.compile(r"\s*[{\[]")
#: one "Key: value" field of a line; the value is what precedes the next key or the end
#: (compiled where such output is parsed: 2 ms of every run's start otherwise)
_FIELD = (r"(Topic|TopicId|PartitionCount|ReplicationFactor|Configs|Partition|"
          r"Leader|Replicas|Isr|Adding Replicas|Removing Replicas|Offline|Elr|"
          r"LastKnownElr|MarkedForDeletion):[ \t]*([^\t ]*)")
_IDS = re.compile(r"-?\d{1,10}")
#: a snapshot field -> the key its value follows on the line
_KEYS = {"replicas": "Replicas", "isr": "Isr", "adding": "Adding Replicas",
         "removing": "Removing Replicas", "partition": "Partition", "config": "Configs",
         "name": "Topic"}


def is_describe(text: str) -> bool:
    """Whether a file's text is kafka-topics.sh's printed description. A text that starts as
    JSON does (``{``, ``[``) is not: searched, a large plan's would take a tenth of a
    second."""
    return _JSON.match(text) is None and "PartitionCount:" in text and \
        _HEADER.search(text) is not None


def detect(data: dict) -> str | None:
    return "topics-describe" if data.get("kind") == DESCRIBE else None


def schema(kind: str) -> dict:
    return {"type": "object"}  # made by the parser below, which reports what it cannot read


def parse(source: SourceFile) -> list[Document]:
    """The output as one document: ``{"kind", "cluster", "topics": [{"name", "config",
    "partitions": [{"partition", "replicas", "isr", "adding", "removing"}]}]}``, each value
    located at its line and column."""
    topics: list[dict] = []
    marks: dict[tuple, tuple[int, int]] = {}
    by_name: dict[str, int] = {}
    field = re.compile(_FIELD)
    for number, line in enumerate(source.text.splitlines(), 1):
        if "Topic:" not in line:
            continue
        fields = {m.group(1): (m.group(2), m.start(2) + 1) for m in field.finditer(line)}
        if "Topic" not in fields:
            continue
        name = fields["Topic"][0]
        if "PartitionCount" in fields:  # a topic's line
            ti = by_name.setdefault(name, len(topics))
            if ti == len(topics):
                topics.append({"name": name, "config": _configs(fields), "partitions": []})
            marks[("topics", ti)] = (number, fields["Topic"][1])
            marks[("topics", ti, "name")] = (number, fields["Topic"][1])
            if "Configs" in fields:
                marks[("topics", ti, "config")] = (number, fields["Configs"][1])
            continue
        if "Partition" not in fields or "Replicas" not in fields:
            continue
        ti = by_name.setdefault(name, len(topics))
        if ti == len(topics):  # partitions printed without their topic's line
            topics.append({"name": name, "config": {}, "partitions": []})
        partition = _number(fields["Partition"][0], source.name, number)
        entry = {"partition": partition,
                 "replicas": _ids(fields["Replicas"][0], source.name, number),
                 "isr": _ids(fields["Isr"][0], source.name, number) if "Isr" in fields else None,
                 "adding": _ids(fields.get("Adding Replicas", ("",))[0], source.name, number),
                 "removing": _ids(fields.get("Removing Replicas", ("",))[0], source.name,
                                  number)}
        pi = len(topics[ti]["partitions"])
        topics[ti]["partitions"].append(entry)
        marks[("topics", ti, "partitions", pi)] = (number, fields["Topic"][1])
        for key, printed in _KEYS.items():
            if printed in fields:
                marks[("topics", ti, "partitions", pi, key)] = (number, fields[printed][1])
    if not topics:
        raise ParseError("kafka-topics.sh --describe output without a topic")
    stem = posixpath.basename(source.name).split(".")[0] or source.name
    data = {"kind": DESCRIBE, "cluster": stem, "topics": topics}
    return [Document(source, data, 0, lambda path: _mark(marks, path))]


def _mark(marks: dict, path: tuple) -> tuple[int, int] | None:
    while path:
        if path in marks:
            return marks[path]
        path = path[:-1]
    return None


def _configs(fields: dict) -> dict[str, str]:
    printed = fields.get("Configs", ("",))[0]
    config = {}
    for item in printed.split(","):
        key, sep, value = item.partition("=")
        if sep and key:
            config[key] = value
    return config


def _number(text: str, name: str, line: int) -> int:
    if not _IDS.fullmatch(text):
        raise ParseError(f"kafka-topics.sh --describe output: {text!r} is no partition number",
                         line)
    return int(text)


def _ids(text: str, name: str, line: int) -> list[int]:
    if text in ("", "N/A"):
        return []
    ids = text.split(",")
    if not all(_IDS.fullmatch(i) for i in ids):
        raise ParseError(f"kafka-topics.sh --describe output: {text!r} is no list of broker "
                         "ids", line)
    return [int(i) for i in ids]


def snapshots(doc: Document) -> list[Snapshot]:
    """The topics printed, as a snapshot of a cluster whose brokers are not known."""
    data = doc.data
    topics = {}
    for ti, topic in enumerate(data["topics"]):
        parts = [PartitionState(p["partition"], p["replicas"], p["isr"], p["adding"],
                                p["removing"]) for p in topic["partitions"]]
        topics.setdefault(topic["name"], TopicState(topic["name"], topic["config"], parts, doc,
                                                    ("topics", ti)))
    profile = ClusterProfile(name=data["cluster"], brokers=None, broker_count=None, config={},
                             kafka_version=None, doc=doc, brokers_path=())
    return [Snapshot(profile, topics, doc)]


def assignment(doc: Document) -> dict[tuple[str, int], list[int]]:
    """(topic, partition) -> replicas, as ``--current``: the target of a reassigning
    partition (replicas - removing), as Kafka's controller will hold it."""
    return {(topic["name"], p["partition"]): [r for r in p["replicas"] if r not in p["removing"]]
            for topic in doc.data["topics"] for p in topic["partitions"]}
