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
    api = data.get("apiVersion")
    if isinstance(api, str) and api.startswith(GROUP):
        return KINDS.get(data.get("kind"))
    return None


def topic_spec(doc: Document) -> TopicSpec:
    data = doc.data
    spec = data.get("spec") or {}
    metadata = data["metadata"]
    if "topicName" in spec:
        name, name_path = spec["topicName"], ("spec", "topicName")
    else:
        name, name_path = metadata["name"], ("metadata", "name")
    return TopicSpec(
        name=name,
        rf=_declared(spec.get("replicas")),
        partitions=_declared(spec.get("partitions")),
        config=spec.get("config") or {},
        doc=doc,
        paths={"name": name_path, "rf": ("spec", "replicas"),
               "partitions": ("spec", "partitions"), "config": ("spec", "config")},
        annotations=metadata.get("annotations") or {},
        resource=("KafkaTopic", metadata.get("namespace"), metadata["name"]),
    )


def _declared(value: int | None) -> int | None:
    return None if value is None or value == -1 else value


def cluster_profiles(kafkas: list[Document], pools: list[Document]) -> list[ClusterProfile]:
    """One profile per ``Kafka``; broker-role node pools of the same cluster set its size."""
    profiles = []
    for doc in kafkas:
        name = doc.data["metadata"]["name"]
        kafka: dict[str, Any] = doc.data["spec"].get("kafka") or {}
        brokers_in_pools = [p.data["spec"]["replicas"] for p in pools
                            if (p.data["metadata"].get("labels") or {}).get(CLUSTER_LABEL) == name
                            and "broker" in p.data["spec"]["roles"]]
        if brokers_in_pools:
            # node pools assign node ids themselves: the count is known, the ids are not
            count, brokers, path = sum(brokers_in_pools), None, ("metadata", "name")
        else:
            count = kafka.get("replicas")
            brokers = None if count is None else {i: None for i in range(count)}
            path = ("spec", "kafka", "replicas")
        profiles.append(ClusterProfile(name=name, brokers=brokers, broker_count=count,
                                       config=kafka.get("config") or {},
                                       kafka_version=kafka.get("version"), doc=doc,
                                       brokers_path=path))
    return profiles
