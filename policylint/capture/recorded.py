"""A recorded-response admin double: answers the capture's calls in the shapes kafka-python's
``KafkaAdminClient`` returns (recorded from a broker; ``tests/test_capture_broker.py``
checks the shapes still match a live one), from a script of cluster states. It lets the
tests play the KIP-860 races a single test broker cannot, and the benchmark read a cluster
of any size.

The capture reads in rounds: list reassignments, describe, list again. Round ``k`` sees
``views[k]`` (the last repeats) and the ``2k``-th and ``2k+1``-th ``reassignments``.
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any


def partition(index: int, replicas: list[int], isr: list[int] | None = None,
              leader: int | None = None, offline: list[int] = ()) -> dict:
    """One partition of a ``describe_topics`` answer."""
    isr = list(replicas) if isr is None else isr
    return {"error_code": 0, "partition_index": index,
            "leader_id": (isr[0] if isr else -1) if leader is None else leader,
            "leader_epoch": 0, "replica_nodes": list(replicas), "isr_nodes": list(isr),
            "offline_replicas": list(offline)}


def moving(replicas: list[int], adding: list[int] = (), removing: list[int] = ()) -> dict:
    """One partition of a ``list_partition_reassignments`` answer."""
    return {"replicas": list(replicas), "adding_replicas": list(adding),
            "removing_replicas": list(removing)}


def _config(value: str, source: str = "DYNAMIC_TOPIC_CONFIG") -> dict:
    return {"value": value, "read_only": False, "config_source": source,
            "is_sensitive": False, "synonyms": [], "config_type": "STRING",
            "documentation": ""}


class RecordedAdmin:
    def __init__(self, brokers: dict[int, str | None], views: list[dict[str, list[dict]]],
                 reassignments: list[dict] = ({},), topic_configs: dict | None = None,
                 broker_config: dict[str, str] | None = None, controller: int | None = None,
                 cluster_id: str = "recorded-cluster", version: tuple = (3, 9),
                 fail: dict[str, Exception] | None = None,
                 features: dict[str, int | None] | None = None):
        self.brokers, self.views = brokers, views
        self.reassignments = list(reassignments)
        self.topic_configs, self.broker_config = topic_configs or {}, broker_config or {}
        self.controller = min(brokers) if controller is None and brokers else controller
        self.cluster_id, self.version, self.fail = cluster_id, version, fail or {}
        #: feature -> finalized level (None: supported, not finalized); None: a broker
        #: that answers no DescribeFeatures (before 2.4)
        self.features = features
        self.calls: list[str] = []
        self._lists = self._round = 0
        self._listed_since_describe = False

    def _call(self, name: str) -> None:
        self.calls.append(name)
        if name in self.fail:
            raise self.fail[name]

    def describe_cluster(self) -> dict:
        self._call("describe_cluster")
        return {"cluster_id": self.cluster_id, "controller_id": self.controller,
                "brokers": [{"broker_id": b, "host": "127.0.0.1", "port": 9092, "rack": r,
                             "is_fenced": False}  # as Apache Kafka 4.x answers
                            for b, r in self.brokers.items()],
                "authorized_operations": None}

    def describe_features(self) -> dict:
        self._call("describe_features")
        if self.features is None:
            from kafka.errors import UnsupportedVersionError
            raise UnsupportedVersionError("ApiVersions v3")
        return {name: {"supported": (0, level or 1),
                       **({"finalized": (level, level)} if level is not None else {})}
                for name, level in self.features.items()}

    def get_broker_version_data(self, broker_id: int) -> Any:
        self._call("get_broker_version_data")
        return SimpleNamespace(broker_version=self.version)

    def list_topics(self) -> list[str]:
        self._call("list_topics")
        return list(self.views[0])

    def view(self) -> dict[str, list[dict]]:
        return self.views[min(self._round, len(self.views) - 1)]

    def describe_topics(self, topics: list[str]) -> list[dict]:
        self._call("describe_topics")
        if self._listed_since_describe and self._lists > 1:
            self._round = (self._lists - 1) // 2
        self._listed_since_describe = False
        view = self.view()
        return [{"error_code": 0 if name in view else 3, "name": name,
                 "topic_id": uuid.uuid5(uuid.NAMESPACE_DNS, name) if name in view else None,
                 "is_internal": name.startswith("__"), "partitions": view.get(name, []),
                 "authorized_operations": None} for name in topics]

    def list_partition_reassignments(self, topic_partitions: dict | None = None) -> dict:
        self._call("list_partition_reassignments")
        found = self.reassignments[min(self._lists, len(self.reassignments) - 1)]
        self._lists += 1
        self._listed_since_describe = True
        return {tp: r for tp, r in found.items()
                if topic_partitions is None or tp[1] in topic_partitions.get(tp[0], ())}

    def describe_configs(self, resources: list, config_filter: str = "modified") -> dict:
        self._call("describe_configs")
        out: dict[str, dict] = {}
        for resource in resources:
            if resource.resource_type.name == "BROKER":
                entries = {k: _config(v, "STATIC_BROKER_CONFIG")
                           for k, v in self.broker_config.items()}
                out.setdefault("broker", {})[resource.name] = entries
            else:
                entries = {k: _config(v) for k, v in
                           self.topic_configs.get(resource.name, {}).items()}
                out.setdefault("topic", {})[resource.name] = entries
        return out


def generated(topics: int, partitions: int, brokers: int = 6, rf: int = 3,
              reassigning_every: int = 50) -> RecordedAdmin:
    """A cluster of ``topics`` × ``partitions``, every ``reassigning_every``-th partition
    moving one replica, configs on every tenth topic: the capture benchmark's input."""
    racks = {b: f"rack-{b % 3}" for b in range(1, brokers + 1)}
    view: dict[str, list[dict]] = {}
    moves: dict = {}
    n = 0
    for t in range(topics):
        name = f"topic-{t:05d}"
        parts = []
        for p in range(partitions):
            replicas = [(n + i) % brokers + 1 for i in range(rf)]
            if n % reassigning_every == 0:
                new = (n + rf) % brokers + 1
                moves[(name, p)] = moving(replicas + [new], [new], replicas[-1:])
                replicas = replicas + [new]
            parts.append(partition(p, replicas))
            n += 1
        view[name] = parts
    configs = {name: {"retention.ms": "86400000", "min.insync.replicas": "2"}
               for i, name in enumerate(view) if i % 10 == 0}
    return RecordedAdmin(racks, [view], [moves], configs,
                         {"min.insync.replicas": "2", "default.replication.factor": "3"})
