"""policylint's ClusterSnapshot (JSON or YAML): a cluster profile plus, optionally, topics."""

from __future__ import annotations

from ..model import ClusterProfile, PartitionState, Snapshot, TopicState
from .document import Document

_EMPTY: list[int] = []


def detect(data: dict) -> str | None:
    return "snapshot" if data.get("kind") == "ClusterSnapshot" else None


def snapshot(doc: Document, bad_topics: set[int], bad_partitions: set[tuple[int, int]]
             ) -> Snapshot:
    """The snapshot, less the topics and partitions that broke the schema."""
    data = doc.data
    profile = ClusterProfile(
        name=data["cluster"],
        brokers={b["id"]: b.get("rack") for b in data["brokers"]},
        broker_count=len({b["id"] for b in data["brokers"]}),
        config=data.get("config") or {},
        kafka_version=data.get("kafka_version"),
        doc=doc, brokers_path=("brokers",))
    topics: dict[str, TopicState] = {}
    new = tuple.__new__
    for ti, topic in enumerate(data.get("topics") or ()):
        if ti in bad_topics or topic["name"] in topics:
            continue
        parts = [new(PartitionState, (p["partition"], p["replicas"], p.get("isr"),
                                      p.get("adding") or _EMPTY, p.get("removing") or _EMPTY,
                                      pi))
                 for pi, p in enumerate(topic["partitions"])
                 if not bad_partitions or (ti, pi) not in bad_partitions]
        topics[topic["name"]] = TopicState(topic["name"], topic.get("config") or {}, parts,
                                           doc, ("topics", ti))
    return Snapshot(profile, topics, doc)
