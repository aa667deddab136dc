from ... import kafka_configs
from ...model import Fix, Snapshot
from ...rule import Reads, Rule
from .topic_config import on_some_releases, release_said


class UnknownTopicConfig(Rule):
    """A config key is not a topic config of the cluster's Kafka version.

    ## What it does
    Reports a key of a topic's config (a manifest's `spec.config`, a snapshot topic's
    `config`) that Kafka's `LogConfig` of that version does not define, at the key, with
    the closest known key when there is one. The version is the cluster's (snapshot or
    profile `kafka_version`, Strimzi `spec.kafka.version`), else the policy's
    `kafka_version`, else the newest known. Broker-level names (PL602) and keys Kafka
    removed (PL605) have rules of their own; vendor keys are allowed by prefix with
    `configs.allow_prefixes` in the policy (for example `confluent.`).

    `--fix` corrects a typo with exactly one close topic config the topic does not set.

    ## Why is this bad?
    Kafka refuses the whole change ("Unknown topic config name"): the operator keeps
    retrying and the topic never gets the settings meant for it. A misspelled key
    (`retention.mss`) means the setting you reviewed is not the one applied.

    ## Example
    ```yaml
    config:
      retention.mss: 604800000
    ```

    ## Use instead
    ```yaml
    config:
      retention.ms: 604800000
    ```
    """
    code = "PL601"
    fixable = True
    name = "unknown-topic-config"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), partitions=False, spark_frame="configs")
    message = "topic {topic}: \"{key}\" is not a topic config of Kafka {release}{hint}"

    #: the unknown keys of one topic's config that get a suggestion: a config of hundreds
    #: of unknown keys holds no typo worth a second each (a hostile file of 20,000 took 16 s)
    SUGGESTED = 100

    def check(self, target, ctx, options):
        suggested: dict[int, int] = {}  # id(config) -> its unknown keys so far
        for entry in ctx.config_issues(target):
            config, key, _, release, status, _, _ = entry
            if status != "unknown":
                continue
            n = suggested[id(config)] = suggested.get(id(config), 0) + 1
            near = kafka_configs.closest(key, release) if n <= self.SUGGESTED else None
            added = kafka_configs.added_in(key)
            hint = f" (it was added in {added})" if added else \
                f"; did you mean {near}?" if near else \
                " (a vendor key? allow its prefix with configs.allow_prefixes in the policy)"
            finding = self.finding(self.say(topic=config.topic, key=key,
                                            release=release_said(entry), hint=hint),
                                   at=config.key_at(key), topic=config.topic)
            if near and not added and not isinstance(target, Snapshot):
                twin = kafka_configs.only_match(key, list(kafka_configs.table(release)))
                if twin and twin not in config.config:  # a typo: --fix corrects it
                    finding.fix = Fix("rename", config.value_at(key), config.config[key], twin)
            yield on_some_releases(finding, entry)
