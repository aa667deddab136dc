"""Strimzi custom resources: ``KafkaTopic`` manifests, ``Kafka`` and ``KafkaNodePool``
(together a cluster profile)."""

from __future__ import annotations

from typing import Any

from ..model import ClusterProfile, TopicSpec
from .document import Document

GROUP = "kafka.strimzi.io/"
KINDS = {"KafkaTopic": "strimzi-topic", "Kafka": "strimzi-kafka",
         "KafkaNodePool": "strimzi-nodepool"}
CLUSTER_LABEL = "strimzi.io/cluster"


def detect(data: dict) -> str | None:
    api, kind = data.get("apiVersion"), data.get("kind")
    if isinstance(api, str) and api.startswith(GROUP) and isinstance(kind, str):
        return KINDS.get(kind)
    return None


# where a KafkaTopic's fields are, by where its name is (shared by every manifest, read only)
_PATHS = {name_path: {"name": name_path, "rf": ("spec", "replicas"),
                      "partitions": ("spec", "partitions"), "config": ("spec", "config")}
          for name_path in (("spec", "topicName"), ("metadata", "name"))}


def topic_spec(doc: Document) -> TopicSpec:
    data = doc.data
    spec = data.get("spec") or {}
    metadata = data["metadata"]
    named = "topicName" in spec
    return TopicSpec(
        name=spec["topicName"] if named else metadata["name"],
        rf=_declared(spec.get("replicas")),
        partitions=_declared(spec.get("partitions")),
        config=spec.get("config") or {},
        doc=doc,
        paths=_PATHS[("spec", "topicName") if named else ("metadata", "name")],
        annotations=metadata.get("annotations") or {},
        resource=("KafkaTopic", metadata.get("namespace"), metadata["name"]),
        cluster=_labels(metadata).get(CLUSTER_LABEL),
    )


def _labels(metadata: dict) -> dict:
    labels = metadata.get("labels")
    return labels if isinstance(labels, dict) else {}


def uses_node_pools(kafka: Document) -> bool:
    """Strimzi reads broker counts from KafkaNodePools for a ``v1`` Kafka, and for a
    ``v1beta2`` one annotated ``strimzi.io/node-pools: enabled``; it ignores
    ``spec.kafka.replicas`` then."""
    data = kafka.data
    annotations = data["metadata"].get("annotations") or {}
    return data["apiVersion"] == GROUP + "v1" or \
        str(annotations.get("strimzi.io/node-pools", "")).lower() == "enabled"


def pool_of(pool: Document, kafka: Document) -> bool:
    """Whether a KafkaNodePool belongs to a Kafka: its label names it, in its namespace."""
    meta, kafka_meta = pool.data["metadata"], kafka.data["metadata"]
    return _labels(meta).get(CLUSTER_LABEL) == kafka_meta["name"] and \
        meta.get("namespace") == kafka_meta.get("namespace")


def _declared(value: int | None) -> int | None:
    return None if value is None or value == -1 else value


def cluster_profile(doc: Document, pools: list[Document]) -> ClusterProfile:
    """A ``Kafka``'s profile: with node pools, the broker count is the sum of its
    broker-role pools' replicas (None when it has none: unknown), and the broker ids are
    not known; without, brokers 0..n-1 of ``spec.kafka.replicas``."""
    metadata = doc.data["metadata"]
    kafka: dict[str, Any] = doc.data["spec"].get("kafka") or {}
    if uses_node_pools(doc):
        sizes = [p.data["spec"]["replicas"] for p in pools
                 if pool_of(p, doc) and "broker" in p.data["spec"]["roles"]]
        count, brokers, path = (sum(sizes) if sizes else None), None, ("metadata", "name")
    else:
        count = kafka.get("replicas")
        brokers = None if count is None else {i: None for i in range(count)}
        path = ("spec", "kafka", "replicas")
    return ClusterProfile(name=metadata["name"], brokers=brokers, broker_count=count,
                          config=kafka.get("config") or {}, kafka_version=kafka.get("version"),
                          doc=doc, brokers_path=path, namespace=metadata.get("namespace"),
                          config_path=("spec", "kafka", "config"), config_complete=True)


def has_broker_pools(doc: Document, pools: list[Document]) -> bool:
    return any(pool_of(p, doc) and "broker" in p.data["spec"]["roles"] for p in pools)
