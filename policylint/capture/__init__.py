"""``policylint snapshot``: a ClusterSnapshot read from a live cluster, KIP-860-safe.

``describeTopics`` answers from any broker's metadata, which may lag the controller: during a
reassignment, or just after one, it can show the union of old and new replicas while
``listPartitionReassignments`` (the controller) shows no reassignment (KIP-860). So the
capture lists the reassignments, describes the topics, and lists again. A partition whose
reassignment state changed between the two lists, or whose described replicas disagree with
the controller's, is read again (``retries`` times); one still inconsistent then is written
with ``"uncertain": REASON``, which PL204 reports, rather than as truth.

``admin`` is anything with the methods of kafka-python's ``KafkaAdminClient`` used here
(``describe_cluster``, ``list_topics``, ``describe_topics``, ``list_partition_reassignments``,
``describe_configs``, ``get_broker_version_data``), answering in its shapes: the client
itself (``client.connect``), or the recorded-response double of ``recorded.py``.
"""

from __future__ import annotations

import fnmatch
import json
import time
from collections import Counter
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator

from kafka.admin import ConfigResource, ConfigResourceType
from kafka.errors import for_code

from .. import __version__
from ..kafka_configs import BROKER_KEYS, parsed, resolve, table
from ..sources import InputError

#: broker settings the rules read (PL3xx, PL6xx-PL8xx), beside the log.* topic defaults
CLUSTER_KEYS = frozenset(BROKER_KEYS) | {
    "min.insync.replicas", "default.replication.factor", "num.partitions",
    "offsets.topic.replication.factor", "transaction.state.log.replication.factor",
    "transaction.state.log.min.isr", "unclean.leader.election.enable",
    "auto.create.topics.enable",
    # whether topics may enable tiered storage (PL607: Kafka refuses it where off)
    "remote.log.storage.system.enable"}
CHUNK = 500  # topics per describe request: a 10,000-topic cluster in 20 requests, not one
_DEFAULT = "DEFAULT_CONFIG"

Reassignments = dict[tuple[str, int], tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]


class CaptureError(InputError):
    """The cluster could not be read (exit 2, one line)."""


def read_cluster(bootstrap: str, command_config: str | None = None, *, timeout: float = 30,
                 verbose: bool = False, **options: Any) -> dict:
    """The ClusterSnapshot of the cluster at ``bootstrap`` (``options``: as ``capture``)."""
    from kafka.errors import KafkaError

    from .client import connect, explain, read_properties
    properties = read_properties(command_config) if command_config else {}
    admin = connect(bootstrap, properties, int(timeout * 1000), verbose)
    try:
        return capture(admin, **options)
    except KafkaError as exc:
        raise CaptureError(explain(exc, bootstrap, int(timeout * 1000))) from None
    finally:
        admin.close()


def capture(admin: Any, *, name: str | None = None, topics: Iterable[str] = (),
            retries: int = 3, backoff: float = 0.5, chunk: int = CHUNK,
            progress: Callable[[int, int], None] | None = None,
            now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> dict:
    """The ClusterSnapshot document of the cluster behind ``admin``; ``topics`` are glob
    patterns (default: every topic)."""
    started = now()
    info = _cluster(admin)
    controller = info.get("controller_id")
    brokers = sorted(({"id": b["broker_id"], "rack": b.get("rack")} for b in info["brokers"]),
                     key=lambda b: b["id"])
    patterns = list(topics)
    names = sorted(n for n in admin.list_topics()
                   if not patterns or any(fnmatch.fnmatchcase(n, p) for p in patterns))
    ids = [b["id"] for b in brokers]
    home = controller if controller in ids else ids[0] if ids else None  # asked for settings
    levels = _feature_levels(admin)
    version = _newest(_version(admin, home), _release_of(levels))

    before = _reassignments(admin)
    described = _describe(admin, names, chunk, progress)
    after = _reassignments(admin)
    suspects = _suspects(before, after, described)
    reads = 1
    while suspects and reads <= retries:
        time.sleep(backoff * reads)
        reads += 1
        asked = _by_topic(suspects)
        again_before = _reassignments(admin, asked)
        again = _describe(admin, sorted(asked), chunk, None)
        again_after = _reassignments(admin, asked)
        for tp in suspects:  # only the suspects take the new read: the rest was consistent
            after.pop(tp, None)
            if tp in again_after:
                after[tp] = again_after[tp]
            fresh = {p["partition_index"]: p for p in again.get(tp[0], ())}
            if tp[1] in fresh:
                described[tp[0]] = [fresh[tp[1]] if p["partition_index"] == tp[1] else p
                                    for p in described[tp[0]]]
        suspects = {tp: why for tp, why in _suspects(again_before, again_after, again).items()
                    if tp in suspects}

    configs = _topic_configs(admin, list(described), chunk, version)
    cluster_config = _broker_config(admin, home)
    _cordoned(admin, brokers)
    features = None if levels is None else {
        name: finalized for name, (finalized, _) in sorted(levels.items())}
    doc: dict[str, Any] = {
        "kind": "ClusterSnapshot", "version": 1, "cluster": name or info.get("cluster_id")
        or "cluster", "cluster_id": info.get("cluster_id"), "controller": controller,
        "captured_at": started.strftime("%Y-%m-%dT%H:%M:%SZ"), "kafka_version": version,
        **({"features": features} if features is not None else {}),
        "brokers": brokers, "config": {k: v for k, (v, _) in cluster_config.items()},
        "config_sources": {k: s for k, (_, s) in cluster_config.items()},
        "capture": {"tool": f"policylint {__version__}", "reads": reads,
                    "uncertain": len(suspects)},
        "topics": [_topic(t, described[t], after, suspects, configs.get(t, {}))
                   for t in sorted(described)],
    }
    return doc


def _cluster(admin: Any) -> dict:
    """DescribeCluster's answer (brokers, controller, cluster id); from the client's
    metadata where the client cannot read the broker's DescribeCluster (kafka-python reads
    Kafka 3.3's v0 with a KeyError): the same brokers, racks and controller."""
    try:
        return admin.describe_cluster()
    except KeyError:
        metadata = admin._client.cluster  # the metadata the client bootstrapped from
        controller = getattr(metadata, "controller", None)
        return {"cluster_id": getattr(metadata, "cluster_id", None),
                "controller_id": getattr(controller, "node_id", None),
                "brokers": [{"broker_id": b.node_id, "rack": b.rack}
                            for b in metadata.brokers()]}


def _feature_levels(admin: Any) -> dict[str, tuple[int, int]] | None:
    """Each feature's (finalized, newest supported) level (KIP-584, ``kafka-features.sh
    describe``): ``eligible.leader.replicas.version`` says whether ELR is on (PL308); a
    feature the cluster supports and has not finalized is at level 0. None where the client
    or the broker cannot say (a broker before 2.4)."""
    describe = getattr(admin, "describe_features", None)
    if describe is None:
        return None
    try:
        found = describe()
    except Exception:  # an old broker, a client without the call: the snapshot says nothing
        return None
    return {name: ((f.get("finalized") or (0, 0))[1], (f.get("supported") or (0, 0))[1])
            for name, f in sorted(found.items())
            if isinstance(f, dict) and ("finalized" in f or "supported" in f)}


#: the newest metadata.version level each release supports (Kafka's MetadataVersion, as a
#: running broker of each release reports it: bench/kafka_oracle.py's clusters)
METADATA_LEVELS = {"3.3": 7, "3.4": 8, "3.5": 11, "3.6": 14, "3.7": 19, "3.8": 20,
                   "3.9": 21, "4.0": 25, "4.1": 27, "4.2": 29, "4.3": 30, "4.4": 33}


def _release_of(levels: dict[str, tuple[int, int]] | None) -> str | None:
    """The broker's release by the newest metadata.version it supports (its software, even
    before an upgrade is finalized): the newest release whose level it reaches."""
    supported = (levels or {}).get("metadata.version", (0, 0))[1]
    reached = [r for r, level in METADATA_LEVELS.items() if level <= supported]
    return reached[-1] if reached else None


def _newest(*versions: str | None) -> str | None:
    """The newest of two lower bounds of the broker's release."""
    from ..kafka_configs import at_least
    known = [v for v in versions if v]
    if not known:
        return None
    best = known[0]
    for v in known[1:]:
        if at_least(v, best) and v != best:
            best = v
    return best


def _version(admin: Any, broker: int | None) -> str | None:
    """The newest Kafka release whose APIs the broker answers (ApiVersions): a lower bound of
    its version, which is all the protocol tells."""
    if broker is None:
        return None
    found = admin.get_broker_version_data(broker)
    version = getattr(found, "broker_version", None)
    return ".".join(map(str, version)) if version else None


def _reassignments(admin: Any, asked: dict[str, list[int]] | None = None) -> Reassignments:
    """In-flight reassignments, from the controller. A broker that lists every partition
    (some do) lists the settled ones with no adding and no removing replicas: left out."""
    found = admin.list_partition_reassignments(asked) if asked else \
        admin.list_partition_reassignments()
    return {(tp[0], tp[1]): (tuple(r["replicas"]), tuple(r["adding_replicas"]),
                             tuple(r["removing_replicas"]))
            for tp, r in found.items() if r["adding_replicas"] or r["removing_replicas"]}


def _chunks(items: list, size: int) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _describe(admin: Any, names: list[str], chunk: int,
              progress: Callable[[int, int], None] | None) -> dict[str, list[dict]]:
    """Each topic's partitions as described; a topic deleted meanwhile is left out."""
    out: dict[str, list[dict]] = {}
    for batch in _chunks(names, chunk):
        for topic in admin.describe_topics(batch):
            error = topic.get("error_code", 0)
            if error == 3:  # UNKNOWN_TOPIC_OR_PARTITION: deleted since it was listed
                continue
            if error:
                raise CaptureError(f"describing topic {topic['name']!r} failed: "
                                   f"{_error_name(error)}")
            out[topic["name"]] = sorted(topic["partitions"], key=lambda p: p["partition_index"])
        if progress:
            progress(min(len(out), len(names)), len(names))
    return out


def _error_name(code: int) -> str:
    return f"{for_code(code).__name__} (error code {code})"


def _suspects(before: Reassignments, after: Reassignments,
              described: dict[str, list[dict]]) -> dict[tuple[str, int], str]:
    """Partitions not read consistently, with the reason."""
    out = {tp: "its reassignment state changed while it was read"
           for tp in before.keys() | after.keys() if before.get(tp) != after.get(tp)
           and tp[0] in described}
    for topic, parts in described.items():
        settled = Counter(len(p["replica_nodes"]) for p in parts
                          if (topic, p["partition_index"]) not in after)
        rf = settled.most_common(1)[0][0] if settled else None
        for p in parts:
            tp = (topic, p["partition_index"])
            if tp in out:
                continue
            replicas = p["replica_nodes"]
            if tp in after:
                if set(replicas) != set(after[tp][0]):
                    out[tp] = (f"described replicas {_ids(replicas)} differ from the "
                               f"controller's {_ids(after[tp][0])}")
            elif rf is not None and len(replicas) > rf:
                out[tp] = (f"described with {len(replicas)} replicas, more than the topic's "
                           f"{rf}, while the controller lists no reassignment")
    return out


def _ids(ids: Iterable[int]) -> str:
    return "[" + ", ".join(map(str, ids)) + "]"


def _by_topic(tps: Iterable[tuple[str, int]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for topic, partition in sorted(tps):
        out.setdefault(topic, []).append(partition)
    return out


def _topic(name: str, parts: list[dict], after: Reassignments,
           suspects: dict[tuple[str, int], str], config: dict[str, tuple[str, str]]) -> dict:
    topic: dict[str, Any] = {"name": name}
    if config:
        topic["config"] = {k: v for k, (v, _) in config.items()}
        topic["config_sources"] = {k: s for k, (_, s) in config.items()}
    topic["partitions"] = [_partition(name, p, after, suspects) for p in parts]
    return topic


def _partition(topic: str, p: dict, after: Reassignments,
               suspects: dict[tuple[str, int], str]) -> dict:
    tp = (topic, p["partition_index"])
    out: dict[str, Any] = {"partition": tp[1], "replicas": list(p["replica_nodes"]),
                           "isr": list(p["isr_nodes"]),
                           "leader": None if p["leader_id"] < 0 else p["leader_id"]}
    if p.get("offline_replicas"):
        out["offline"] = list(p["offline_replicas"])
    if tp in after and tp not in suspects:
        replicas, adding, removing = after[tp]
        out["replicas"] = list(replicas)  # the controller's, in its order
        out["adding"], out["removing"] = list(adding), list(removing)
    if tp in suspects:
        out["uncertain"] = suspects[tp]
    return out


def _topic_configs(admin: Any, names: list[str], chunk: int,
                   version: str | None) -> dict[str, dict[str, tuple[str, str]]]:
    """Each topic's settings that are not Kafka's defaults: (value, source). A broker that
    calls every setting a default (some do) keeps those whose value is not the default of
    the cluster's release."""
    defaults = table(resolve(version))
    out: dict[str, dict[str, tuple[str, str]]] = {}
    for batch in _chunks(names, chunk):
        asked = [ConfigResource(ConfigResourceType.TOPIC, n) for n in batch]
        found = admin.describe_configs(asked, config_filter="all").get("topic", {})
        for topic, entries in found.items():
            kept = {}
            for key, entry in entries.items():
                value, source = entry.get("value"), entry.get("config_source", _DEFAULT)
                if value is None or entry.get("is_sensitive"):
                    continue
                if source == "DYNAMIC_TOPIC_CONFIG" or source == _DEFAULT and \
                        not _is_default(defaults.get(key), value):
                    kept[key] = (value, source)
            if kept:
                out[topic] = dict(sorted(kept.items()))
    return out


def _is_default(spec: dict | None, value: str) -> bool:
    if spec is None:
        return False
    try:
        return parsed(spec, value) == parsed(spec, spec.get("default"))
    except (ValueError, TypeError):
        return False


def _broker_config(admin: Any, broker: int | None) -> dict[str, tuple[str, str]]:
    """The broker settings the rules read, as one broker has them (defaults included)."""
    if broker is None:
        return {}
    found = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, str(broker))],
                                   config_filter="all").get("broker", {}).get(str(broker), {})
    return {k: (e["value"], e.get("config_source", _DEFAULT))
            for k, e in sorted(found.items())
            if k in CLUSTER_KEYS and e.get("value") is not None and not e.get("is_sensitive")}


def _cordoned(admin: Any, brokers: list[dict]) -> None:
    """Each broker's log directories and those it cordons (KIP-1066's
    ``cordoned.log.dirs``, Kafka 4.3; "*" for all), added to its entry where it cordons
    any: PL124 judges a plan's new replicas by them. One request for every broker."""
    if not brokers:
        return
    from kafka.errors import KafkaError
    try:
        found = admin.describe_configs(
            [ConfigResource(ConfigResourceType.BROKER, str(b["id"])) for b in brokers],
            config_filter="all").get("broker", {})
    except KafkaError:  # a broker down (KIP-352's case): ask each that answers
        found = {}
        for b in brokers:
            try:
                found.update(admin.describe_configs(
                    [ConfigResource(ConfigResourceType.BROKER, str(b["id"]))],
                    config_filter="all").get("broker", {}))
            except KafkaError:
                continue

    def listed(entry: Any) -> list[str]:
        value = entry.get("value") if isinstance(entry, dict) else None
        return [d.strip() for d in value.split(",") if d.strip()] if value else []
    for broker in brokers:
        config = found.get(str(broker["id"]), {})
        cordoned = listed(config.get("cordoned.log.dirs"))
        if cordoned:
            broker["log_dirs"] = listed(config.get("log.dirs")) or \
                listed(config.get("log.dir"))
            broker["cordoned_log_dirs"] = cordoned


def to_json(document: dict) -> str:
    """A key a line, a topic a line: a snapshot of 10,000 topics diffs and greps well."""
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in document.items() if k != "topics"]
    topics = ",\n  ".join(json.dumps(t) for t in document["topics"])
    lines.append(f' "topics": [\n  {topics}\n ]' if topics else ' "topics": []')
    return "{\n" + ",\n".join(lines) + "\n}\n"
