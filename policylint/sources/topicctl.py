"""topicctl (Segment): topic configs (``meta``/``spec``: ``partitions``,
``replicationFactor``, ``retentionMinutes`` judged as ``retention.ms``, ``settings``; a
``static`` placement's ``staticAssignments`` are the topic's replica lists) and cluster
configs (``meta.name``, which a topic's ``meta.cluster`` names)."""

from __future__ import annotations

from ..model import KEY, ClusterProfile, TopicSpec
from . import schemas
from .document import Document
from .formats import UNKNOWN, Fields, declared, known

KINDS = {"topicctl-topic": "topics", "topicctl-cluster": "cluster"}
_PATHS = {"name": ("meta", "name"), "rf": ("spec", "replicationFactor"),
          "partitions": ("spec", "partitions"), "config": ("spec", "settings"),
          "cluster": ("meta", "cluster"), "assignment": ("spec", "placement", "staticAssignments")}
_RETENTION = ("spec", "retentionMinutes")


def detect(data: dict) -> str | None:
    meta, spec = data.get("meta"), data.get("spec")
    if type(meta) is not dict or type(spec) is not dict or "name" not in meta or "kind" in data:
        return None
    if "bootstrapAddrs" in spec or "zkAddrs" in spec:
        return "topicctl-cluster"
    if "partitions" in spec or "replicationFactor" in spec or "cluster" in meta:
        return "topicctl-topic"
    return None


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    config = fields.mapping(_PATHS["config"])
    moved = None
    minutes = fields.get(_RETENTION)
    if minutes is not None:  # topicctl sets retention.ms from it
        config["retention.ms"] = minutes * 60000 if type(minutes) is int else UNKNOWN
        moved = {"retention.ms": (_RETENTION, _RETENTION + (KEY,))}
    assignment = None
    if fields.get(("spec", "placement", "strategy")) == "static":
        lists = fields.get(_PATHS["assignment"])
        if isinstance(lists, list) and all(isinstance(r, list) for r in lists):
            assignment = lists
    found = declared(doc, kind="topicctl topic", name=fields.get(_PATHS["name"]),
                     paths=_PATHS, rf=fields.count(_PATHS["rf"], ()),
                     partitions=fields.count(_PATHS["partitions"], ()), config=config,
                     config_paths=moved, assignment=assignment,
                     resource=("topicctl", known(fields.get(_PATHS["cluster"])),
                               known(fields.get(_PATHS["name"]))),
                     cluster=known(fields.get(_PATHS["cluster"])))
    return [found] if found is not None else []


def profile(doc: Document, fields: Fields | None, related: dict) -> ClusterProfile:
    """A cluster config names its cluster; it says nothing of its brokers."""
    return ClusterProfile(name=doc.data["meta"]["name"], brokers=None, broker_count=None,
                          config={}, kafka_version=None, doc=doc, brokers_path=("meta", "name"))
