"""Kafka semantics: the terms of the rule catalogue (effective minISR, current RF, topic RF, racks),
as pure functions of the model. Rules and engine views read them; they know no file format
and no engine."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import compress
from math import inf
from operator import attrgetter, gt, not_
from typing import Any, Iterable, Iterator, NamedTuple

from .model import ClusterProfile, PartitionState, TopicSpec, TopicState, current_rf, \
    target_replicas

# Snapshot partitions are read a topic at a time at C speed where nothing is reassigning
# (the usual): these getters map over a million partitions without a Python call each.
REPLICAS, ISR = attrgetter("replicas"), attrgetter("isr")
ADDING, REMOVING = attrgetter("adding"), attrgetter("removing")


def as_int(value: Any) -> int | None:
    """A Kafka config value as a number: they come as strings or ints ("2" == 2). None
    where it is none (a word, a fraction, infinity, beyond a long): unknown."""
    if type(value) is str:
        text = value.strip()
        digits = text[1:] if text[:1] in "+-" else text
        # as Java's Integer.parseInt reads it (ConfigDef trims first): any script's
        # decimal digits ("٣" is 3), no underscores
        if len(text) > 20 or not digits.isdecimal():
            return None
        number = int(text)
    elif type(value) is int:
        number = value
    elif type(value) is float and value.is_integer():
        number = int(value)
    else:
        return None
    return number if -2**63 <= number < 2**63 else None


def effective_min_isr(config: dict, profile: ClusterProfile | None) -> int:
    """The topic's min.insync.replicas, else the broker default, else 1. (A value that is
    no number is a schema finding of its own and counts as not set.)"""
    value = as_int(config.get("min.insync.replicas"))
    if value is None and profile is not None:
        value = as_int(profile.config.get("min.insync.replicas"))
    return 1 if value is None else value


#: the feature that turns eligible leader replicas on (KIP-966), and the broker config that
#: stood for it before the feature existed (KRaftConfigs.ELR_ENABLED_CONFIG)
ELR_FEATURE, ELR_CONFIG = "eligible.leader.replicas.version", "eligible.leader.replicas.enable"


def elr(profile: ClusterProfile | None) -> tuple[bool | None, str]:
    """Whether eligible leader replicas are on for a cluster (KIP-966), and what says so:
    its feature level (a snapshot's ``features``), a config that sets it, or its release
    (none before 4.0). None: no input says (a 4.1 cluster formatted new has it on, one
    upgraded from 4.0 off)."""
    if profile is None:
        return None, ""
    name = profile.doc.source.name if profile.doc is not None else profile.name
    if profile.features:  # captured: a feature not finalized is at level 0
        level = profile.features.get(ELR_FEATURE, 0)
        return level >= 1, f"{ELR_FEATURE}={level} in {name}"
    stated = str(profile.config.get(ELR_CONFIG, "")).strip().lower()
    if stated in ("true", "false"):
        return stated == "true", f"{ELR_CONFIG}={stated} in {name}"
    from .kafka_configs import _key, has_version
    if has_version(profile.kafka_version) and _key(str(profile.kafka_version)) < (4, 0):
        return False, f"Kafka {profile.kafka_version} ({name}) has no eligible leader replicas"
    return None, ""


def min_isr_is_default(config: dict, profile: ClusterProfile | None) -> bool:
    """Whether the effective minISR is Kafka's built-in 1: neither the topic nor the
    cluster profile sets min.insync.replicas."""
    return as_int(config.get("min.insync.replicas")) is None and (
        profile is None or as_int(profile.config.get("min.insync.replicas")) is None)


class Stated(NamedTuple):
    """A value a rule compares, with where it comes from. ``value`` None: unknown (no
    input states it). ``at``: where it is written (None: Kafka's built-in default, or
    unknown). ``source``: how a message names where it comes from ("" for the subject's
    own line). ``cause``: for a value a topic inherits from its cluster, what identifies
    that one setting (its cluster and key): topics that share it share one finding."""
    value: int | None
    at: Any
    source: str
    cause: tuple | None = None


#: Kafka's built-in defaults of the broker settings topics inherit
BUILT_IN = {"default.replication.factor": 1, "min.insync.replicas": 1, "num.partitions": 1}
#: what input lets a rule know a cluster's setting it could not know
GIVE_CLUSTER = "give the topic's cluster with --cluster or its Kafka resource"


def cluster_setting(profile: ClusterProfile | None, key: str) -> Stated:
    return _unknown_cluster(key) if profile is None else _setting(profile, key)


@lru_cache(maxsize=None)
def _unknown_cluster(key: str) -> Stated:
    return Stated(None, None, "unknown: the topic's cluster is not among the inputs")


def _setting(profile: ClusterProfile, key: str) -> Stated:
    """(see ``cluster_setting``), once per cluster and key: its topics ask the same."""
    found = profile.settings.get(key)
    if found is None:
        found = profile.settings[key] = _cluster_setting(profile, key)
    return found


def _cluster_setting(profile: ClusterProfile, key: str) -> Stated:
    """A broker setting topics inherit: as the cluster states it, else Kafka's built-in
    default where the cluster is known and states every setting it changes (a Kafka
    resource), else unknown (no cluster among the inputs, a snapshot that does not list
    it, a template placeholder)."""
    name = f"cluster {profile.name}"
    file = f", {profile.doc.source.name}" if profile.doc is not None else ""
    cause = (profile.name, id(profile), key)
    if key in profile.unknown:
        return Stated(None, None, f"unknown: {name} sets {key} by a template")
    if key in profile.config:
        return Stated(as_int(profile.config[key]),
                      None if profile.doc is None else (profile.doc,
                                                        profile.config_path + (key,)),
                      f"{name}'s {key}{file}", cause)
    if profile.config_complete:
        return Stated(BUILT_IN[key], profile.where_config(),
                      f"Kafka's default {BUILT_IN[key]}: {name} does not set {key}{file}",
                      cause)
    return Stated(None, None, f"unknown: {name}'s description does not list {key}")


def manifest_min_isr(topic: TopicSpec, profile: ClusterProfile | None) -> Stated:
    """A manifest's effective min.insync.replicas and where it comes from."""
    if "min.insync.replicas" in topic.config:
        return Stated(as_int(topic.config["min.insync.replicas"]),
                      topic.config_at("min.insync.replicas"), "")
    return cluster_setting(profile, "min.insync.replicas")


def manifest_rf_stated(topic: TopicSpec, profile: ClusterProfile | None) -> Stated:
    """A manifest's RF and where it comes from (its own, else the cluster's default)."""
    if topic.rf is not None:
        return Stated(topic.rf, topic.where("rf"), "")
    return cluster_setting(profile, "default.replication.factor")


def default_rf(profile: ClusterProfile | None) -> int | None:
    """The broker default replication factor; Kafka's own default is 1."""
    if profile is None:
        return None
    return as_int(profile.config.get("default.replication.factor", 1))


def default_partitions(profile: ClusterProfile | None) -> int | None:
    """The broker default partition count (num.partitions); Kafka's own default is 1."""
    if profile is None:
        return None
    return as_int(profile.config.get("num.partitions", 1))


def manifest_rf(topic: TopicSpec, profile: ClusterProfile | None) -> int | None:
    """A manifest's RF: as declared, else the cluster default (None: unknown)."""
    if topic.rf is not None:
        return topic.rf
    return None if "rf" in unknown_fields(topic, profile) else default_rf(profile)


# the broker default a manifest field falls back to
_DEFAULTS = {"rf": "default.replication.factor", "partitions": "num.partitions"}


def unknown_fields(topic: TopicSpec, profile: ClusterProfile | None) -> frozenset:
    """A manifest's fields ("rf", "partitions") and config keys whose value is unknown: its
    own, and the broker defaults it falls back to that its cluster gives as unknowns."""
    if profile is None or not profile.unknown:
        return topic.unknown
    inherited = {key for key in profile.unknown if key not in topic.config}
    inherited.update(name for name, key in _DEFAULTS.items()
                     if key in profile.unknown and getattr(topic, name) is None)
    return topic.unknown | inherited


def snapshot_topic_rf(topic: TopicState, manifest_rf_: int | None) -> int | None:
    """The RF declared by the topic's manifest, else the most common current RF among the
    topic's non-reassigning partitions (ties: the smallest)."""
    if manifest_rf_ is not None:
        return manifest_rf_
    parts = topic.partitions
    sizes = list(replica_counts(parts))
    if any(map(ADDING, parts)) or any(map(REMOVING, parts)):  # the settled ones count
        sizes = list(compress(sizes, map(not_, map(any, zip(map(ADDING, parts),
                                                               map(REMOVING, parts))))))
    return most_common(sizes)


def most_common(sizes: list[int]) -> int | None:
    """The most common replica count of ``sizes`` (ties: the smallest); None if none."""
    if not sizes:
        return None
    if sizes.count(sizes[0]) == len(sizes):  # most topics: one RF
        return sizes[0]
    return min(set(sizes), key=lambda rf: (-sizes.count(rf), rf))  # each counted in C


def smallest_rf(topic: TopicState) -> int | None:
    return min(current_rfs(topic.partitions), default=None)


def replica_counts(parts: list[PartitionState]) -> Iterator[int]:
    """|replicas| of each partition."""
    return map(len, map(REPLICAS, parts))


def current_rfs(parts: list[PartitionState]) -> Iterable[int]:
    """KIP-860 current RF of each partition."""
    return map(current_rf, parts) if any(map(REMOVING, parts)) else replica_counts(parts)


def final_lists(parts: list[PartitionState]) -> list[list[int]]:
    """Target replicas of each partition."""
    return list(map(target_replicas if any(map(REMOVING, parts)) else REPLICAS, parts))


def isr_sizes(parts: list[PartitionState]) -> list[float]:
    """|ISR| of each partition; infinite where unknown, so that it is never too small."""
    isrs = list(map(ISR, parts))
    return list(map(len, isrs)) if None not in isrs else \
        [inf if isr is None else len(isr) for isr in isrs]


def lagging(parts: list[PartitionState]) -> list[PartitionState]:
    """Partitions with fewer in-sync replicas than replicas (where the ISR is known)."""
    return list(compress(parts, map(gt, replica_counts(parts), isr_sizes(parts))))


def rack_counts(replicas: Iterable[int], racks: dict[int, str | None]) -> Counter:
    """Replicas per rack; placeholders, unknown brokers and brokers without rack don't count."""
    return Counter(rack for rack in map(racks.get, replicas) if rack is not None)


def moves_data(replicas: list[int], state: PartitionState) -> bool:
    """Whether a plan entry changes a partition's replicas (not just restates them)."""
    return replicas != target_replicas(state)


def holds_placeholder(replicas: tuple[int, ...]) -> bool:
    """Whether a replica list names a placeholder (a negative id, KIP-409)."""
    return bool(replicas) and min(replicas) < 0
