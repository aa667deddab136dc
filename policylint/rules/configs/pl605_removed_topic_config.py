from ... import kafka_configs
from ...model import Fix, Snapshot
from ...rule import Reads, Rule
from .topic_config import on_some_releases, release_said


class RemovedTopicConfig(Rule):
    """A topic config key is deprecated, or removed, in the cluster's Kafka version.

    ## What it does
    Reports, at the key, a topic config that Kafka's `TopicConfig` marks deprecated in that
    version (a warning: `message.timestamp.difference.max.ms` from 3.6, replaced by
    `message.timestamp.before.max.ms` / `.after.max.ms`; `message.downconversion.enable`
    from 4.0, where it does nothing), or that an earlier version had and this one removed
    (an error: `message.format.version`, KIP-724, and
    `message.timestamp.difference.max.ms`, KIP-937, on 4.0 and later).

    `--fix` removes a key the release removed (Kafka refuses it); a deprecated one is left.

    ## Why is this bad?
    A removed key is refused like an unknown one and blocks the whole change; a deprecated
    one still works today and stops working at the next upgrade.

    ## Example
    ```yaml
    config:
      message.format.version: 2.8
    ```

    ## Use instead
    Leave the key out: since Kafka 3.0 the record format follows `inter.broker.protocol`
    / the metadata version.
    """
    code = "PL605"
    fixable = True
    name = "removed-topic-config"
    severity = "warning"
    reads = Reads(targets=("manifest", "snapshot"), partitions=False, spark_frame="configs")
    message = "topic {topic}: {key} is {what} (Kafka {release})"
    REPLACED = {"message.timestamp.difference.max.ms":
                "message.timestamp.before.max.ms and message.timestamp.after.max.ms"}

    def check(self, target, ctx, options):
        for entry in ctx.config_issues(target):
            config, key, _, release, known, _, _ = entry
            if known == "removed":
                removed = kafka_configs.removed_in(key, release)
                what, severity = f"removed since Kafka {removed}: Kafka refuses it", "error"
            elif known == "deprecated":
                instead = self.REPLACED.get(key)
                what = "deprecated" + (f"; use {instead}" if instead else
                                       ": it will be removed")
                severity = self.severity
            else:
                continue
            finding = self.finding(self.say(topic=config.topic, key=key, what=what,
                                            release=release_said(entry)),
                                   at=config.key_at(key), topic=config.topic)
            finding.severity = severity
            if known == "removed" and not isinstance(target, Snapshot):  # --fix removes it
                finding.fix = Fix("delete", config.value_at(key))
            yield on_some_releases(finding, entry)
