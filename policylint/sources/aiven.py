"""Aiven operator: ``aiven.io`` ``KafkaTopic``. Its config keys are Kafka's written in
snake_case (``min_insync_replicas``); they are judged as Kafka's and located as written. Its
cluster is the Aiven service it names (``serviceName``)."""

from __future__ import annotations

from ..model import KEY, TopicSpec
from . import schemas
from .document import Document
from .formats import Fields, declared, known

KINDS = {"aiven-topic": "topics"}
API_KINDS = {("aiven.io", "KafkaTopic"): "aiven-topic"}


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    written = fields.mapping(("spec", "config"))
    config = {key.replace("_", "."): value for key, value in written.items()}
    moved = {key.replace("_", "."): (("spec", "config", key), ("spec", "config", key, KEY))
             for key in written if "_" in key}
    name_path = ("spec", "topicName") if fields.get(("spec", "topicName")) else ("metadata", "name")
    paths = {"name": name_path, "rf": ("spec", "replication"), "partitions": ("spec", "partitions"),
             "config": ("spec", "config"), "cluster": ("spec", "serviceName")}
    found = declared(doc, kind="Aiven KafkaTopic", name=fields.get(name_path),
                     paths=paths, rf=fields.count(paths["rf"], ()),
                     partitions=fields.count(paths["partitions"], ()), config=config,
                     config_paths=moved or None,
                     resource=("KafkaTopic", known(fields.get(("metadata", "namespace"))),
                               known(fields.get(("metadata", "name")))),
                     cluster=known(fields.get(paths["cluster"])))
    return [found] if found is not None else []
