"""What a CEL rule sees: the model as plain maps, under the names the README documents.

One map per subject, built once per run and shared by every CEL rule that reads it. A value
no input states (a template placeholder, a broker default the cluster does not give) is
left out of its map: an expression that reads it anyway fails with "no such key", and the
rule counts the subject as unchecked, as the built-in rules do; ``has(topic.rf)`` and
``topic.?rf`` (CEL's optional values) test for it.

The variables, their fields and the kinds of subject: ``kinds`` (one record each).
"""

from __future__ import annotations

from typing import Any, Collection

from ..kafka import cluster_setting, manifest_rf
from ..model import Change, ClusterProfile, Plan, Snapshot, TopicSpec, TopicState, \
    target_replicas
from ..schema import memo_key

#: a topic map's fields (``kinds.VARIABLES["topic"]``)
TOPIC = ("name", "partitions", "rf", "stated", "config", "configs", "labels", "annotations",
         "format", "file", "managed", "assignment")


def cluster(profile: ClusterProfile | None) -> dict:
    if profile is None:
        return {}
    found: dict[str, Any] = {"name": profile.name,
                             "config": {k: v for k, v in profile.config.items()}}
    if profile.brokers is not None:
        found["brokers"] = [{"id": b, **({"rack": r} if r is not None else {})}
                            for b, r in sorted(profile.brokers.items())]
    if profile.racks or profile.racks_known:  # else absent: unknown (a Strimzi topologyKey)
        found["racks"] = sorted(profile.racks)
    if profile.broker_count is not None:
        found["broker_count"] = profile.broker_count
    if profile.kafka_version:
        found["kafka_version"] = str(profile.kafka_version)
    return found


def _typed(release: str, config: dict) -> dict:
    from ..kafka_configs import judge
    typed = {}
    for key, value in config.items():
        parsed = judge(release, key, value)[1]
        typed[key] = parsed if parsed is not None else value
    return typed


def _configs(ctx, stated: dict, profile: ClusterProfile | None, release: str,
             unknown: frozenset = frozenset()) -> tuple[dict, dict]:
    """(effective config, per key its value, whether stated and its source): the topic's
    own values, else the cluster's (or Kafka's default, for a cluster that states every
    setting it changes) where an input gives them. Made once per run for each distinct
    config (a repository repeats the same few): the maps are shared, read-only."""
    made = ctx.memo(_configs)
    key = (memo_key(stated), id(profile), release, unknown)
    try:
        found = made.get(key)
    except TypeError:  # a value that is no scalar: told apart by its text
        key = (repr(stated), *key[1:])
        found = made.get(key)
    if found is None:
        found = made[key] = _configs_of(stated, profile, release, unknown)
    return found


def _configs_of(stated: dict, profile: ClusterProfile | None, release: str,
                unknown: frozenset) -> tuple[dict, dict]:
    from ..kafka_configs import broker_value, table
    config = _typed(release, {k: v for k, v in stated.items() if k not in unknown})
    configs = {k: {"value": v, "stated": True, "source": "topic"} for k, v in config.items()}
    if profile is not None:
        for key, spec in table(release).items():
            if key in config or key in unknown or key in profile.unknown or \
                    f"log.{key}" in profile.unknown:
                continue  # the topic's own, or a value no input states
            if key == "min.insync.replicas":  # as the min ISR rules read it
                given = cluster_setting(profile, key)
                if given.value is None:
                    continue
                value, source = given.value, given.source or f"cluster {profile.name}"
            elif (found := broker_value(key, profile.config, release)) is not None:
                value, setting = found  # Kafka's synonyms, in its order, in the topic's unit
                source = f"cluster {profile.name}'s {setting}"
            elif profile.config_complete and spec.get("default") is not None:
                value, source = spec["default"], "Kafka's default"
            else:
                continue
            value = _typed(release, {key: value}).get(key, value)
            config[key] = value
            configs[key] = {"value": value, "stated": False, "source": source}
    return config, configs


def topic_of_spec(spec: TopicSpec, ctx, fields: Collection[str] = TOPIC) -> dict:
    """A declared topic's map: its ``fields`` alone, where a batch of rules reads a few."""
    profile, unknown = ctx.profile, spec.unknown
    found: dict[str, Any] = {}
    if "name" in fields:
        found["name"] = spec.name
    if "format" in fields:
        found["format"] = spec.kind
    if "file" in fields:
        found["file"] = spec.doc.source.name
    if "managed" in fields:
        found["managed"] = spec.managed
    if "labels" in fields:
        data = spec.doc.data
        if not isinstance(data, dict):
            data = {}
        # Kubernetes resources (Strimzi, CFK, Jikkou, Conduktor...) say metadata; topicctl, meta
        metadata = data.get("metadata")
        if not isinstance(metadata, dict):
            metadata = data.get("meta")
        labels = metadata.get("labels") if isinstance(metadata, dict) else None
        found["labels"] = {str(k): v for k, v in labels.items()} \
            if isinstance(labels, dict) and labels else {}
    if "annotations" in fields:
        found["annotations"] = {str(k): v for k, v in spec.annotations.items()}
    if "rf" in fields and "rf" not in unknown:
        rf = manifest_rf(spec, profile)
        if rf is not None:
            found["rf"] = rf
    if "partitions" in fields and "partitions" not in unknown:
        partitions = spec.partitions
        if partitions is None and profile is not None:
            partitions = cluster_setting(profile, "num.partitions").value
        if partitions is not None:
            found["partitions"] = partitions
    if "stated" in fields:
        found["stated"] = (["rf"] if spec.rf is not None else []) + \
            (["partitions"] if spec.partitions is not None else [])
    if "config" in fields or "configs" in fields:
        _add_configs(found, fields, *_configs(ctx, spec.config, profile,
                                              ctx.kafka_release(spec), unknown))
    if "assignment" in fields and spec.assignment:
        found["assignment"] = spec.assignment
    return found


def topic_of_state(topic: TopicState, snapshot: Snapshot, ctx,
                   fields: Collection[str] = TOPIC) -> dict:
    """A snapshot topic's map: its ``fields`` alone, where a batch of rules reads a few."""
    found: dict[str, Any] = {}
    for field, value in (("name", topic.name), ("format", "ClusterSnapshot"),
                         ("file", snapshot.doc.source.name), ("managed", True),
                         ("labels", {}), ("annotations", {}),
                         ("partitions", len(topic.partitions)),
                         ("stated", ["rf", "partitions"])):
        if field in fields:
            found[field] = value
    if "assignment" in fields:
        found["assignment"] = [target_replicas(p) for p in topic.partitions]
    if "rf" in fields:
        rf = ctx.topic_rf(snapshot, topic)
        if rf is not None:
            found["rf"] = rf
    if "config" in fields or "configs" in fields:
        _add_configs(found, fields, *_configs(ctx, topic.config, snapshot.profile,
                                              ctx.kafka_release(snapshot)))
    return found


def _add_configs(found: dict, fields: Collection[str], config: dict, configs: dict) -> None:
    if "config" in fields:
        found["config"] = config
    if "configs" in fields:
        found["configs"] = configs


def partition(topic: TopicState, p) -> dict:
    found = {"topic": topic.name, "partition": p.partition, "replicas": list(p.replicas),
             "adding": list(p.adding), "removing": list(p.removing),
             "reassigning": bool(p.adding or p.removing)}
    if p.replicas:
        found["leader"] = p.replicas[0]
    if p.isr is not None:
        found["isr"] = list(p.isr)
    return found


def entry(plan: Plan, i: int, ctx) -> dict:
    move = plan.moves[i]
    found: dict[str, Any] = {"topic": move.topic, "partition": move.partition,
                             "replicas": list(move.replicas)}
    state = ctx.plan_view(plan).states[i]
    if state is not None:
        found["before"] = list(target_replicas(state))
    elif ctx.current and (move.topic, move.partition) in ctx.current:
        found["before"] = list(ctx.current[move.topic, move.partition])
    if move.log_dirs is not None:
        found["log_dirs"] = list(move.log_dirs)
    return found


def change(item: Change, ctx) -> dict:
    found: dict[str, Any] = {"actions": list(item.actions)}
    if item.before is not None:
        found["before"] = topic_of_spec(item.before, ctx)
    if item.after is not None:
        found["after"] = topic_of_spec(item.after, ctx)
    return found


def base_change(spec: TopicSpec, before: TopicSpec, ctx) -> dict:
    """A manifest and the same topic at the base ref (diff mode), as a change."""
    return {"actions": ["update"], "before": topic_of_spec(before, ctx),
            "after": topic_of_spec(spec, ctx)}
