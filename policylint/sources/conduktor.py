"""Conduktor: ``kafka/v2`` ``Topic`` (``metadata.cluster`` names its cluster)."""

from __future__ import annotations

from ..model import TopicSpec
from . import schemas
from .document import Document
from .formats import Fields, declared, known

KINDS = {"conduktor-topic": "topics"}
# apiVersion kafka/v2 (the group "kafka"), or v2 alone as older examples write it
API_KINDS = {("kafka", "Topic"): "conduktor-topic", ("v2", "Topic"): "conduktor-topic"}
_PATHS = {"name": ("metadata", "name"), "rf": ("spec", "replicationFactor"),
          "partitions": ("spec", "partitions"), "config": ("spec", "configs"),
          "cluster": ("metadata", "cluster")}


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    name = fields.get(_PATHS["name"])
    found = declared(doc, kind="Conduktor Topic", name=name, paths=_PATHS,
                     rf=fields.count(_PATHS["rf"], ()),
                     partitions=fields.count(_PATHS["partitions"], ()),
                     config=fields.mapping(_PATHS["config"]),
                     annotations=fields.annotations(("metadata", "labels")),
                     resource=("Topic", known(fields.get(_PATHS["cluster"])), name),
                     cluster=known(fields.get(_PATHS["cluster"])))
    return [found] if found is not None else []

