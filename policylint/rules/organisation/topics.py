"""What the organisation rules (PL7xx) share: the topics of a target, with their names
and configs."""

from __future__ import annotations

from typing import Any, Iterator

from ...views import TopicConfig, topic_config
from ...model import Snapshot


def topic_names(target: Any) -> Iterator[tuple[str, tuple]]:
    """(name, where) of a manifest's topic, or of each topic of a snapshot but Kafka's
    internal ones (``__consumer_offsets``, ...), which no naming policy governs."""
    if isinstance(target, Snapshot):
        for topic in target.topics.values():
            if not topic.name.startswith("__"):
                yield topic.name, (topic.doc, topic.path + ("name",))
    else:
        yield target.name, target.where("name")


def every_topic(target: Any) -> list[TopicConfig]:
    """Each topic of a manifest or snapshot (Kafka's internal ones left out) with its
    config, empty ones too: defaults apply to them."""
    if isinstance(target, Snapshot):
        return [topic_config(t) for t in target.topics.values() if not t.name.startswith("__")]
    return [topic_config(target)]
