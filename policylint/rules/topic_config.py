"""What the topic and organisation rules (PL6xx, PL7xx) share: the topics of a target
with their names and configs. (The config keys worth reporting: ``ctx.config_issues``.)"""

from __future__ import annotations

from typing import Any, Iterator

from ..engine import ConfigEntry, TopicConfig, topic_config
from .. import kafka_configs
from ..kafka_configs import span
from ..model import Finding, Snapshot


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


def release_said(entry: ConfigEntry) -> str:
    """The release(s) of a config entry's verdict as a message names them: when no input
    says which release the cluster runs, those of the window that give it."""
    if entry.only is None:
        return entry.release
    given, others = entry.only
    return (f"{span(given)}; not {span(others)}: no input says which release the cluster "
            "runs, give it with --kafka-version")


def on_some_releases(finding: Finding, entry: ConfigEntry) -> Finding:
    """A finding whose verdict only some releases of the window give, or only releases not
    out yet: a warning, never an error (an error only where every release of the window
    refuses it, and one is out)."""
    given = entry.only[0] if entry.only is not None else (entry.release,)
    if finding.severity == "error" and (entry.only is not None or
                                        set(given) <= kafka_configs.ANNOUNCED):
        finding.severity = "warning"
    return finding
