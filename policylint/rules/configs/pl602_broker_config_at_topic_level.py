from ... import kafka_configs
from ...model import Fix, Snapshot
from ...rule import Reads, Rule


class BrokerConfigAtTopicLevel(Rule):
    """A broker-level config name is set on a topic.

    ## What it does
    Reports a key of a topic's config that is the name of a broker setting
    (`log.retention.minutes`, `log.segment.bytes`, `message.max.bytes`, `num.partitions`,
    ...), at the key, with the topic-level key that does the same, or saying the setting
    is the broker's alone.

    `--fix` renames the key to its topic twin where the topic does not already set it,
    converting minutes and hours to milliseconds (`log.retention.hours: 24` ->
    `retention.ms: 86400000`).

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
    fixable = True
    name = "broker-config-at-topic-level"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), partitions=False, spark_frame="configs")
    message = "topic {topic}: {key} is a broker setting, not a topic config; {instead}"

    def check(self, target, ctx, options):
        for config, key, _, _, status, _, _ in ctx.config_issues(target):
            if status != "broker":
                continue
            topic_key = kafka_configs.BROKER_KEYS[key]
            instead = f"at topic level use {topic_key}" if topic_key else \
                "topics have no such setting (it is the broker's alone)"
            finding = self.finding(self.say(topic=config.topic, key=key, instead=instead),
                                   at=config.key_at(key), topic=config.topic)
            if topic_key and topic_key not in config.config and not isinstance(target,
                                                                              Snapshot):
                value = _converted(key, config.config[key])
                if value is not None:
                    finding.fix = Fix("rename", config.value_at(key), value, topic_key)
            yield finding


# a broker key in other units than its topic twin: the factor to it
_UNITS = {"log.retention.minutes": 60_000, "log.retention.hours": 3_600_000,
          "log.roll.hours": 3_600_000, "log.roll.jitter.hours": 3_600_000}


def _converted(key: str, value):
    """The value for the topic twin of a broker key (None: not a number to convert)."""
    factor = _UNITS.get(key)
    if factor is None:
        return value
    number = kafka_configs.number(value)
    if number is None:
        return None
    return number * factor if number >= 0 else number
