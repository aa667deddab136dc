from .. import kafka_configs
from ..rule import Rule


class BrokerConfigAtTopicLevel(Rule):
    """A broker-level config name is set on a topic.

    ## What it does
    Reports a key of a topic's config that is the name of a broker setting
    (`log.retention.minutes`, `log.segment.bytes`, `message.max.bytes`, `num.partitions`,
    ...), at the key, with the topic-level key that does the same, or saying the setting
    is the broker's alone.

    ## Why is this bad?
    Kafka refuses it at topic level ("Unknown topic config name"), and a reviewer reads
    it as a retention or size limit that is never applied: a public project shipped
    `log.retention.minutes` on its topics and lost the disk space it thought it had
    bounded.

    ## Example
    ```yaml
    config:
      log.retention.minutes: 60
    ```

    ## Use instead
    ```yaml
    config:
      retention.ms: 3600000
    ```
    """
    code = "PL602"
    name = "broker-config-at-topic-level"
    severity = "error"
    targets = ("manifest", "snapshot")
    reads_partitions = False
    message = "topic {topic}: {key} is a broker setting, not a topic config; {instead}"

    def check(self, target, ctx, options):
        for config, key, _, _, status, _ in ctx.config_issues(target):
            if status != "broker":
                continue
            topic_key = kafka_configs.BROKER_KEYS[key]
            instead = f"at topic level use {topic_key}" if topic_key else \
                "topics have no such setting (it is the broker's alone)"
            yield self.finding(self.say(topic=config.topic, key=key, instead=instead),
                               at=config.key_at(key), topic=config.topic)
