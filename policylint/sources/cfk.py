"""Confluent for Kubernetes: ``platform.confluent.io`` ``KafkaTopic`` and ``Kafka``, and the
blueprint ``KafkaTopic`` of ``apps.cpc.platform.confluent.io`` (its ``parameters``)."""

from __future__ import annotations

import re

from ..model import ClusterProfile, TopicSpec
from . import schemas
from .document import Document
from .formats import UNKNOWN, Fields, declared, is_placeholder, known

KINDS = {"cfk-topic": "topics", "cfk-kafka": "cluster", "cfk-blueprint-topic": "topics"}
API_KINDS = {("platform.confluent.io", "KafkaTopic"): "cfk-topic",
             ("platform.confluent.io", "Kafka"): "cfk-kafka",
             ("apps.cpc.platform.confluent.io", "KafkaTopic"): "cfk-blueprint-topic"}
_BROKER_ID_OFFSET = "platform.confluent.io/broker-id-offset"
_IMAGE_VERSION = re.compile(r":(\d+)\.(\d+)")


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    if doc.data["apiVersion"].startswith("apps."):  # the blueprint's
        at = ("spec", "parameters")
        paths = {"name": at + ("name",) if fields.get(at + ("name",)) else ("metadata", "name"),
                 "rf": at + ("replicationFactor",), "partitions": at + ("partitions",),
                 "config": at + ("configs",), "cluster": ("spec", "kafkaClusterRefs", 0, "name")}
        cluster, namespace = fields.get(paths["cluster"]), None
        what = "Confluent blueprint KafkaTopic"
    else:
        paths = {"name": ("spec", "name") if fields.get(("spec", "name")) else ("metadata", "name"),
                 "rf": ("spec", "replicas"), "partitions": ("spec", "partitionCount"),
                 "config": ("spec", "configs"), "cluster": ("spec", "kafkaClusterRef", "name")}
        cluster = fields.get(paths["cluster"])
        namespace = fields.get(("spec", "kafkaClusterRef", "namespace"))
        what = "CFK KafkaTopic"
    namespace = known(namespace) or known(fields.get(("metadata", "namespace")))
    found = declared(doc, kind=what, name=fields.get(paths["name"]), paths=paths,
                     rf=fields.count(paths["rf"], ()), partitions=fields.count(paths["partitions"], ()),
                     config=fields.mapping(paths["config"]),
                     annotations=fields.annotations(("metadata", "annotations")),
                     resource=("KafkaTopic", namespace, known(fields.get(("metadata", "name")))),
                     cluster=known(cluster) if isinstance(known(cluster), str) else None,
                     namespace=namespace)
    return [found] if found is not None else []


CONFLUENT = ("confluent.",)


def profile(doc: Document, fields: Fields | None, related: dict) -> ClusterProfile:
    """A CFK ``Kafka``: ``spec.replicas`` brokers numbered from its broker id offset (racks
    come from node labels, not known per broker), the broker settings of
    ``configOverrides.server``, the Kafka release of its Confluent Platform image (CP 7.x
    ships Kafka 3.x, CP 8.x Kafka 4.x)."""
    fields = fields or Fields(doc)
    count = known(fields.count(("spec", "replicas"), ()))
    offset = fields.get(("metadata", "annotations", _BROKER_ID_OFFSET))
    offset = int(offset) if isinstance(offset, str) and offset.isascii() and \
        offset.isdigit() and len(offset) < 10 else 0
    config, unknown = {}, set()
    for i, line in enumerate(fields.get(("spec", "configOverrides", "server")) or ()):
        value = fields.get(("spec", "configOverrides", "server", i))
        if value is UNKNOWN:
            continue
        key, sep, setting = str(line).partition("=")
        if sep:
            config[key.strip()] = setting.strip()
            if is_placeholder(setting):
                unknown.add(key.strip())
    image = known(fields.get(("spec", "image", "application")))
    match = _IMAGE_VERSION.search(image) if isinstance(image, str) else None
    version = f"{int(match.group(1)) - 4}.{match.group(2)}" \
        if match and int(match.group(1)) >= 7 else None
    metadata = doc.data["metadata"]
    return ClusterProfile(
        name=metadata["name"], namespace=metadata.get("namespace"),
        brokers=None if count is None else {offset + i: None for i in range(count)},
        broker_count=count, config={k: v for k, v in config.items() if k not in unknown},
        kafka_version=version, doc=doc, brokers_path=("spec", "replicas"),
        config_path=("spec", "configOverrides", "server"), unknown=frozenset(unknown),
        # the cp-server image is Confluent Server, whose confluent.* topic configs Apache
        # Kafka lacks (the cp-kafka image is Apache Kafka)
        vendor_configs=CONFLUENT if isinstance(image, str) and "cp-server" in image else ())

