"""Jikkou: ``kafka.jikkou.io`` ``KafkaTopic`` and ``KafkaTopicList`` (``-1``: the broker
default), with ``configMapRefs`` resolved against the ``core.jikkou.io`` ``ConfigMap``s of
the run (a topic's own ``configs`` win over them)."""

from __future__ import annotations

from ..model import TopicSpec
from . import schemas
from .document import Document
from .formats import Fields, declared

KINDS = {"jikkou-topic": "topics", "jikkou-topic-list": "topics",
         "jikkou-configmap": "configmap"}
DELETE = "jikkou.io/delete"
API_KINDS = {("kafka.jikkou.io", "KafkaTopic"): "jikkou-topic",
             ("kafka.jikkou.io", "KafkaTopicList"): "jikkou-topic-list",
             ("core.jikkou.io", "ConfigMap"): "jikkou-configmap"}


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    if doc.data.get("kind") == "KafkaTopicList":
        items = doc.data.get("items")
        return [t for i in range(len(items) if isinstance(items, list) else 0)
                for t in _topic(doc, fields, ("items", i), related)]
    return _topic(doc, fields, (), related)


def _topic(doc: Document, fields: Fields, at: tuple, related: dict) -> list[TopicSpec]:
    if str(fields.get(at + ("metadata", "annotations", DELETE))).lower() == "true":
        return []  # a topic Jikkou deletes: no longer declared
    spec = at + ("spec",)
    config, moved = {}, {}
    for i, name in enumerate(fields.get(spec + ("configMapRefs",)) or ()):
        for configmap in related.get("configmap", ()):
            if configmap.data["metadata"]["name"] == name:
                ref = spec + ("configMapRefs", i)
                for key, value in Fields(configmap).mapping(("data",)).items():
                    config[key], moved[key] = value, (ref, ref)
    own = fields.mapping(spec + ("configs",))
    config.update(own)
    for key in own:
        moved.pop(key, None)
    paths = {"name": at + ("metadata", "name"), "rf": spec + ("replicas",),
             "partitions": spec + ("partitions",), "config": spec + ("configs",)}
    found = declared(doc, kind="Jikkou KafkaTopic", name=fields.get(paths["name"]),
                     paths=paths, rf=fields.count(paths["rf"]),
                     partitions=fields.count(paths["partitions"]), config=config,
                     config_paths=moved or None,
                     annotations=fields.annotations(at + ("metadata", "annotations")),
                     resource=("KafkaTopic", None, fields.get(paths["name"])))
    return [found] if found is not None else []

