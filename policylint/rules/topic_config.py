"""What the topic config rules (PL601-PL606) share: each key of each topic config, with
the Kafka release it is judged by, vendor prefixes the policy allows left out."""

from __future__ import annotations

from typing import Any, Iterator

from ..engine import TopicConfig


def config_keys(target: Any, ctx: Any) -> Iterator[tuple[TopicConfig, str, Any, str]]:
    """(topic config, key, value, release) of every key a rule should judge."""
    release = ctx.kafka_release(target)
    prefixes = tuple(ctx.policy.config_prefixes)
    for config in ctx.topic_configs(target):
        for key, value in config.config.items():
            if not (prefixes and key.startswith(prefixes)):
                yield config, key, value, release
