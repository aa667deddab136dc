"""Strimzi custom resources: ``KafkaTopic`` manifests, ``Kafka`` and ``KafkaNodePool``
(together a cluster profile)."""

from __future__ import annotations

from ..model import ClusterProfile, TopicSpec
from . import schemas
from .document import Document
from .formats import UNKNOWN, Fields, declared, joined, known

GROUP = "kafka.strimzi.io/"
KINDS = {"strimzi-topic": "topics", "strimzi-topic-v1": "topics", "strimzi-kafka": "cluster",
         "strimzi-nodepool": "nodepool"}
API_KINDS = {("kafka.strimzi.io", "KafkaTopic"): "strimzi-topic",
             ("kafka.strimzi.io/v1", "KafkaTopic"): "strimzi-topic-v1",  # spec required
             ("kafka.strimzi.io", "Kafka"): "strimzi-kafka",
             ("kafka.strimzi.io", "KafkaNodePool"): "strimzi-nodepool"}
CLUSTER_LABEL = "strimzi.io/cluster"
MANAGED = "strimzi.io/managed"
DESCRIBED = "KafkaTopic"  # the model's default kind


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    """The topic a ``KafkaTopic`` declares. ``fields`` None: a valid manifest without
    placeholders, read directly (10,000 of them in a large repository)."""
    if fields is None:
        return [topic_spec(doc)]
    named = fields.get(("spec", "topicName")) is not None
    name_path = ("spec", "topicName") if named else ("metadata", "name")
    found = declared(doc, kind=DESCRIBED, name=fields.get(name_path),
                     paths=_PATHS[name_path], rf=fields.count(("spec", "replicas")),
                     partitions=fields.count(("spec", "partitions")),
                     config=fields.mapping(("spec", "config")),
                     annotations=fields.annotations(("metadata", "annotations")),
                     managed=_managed(fields.annotations(("metadata", "annotations"))),
                     resource=("KafkaTopic", known(fields.get(("metadata", "namespace"))),
                               known(fields.get(("metadata", "name")))),
                     cluster=known(fields.get(("metadata", "labels", CLUSTER_LABEL))),
                     namespace=known(fields.get(("metadata", "namespace"))))
    return [found] if found is not None else []



def profile(doc: Document, fields: Fields | None, related: dict) -> ClusterProfile:
    return cluster_profile(doc, related.get("nodepool", ()), fields)


# where a KafkaTopic's fields are, by where its name is (shared by every manifest, read only)
_PATHS = {name_path: {"name": name_path, "rf": ("spec", "replicas"),
                      "partitions": ("spec", "partitions"), "config": ("spec", "config"),
                      "cluster": ("metadata", "labels", CLUSTER_LABEL)}
          for name_path in (("spec", "topicName"), ("metadata", "name"))}


def topic_spec(doc: Document) -> TopicSpec:
    """A valid ``KafkaTopic`` without placeholders, read directly (the hot path)."""
    data = doc.data
    spec = data.get("spec") or {}
    metadata = data["metadata"]
    named = "topicName" in spec
    annotations = metadata.get("annotations") or {}
    config = spec.get("config") or {}
    if list in map(type, config.values()):  # Strimzi sends a list comma-joined
        config = {k: joined(v) if type(v) is list else v for k, v in config.items()}
    rf, partitions = spec.get("replicas"), spec.get("partitions")
    namespace = metadata.get("namespace")
    return TopicSpec(
        spec["topicName"] if named else metadata["name"],
        None if rf == -1 else rf, None if partitions == -1 else partitions, config, doc,
        _PATHS[("spec", "topicName") if named else ("metadata", "name")], None, annotations,
        ("KafkaTopic", namespace, metadata["name"]), _labels(metadata).get(CLUSTER_LABEL),
        namespace, managed=MANAGED not in annotations or _managed(annotations))


def _managed(annotations: dict) -> bool:
    return str(annotations.get(MANAGED, "true")).lower() != "false"


def _labels(metadata: dict) -> dict:
    labels = metadata.get("labels")
    return labels if isinstance(labels, dict) else {}


def uses_node_pools(kafka: Document) -> bool:
    """Strimzi reads broker counts from KafkaNodePools for a ``v1`` Kafka, and for a
    ``v1beta2`` one annotated ``strimzi.io/node-pools: enabled``; it ignores
    ``spec.kafka.replicas`` then."""
    data = kafka.data
    annotations = data["metadata"].get("annotations")
    annotations = annotations if isinstance(annotations, dict) else {}  # else a PL101
    return data["apiVersion"] == GROUP + "v1" or \
        str(annotations.get("strimzi.io/node-pools", "")).lower() == "enabled"


def pool_of(pool: Document, kafka: Document) -> bool:
    """Whether a KafkaNodePool belongs to a Kafka: its label names it, in its namespace."""
    meta, kafka_meta = pool.data["metadata"], kafka.data["metadata"]
    return _labels(meta).get(CLUSTER_LABEL) == kafka_meta["name"] and \
        meta.get("namespace") == kafka_meta.get("namespace")


def cluster_profile(doc: Document, pools: list[Document],
                    fields: Fields | None = None) -> ClusterProfile:
    """A ``Kafka``'s profile: with node pools, the broker count is the sum of its
    broker-role pools' replicas (None when it has none, or one is unknown), and the broker
    ids are not known; without, brokers 0..n-1 of ``spec.kafka.replicas``."""
    fields = fields or Fields(doc)
    metadata = doc.data["metadata"]
    if uses_node_pools(doc):
        sizes = [Fields(p).count(("spec", "replicas"), ()) for p in pools
                 if pool_of(p, doc) and "broker" in p.data["spec"]["roles"]]
        count = sum(sizes) if sizes and UNKNOWN not in sizes and None not in sizes else None
        brokers, path = None, ("metadata", "name")
    else:
        count = known(fields.count(("spec", "kafka", "replicas"), ()))
        brokers = None if count is None else {i: None for i in range(count)}
        path = ("spec", "kafka", "replicas")
    config = fields.mapping(("spec", "kafka", "config"))
    unknown = frozenset(key for key, value in config.items() if value is UNKNOWN)
    version = known(fields.get(("spec", "kafka", "version")))
    return ClusterProfile(name=metadata["name"], brokers=brokers, broker_count=count,
                          config={k: v for k, v in config.items() if v is not UNKNOWN},
                          kafka_version=version if isinstance(version, str) else None,
                          doc=doc, brokers_path=path, namespace=metadata.get("namespace"),
                          config_path=("spec", "kafka", "config"), config_complete=True,
                          unknown=unknown,
                          # without spec.kafka.rack Strimzi sets no broker.rack: none has one
                          racks_known=fields.get(("spec", "kafka", "rack")) is None)


def has_broker_pools(doc: Document, pools: list[Document]) -> bool:
    return any(pool_of(p, doc) and "broker" in p.data["spec"]["roles"] for p in pools)
