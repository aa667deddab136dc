"""kafka-gitops desired-state files: ``topics: {name: {partitions, replication, configs}}``,
a topic without ``replication`` taking ``settings.topics.defaults.replication``."""

from __future__ import annotations

from ..model import TopicSpec
from . import schemas
from .document import Document
from .formats import Fields, declared

KINDS = {"kafka-gitops-state": "topics"}
_DEFAULT = ("settings", "topics", "defaults", "replication")


def detect(data: dict) -> str | None:
    topics = data.get("topics")
    return "kafka-gitops-state" if type(topics) is dict and "kind" not in data and \
        "apiVersion" not in data and all(type(t) is dict for t in topics.values()) else None


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    found = []
    for name in doc.data["topics"]:
        at = ("topics", name)
        rf_path = at + ("replication",) if fields.get(at + ("replication",)) is not None \
            else _DEFAULT
        paths = {"name": at, "rf": rf_path, "partitions": at + ("partitions",),
                 "config": at + ("configs",)}
        topic = declared(doc, kind="kafka-gitops topic", name=name, paths=paths,
                         rf=fields.count(rf_path, ()), partitions=fields.count(paths["partitions"], ()),
                         config=fields.mapping(paths["config"]),
                         resource=("kafka-gitops", None, name))
        if topic is not None:
            found.append(topic)
    return found
