from ... import kafka_configs
from ...model import Fix, Snapshot
from ...rule import Reads, Rule
from .topic_config import on_some_releases, release_said


class InvalidTopicConfigValue(Rule):
    """A topic config value is one Kafka refuses.

    ## What it does
    Reports, at the value, a topic config value of the wrong type for its key (int, long,
    double, boolean, list, string: `min.insync.replicas: asd`), outside its valid range
    (`segment.ms: 0`), or not one of its valid values (`cleanup.policy: compactt`, a
    subset of `compact,delete` with each at most once; `compression.type`;
    `message.timestamp.type`), as Kafka's `LogConfig` of the cluster's version defines
    them. Values may be written as YAML gives them or as strings (`2` and `"2"`, `true` and
    `"true"` are the same to Kafka).

    `--fix` respells the items of a list of valid values (`cleanup.policy: compactt`)
    that have exactly one close valid value, a YAML boolean word as Kafka's boolean
    (`preallocate: "yes"` -> `"true"`), and a whole number written with a fraction or
    underscores as Kafka's integer (`max.message.bytes: 2097152.0` -> `2097152`); a string
    stays a string.

    ## Why is this bad?
    Kafka refuses the whole config change: the topic keeps its old settings while the
    repository says otherwise, and the operator retries until someone reads its logs.

    ## Example
    ```yaml
    config:
      cleanup.policy: compactt
    ```

    ## Use instead
    ```yaml
    config:
      cleanup.policy: compact
    ```
    """
    code = "PL603"
    fixable = True
    name = "invalid-topic-config-value"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), partitions=False, spark_frame="configs")
    message = "topic {topic}: {key}={value} {problem} (Kafka {release})"

    def check(self, target, ctx, options):
        for entry in ctx.config_issues(target):
            config, key, value, release, _, problem, _ = entry
            if problem:
                finding = self.finding(
                    self.say(topic=config.topic, key=key, value=_shown(value),
                             problem=problem, release=release_said(entry)),
                    at=config.value_at(key), topic=config.topic)
                if not isinstance(target, Snapshot):
                    spec = kafka_configs.table(release)[key]
                    fixed = _respelled_items(spec["subset"], value) if "subset" in spec \
                        else kafka_configs.respelled(spec, value)
                    if fixed is not None:
                        finding.fix = Fix("set", config.value_at(key), fixed)
                yield on_some_releases(finding, entry)


def _respelled_items(allowed: list[str], value) -> str | None:
    """A list of valid values (``cleanup.policy``) with each misspelt item replaced by its
    one close valid value; None when an item has no single one."""
    if not isinstance(value, str):
        return None
    items = [item.strip() for item in value.split(",")]
    fixed = [item if item in allowed else kafka_configs.only_match(item, allowed)
             for item in items]
    if None in fixed or fixed == items:
        return None
    return ",".join(dict.fromkeys(fixed))


def _shown(value) -> str:
    text = kafka_configs.as_text(value)
    return repr(text) if not text or text != text.strip() or len(text) > 40 else text
