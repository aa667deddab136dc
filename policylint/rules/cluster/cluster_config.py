"""What the cluster configuration rules (PL801-PL803) share: a broker setting of a
cluster profile (a Kafka resource's ``spec.kafka.config``, a snapshot's ``config``), as a
number, with where it is written, or Kafka's default for it."""

from __future__ import annotations

from typing import Any

from ... import kafka_configs, words

DEFAULTS = {"default.replication.factor": 1, "min.insync.replicas": 1,
            "offsets.topic.replication.factor": 3,
            "transaction.state.log.replication.factor": 3,
            "transaction.state.log.min.isr": 2}


def setting(profile: Any, key: str) -> tuple[int | None, tuple | None]:
    """(value, where it is written; None: Kafka's default) of an int broker setting. The
    value is None when it is no integer, or when it is not set and the profile may list
    only some settings (a snapshot): then nothing is known of it."""
    if key in profile.config:
        return (kafka_configs.number(profile.config[key], "int"),
                (profile.doc, profile.config_path + (key,)))
    return (DEFAULTS[key] if profile.config_complete else None), None


def over_brokers(profile: Any, key: str) -> tuple[str, str, tuple | None] | None:
    """(the setting as said, the broker count as said, where it is written) when a
    replication-factor setting asks for more replicas than the cluster has brokers."""
    count = profile.broker_count
    value, at = setting(profile, key)
    if count is None or value is None or value <= count:
        return None
    return said(key, value, at), words.count(count, "broker"), at


def said(key: str, value: int, at: tuple | None) -> str:
    return f"{key}={value}" + ("" if at else " (Kafka's default)")


def where(profile: Any, at: tuple | None) -> tuple | None:
    """Where a finding about a setting goes: the value, else the broker settings, else the
    brokers."""
    if at is not None:
        return at
    if profile.doc is None:
        return None
    return (profile.doc, profile.config_path) if profile.config else profile.where()
