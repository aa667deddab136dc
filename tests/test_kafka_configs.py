"""The topic-config table shipped in the package: facts pinned per Kafka release (read in
Apache Kafka's LogConfig and TopicConfig at each tag), and how values are read."""

import os

import pytest

from policylint import kafka_configs as kc


@pytest.mark.parametrize("version, key, fact", [
    ("3.0", "segment.index.bytes", {"type": "int", "min": 0}),
    ("4.0", "segment.index.bytes", {"type": "int", "min": 4}),
    ("3.0", "segment.bytes", {"type": "int", "min": 14, "default": 1073741824}),
    ("3.0", "retention.ms", {"type": "long", "min": -1, "default": 604800000}),
    ("3.9", "retention.bytes", {"type": "long", "default": -1}),
    ("3.5", "cleanup.policy", {"type": "list", "subset": ["compact", "delete"]}),
    ("3.8", "compression.zstd.level", {"type": "int", "min": -131072, "max": 22}),
    ("4.0", "compression.gzip.level", {"values": [-1], "min": 1, "max": 9}),
    ("3.2", "min.cleanable.dirty.ratio", {"type": "double", "min": 0, "max": 1}),
    ("3.6", "message.timestamp.difference.max.ms", {"deprecated": True}),
    ("3.0", "message.format.version", {"deprecated": True}),
    ("3.7", "message.timestamp.type", {"values": ["CreateTime", "LogAppendTime"]}),
])
def test_facts_per_release(version, key, fact):
    spec = kc.table(version)[key]
    assert {k: spec.get(k) for k in fact} == fact


@pytest.mark.parametrize("key, first", [
    ("compression.gzip.level", "3.8"), ("remote.log.copy.disable", "3.9"),
    ("message.timestamp.before.max.ms", "3.6"), ("retention.ms", "3.0")])
def test_when_keys_were_added(key, first):
    assert kc.added_in(key) == first


def test_removed_and_deprecated_keys():
    assert "message.format.version" in kc.table("3.9")
    assert "message.format.version" not in kc.table("4.0")
    assert kc.removed_in("message.format.version", "4.0") == "4.0"
    assert kc.removed_in("message.format.version", "3.9") is None
    assert not kc.table("3.5")["message.timestamp.difference.max.ms"].get("deprecated")
    # Kafka 4.0's upgrade notes: KIP-937 removes it; KIP-1030's segment.bytes floor is
    # 4.1's as running Kafkas answer (4.0.2 accepts 1048575, 4.1.2 refuses it)
    assert kc.removed_in("message.timestamp.difference.max.ms", "4.2") == "4.0"
    assert [kc.table(v)["segment.bytes"]["min"] for v in ("3.9", "4.0", "4.1", "4.2")] == \
        [14, 14, 1048576, 1048576]
    assert kc.table("4.2") == {**kc.table("4.1"), "max.decompressed.message.bytes": {
        "type": "int", "min": 1, "default": 2147483639}}  # as a running 4.2.2 lists it
    # a running 4.0.2 and later answer "Unknown topic config name"
    assert kc.removed_in("message.downconversion.enable", "4.0") == "4.0"


@pytest.mark.parametrize("wanted, release", [
    (None, "4.4"), ("3.7.1", "3.7"), ("4.1.0", "4.1"), ("4.3.1", "4.3"), ("4.4.0", "4.4"),
    ("4.5.0", "4.4"), ("5.0.0", "5.0"),
    ("2.8.0", "3.0"),
    (3.9, "3.9"), ("3.9.0-IV1", "3.9"), ("latest", "4.4")])
def test_the_release_a_version_is_judged_by(wanted, release):
    assert kc.resolve(wanted) == release


@pytest.mark.parametrize("key, value, problem", [
    ("min.insync.replicas", "asd", "is not an integer"),
    ("min.insync.replicas", 2, None), ("min.insync.replicas", "2", None),
    ("min.insync.replicas", 0, "must be at least 1"),
    ("min.insync.replicas", True, "is not an integer"),
    ("min.insync.replicas", 2.0, "is not an integer"),
    ("retention.ms", "9223372036854775807", None),
    ("retention.ms", "9223372036854775808", "does not fit Kafka's long type"),
    ("retention.ms", "9" * 5000, "does not fit Kafka's long type"),
    ("retention.bytes", "-0009223372036854775808", None),
    ("preallocate", True, None), ("preallocate", "True", None), ("preallocate", 1, "is not true or false"),
    # ValidList.in of 3.x and 4.0: repeats and an empty list pass, an empty item does not
    ("cleanup.policy", "compact, delete", None), ("cleanup.policy", "compact,compact", None),
    ("cleanup.policy", "", None), ("cleanup.policy", "compact,", "a list of compact, delete"),
    ("leader.replication.throttled.replicas", "*", None),
    ("leader.replication.throttled.replicas", "1:2,3:4", None),
    ("leader.replication.throttled.replicas", "*,1:2", "partition:broker"),
    ("compression.gzip.level", -1, None), ("compression.gzip.level", 0, "must be from 1 to 9 (or -1)"),
    ("compression.type", "ZSTD", "must be one of"),
    ("min.cleanable.dirty.ratio", "0.25", None), ("min.cleanable.dirty.ratio", "x", "is not a number"),
])
def test_values_as_kafka_reads_them(key, value, problem):
    found = kc.problem(kc.table("4.0")[key], value)
    assert (found is None) if problem is None else (problem in (found or ""))


def test_broker_synonyms_resolve_in_kafkas_order_and_unit():
    """ServerTopicConfigSynonyms: the first synonym set wins, hours and minutes made ms."""
    from policylint.kafka_configs import broker_value
    assert broker_value("retention.ms", {"log.retention.hours": "72"}) == \
        (259_200_000, "log.retention.hours")
    assert broker_value("retention.ms", {"log.retention.hours": 1, "log.retention.minutes": 2})\
        == (120_000, "log.retention.minutes")
    assert broker_value("retention.ms", {"log.retention.hours": -1}) == \
        (-1, "log.retention.hours")  # unlimited stays unlimited
    assert broker_value("segment.ms", {"log.roll.hours": 2}) == (7_200_000, "log.roll.hours")
    assert broker_value("max.message.bytes", {"message.max.bytes": 5}) == \
        (5, "message.max.bytes")
    assert broker_value("remote.storage.enable", {"remote.storage.enable": "true"}) is None


def test_synonyms_are_per_release():
    """The table is Kafka's per release: compression levels fall back to the broker's from
    3.8 (KIP-390), local retention from 3.6; a key a release does not have, none."""
    from policylint.kafka_configs import BROKER_KEYS, broker_value, known_versions, synonyms
    broker = {"compression.gzip.level": 5, "log.local.retention.ms": 1000}
    assert broker_value("compression.gzip.level", broker, "3.8") == \
        (5, "compression.gzip.level")
    assert broker_value("compression.gzip.level", broker, "3.7") is None  # no such key
    assert broker_value("local.retention.ms", broker, "3.6") == (1000, "log.local.retention.ms")
    assert synonyms("message.downconversion.enable", "3.9") and \
        not synonyms("message.downconversion.enable", "4.0")  # a no-op since 4.0
    assert synonyms("flush.ms", "3.0") == [["log.flush.interval.ms", 1],
                                           ["log.flush.scheduler.interval.ms", 1]]
    for version in known_versions():  # PL602's broker-to-topic names agree with them
        for key in ("retention.ms", "segment.ms", "cleanup.policy", "min.insync.replicas"):
            for name, _ in synonyms(key, version):
                assert BROKER_KEYS.get(name, key) == key, name


@pytest.mark.skipif(not os.environ.get("KAFKA_GIT"),
                    reason="KAFKA_GIT names no apache/kafka git directory")
def test_synonyms_are_those_of_kafkas_sources():
    """Each release's synonyms, every one, against ServerTopicConfigSynonyms (LogConfig's
    maps before 3.5) at its tag: run with KAFKA_GIT=PATH/TO/kafka/.git."""
    from policylint.kafka_configs import table
    from policylint.kafka_configs.derive import TAGS, synonyms_at
    for tag in TAGS:
        derived = synonyms_at(os.environ["KAFKA_GIT"], tag)
        shipped = {key: spec["synonyms"] for key, spec in table(tag.rsplit(".", 1)[0]).items()
                   if "synonyms" in spec}
        assert shipped == {k: v for k, v in derived.items() if k in shipped or
                           k in table(tag.rsplit(".", 1)[0])}, tag


def test_cel_and_the_built_ins_read_the_same_effective_retention(tmp_path, monkeypatch):
    """A cluster's log.retention.hours: 72 is retention.ms 259200000 for a CEL rule, as for
    PL704 (CEL saw Kafka's default of 7 days)."""
    pytest.importorskip("cel_expr_python")
    from policylint.linter import lint
    (tmp_path / "kafka.yaml").write_text(
        "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\nmetadata: {name: prod}\nspec:\n"
        "  kafka:\n    replicas: 3\n    config: {log.retention.hours: 72}\n")
    (tmp_path / "t.yaml").write_text(
        "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\nmetadata:\n  name: t\n"
        "  labels: {strimzi.io/cluster: prod}\nspec: {partitions: 1, replicas: 3}\n")
    (tmp_path / ".policylint.yaml").write_text(
        "cel_rules:\n  - code: TEAM001\n    name: retention\n    applies_to: topics\n"
        "    validations:\n      - expression: topic.config['retention.ms'] == 1\n"
        "        messageExpression: string(topic.config['retention.ms']) + ' from ' + "
        "topic.configs['retention.ms'].source\n")
    monkeypatch.chdir(tmp_path)
    (finding,) = lint(["."], select=["TEAM"]).findings
    assert finding.message == "topic t: 259200000 from cluster prod's log.retention.hours"
