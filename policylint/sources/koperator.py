"""Koperator (Banzai Cloud): ``kafka.banzaicloud.io`` ``KafkaTopic`` (``-1``: the broker
default; ``clusterRef`` names its cluster) and ``KafkaCluster`` (its brokers, the broker
settings of ``readOnlyConfig``)."""

from __future__ import annotations

import re

from ..model import ClusterProfile, TopicSpec
from . import schemas
from .document import Document
from .formats import Fields, declared, known

KINDS = {"koperator-topic": "topics", "koperator-cluster": "cluster"}
API_KINDS = {("kafka.banzaicloud.io", "KafkaTopic"): "koperator-topic",
             ("kafka.banzaicloud.io", "KafkaCluster"): "koperator-cluster"}
_PATHS = {"name": ("spec", "name"), "rf": ("spec", "replicationFactor"),
          "partitions": ("spec", "partitions"), "config": ("spec", "config"),
          "cluster": ("spec", "clusterRef", "name")}
_VERSION = re.compile(r"(\d+\.\d+\.\d+)\s*$")


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    namespace = known(fields.get(("spec", "clusterRef", "namespace"))) or \
        known(fields.get(("metadata", "namespace")))
    found = declared(doc, kind="Koperator KafkaTopic", name=fields.get(_PATHS["name"]),
                     paths=_PATHS, rf=fields.count(_PATHS["rf"]),
                     partitions=fields.count(_PATHS["partitions"]),
                     config=fields.mapping(_PATHS["config"]),
                     resource=("KafkaTopic", namespace, known(fields.get(("metadata", "name")))),
                     cluster=known(fields.get(_PATHS["cluster"])), namespace=namespace)
    return [found] if found is not None else []


def profile(doc: Document, fields: Fields | None, related: dict) -> ClusterProfile:
    fields = fields or Fields(doc)
    ids = [known(fields.get(("spec", "brokers", i, "id")))
           for i in range(len(fields.get(("spec", "brokers")) or ()))]
    brokers = {i: None for i in ids if type(i) is int} if ids else None
    config = {}
    text = known(fields.get(("spec", "readOnlyConfig")))
    for line in text.splitlines() if isinstance(text, str) else ():
        key, sep, value = line.partition("=")
        if sep and not key.lstrip().startswith("#"):
            config[key.strip()] = value.strip()
    image = known(fields.get(("spec", "clusterImage")))
    match = _VERSION.search(image.rpartition("-")[2]) if isinstance(image, str) else None
    metadata = doc.data["metadata"]
    return ClusterProfile(name=metadata["name"], namespace=metadata.get("namespace"),
                          brokers=brokers, broker_count=None if brokers is None else len(brokers),
                          config=config, kafka_version=match.group(1) if match else None,
                          doc=doc, brokers_path=("spec", "brokers"),
                          config_path=("spec", "readOnlyConfig"))
