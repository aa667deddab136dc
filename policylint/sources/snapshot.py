"""policylint's ClusterSnapshot (JSON or YAML): a cluster profile plus, optionally, topics."""

from __future__ import annotations

from typing import Any, Iterator

from msgspec import UNSET

from ..model import ClusterProfile, PartitionState, Snapshot, TopicState
from .document import Document
from . import schemas
from .formats import validator

KINDS = {"snapshot": "snapshot"}
MODELS = {"snapshot": {"partition": PartitionState}}  # its partitions are decoded as such
ORDER = 10


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def detect(data: dict) -> str | None:
    return "snapshot" if data.get("kind") == "ClusterSnapshot" else None


def snapshot(doc: Document, bad_topics: set[int] = frozenset(),
             bad_partitions: set[tuple[int, int]] = frozenset()) -> Snapshot:
    """The snapshot, less the topics and partitions that broke the schema: from the
    validated ``doc.typed``, else its good parts converted to the schema's types."""
    if doc.typed is not None:
        data = doc.typed
        topics_in = ((ti, topic, None) for ti, topic in enumerate(data.topics or ()))
    else:
        schema = validator("snapshot")
        data = schema.convert({**doc.data, "topics": []})
        topics_in = _good_topics(doc.data.get("topics") or (), bad_topics, bad_partitions,
                                 schema)
    profile = ClusterProfile(
        name=data.cluster,
        brokers={b.id: None if b.rack is UNSET else b.rack for b in data.brokers},
        broker_count=len({b.id for b in data.brokers}),
        config=data.config or {},
        kafka_version=None if data.kafka_version is UNSET else data.kafka_version,
        features={} if data.features is UNSET else dict(data.features),
        doc=doc, brokers_path=("brokers",),
        log_dirs={b.id: b.log_dirs for b in data.brokers if b.log_dirs is not UNSET},
        cordoned={b.id: b.cordoned_log_dirs for b in data.brokers
                  if b.cordoned_log_dirs is not UNSET and b.cordoned_log_dirs},
        racks_known=True)
    topics: dict[str, TopicState] = {}
    for ti, topic, written in topics_in:
        if topic.name not in topics:  # its partitions as decoded: the model's own type
            topics[topic.name] = TopicState(topic.name, topic.config or {}, topic.partitions,
                                            doc, ("topics", ti), written)
    lists = doc.typed.topics not in (UNSET, None) if doc.typed is not None else \
        doc.data.get("topics") is not None
    return Snapshot(profile, topics, doc, data.captured_at or None, lists)


def _good_topics(topics: list, bad_topics: set[int], bad_partitions: set[tuple[int, int]],
                 schema: Any) -> Iterator[tuple[int, Any, list[int] | None]]:
    """(index, topic in the schema's types, where its partitions are written: None when
    all are kept) of each good topic, its bad partitions left out."""
    kind = schema.type_at("properties", "topics", "items")
    for ti, topic in enumerate(topics):
        if ti in bad_topics:
            continue
        indices = [pi for pi in range(len(topic["partitions"]))
                   if (ti, pi) not in bad_partitions]
        good = [topic["partitions"][pi] for pi in indices]
        yield ti, schema.convert({**topic, "partitions": good}, kind), \
            indices if len(good) < len(topic["partitions"]) else None
