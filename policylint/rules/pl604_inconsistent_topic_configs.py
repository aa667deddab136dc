from .. import kafka_configs
from ..rule import Rule

COMPACTION = ("min.compaction.lag.ms", "max.compaction.lag.ms", "min.cleanable.dirty.ratio",
              "delete.retention.ms")
LOCAL = (("local.retention.ms", "retention.ms"), ("local.retention.bytes", "retention.bytes"))
LEVELS = {f"compression.{codec}.level": codec for codec in ("gzip", "lz4", "zstd")}
# keys without which a topic's settings cannot contradict each other
INVOLVED = frozenset(COMPACTION + tuple(k for k, _ in LOCAL) + tuple(LEVELS)
                     + ("remote.storage.enable",))


class InconsistentTopicConfigs(Rule):
    """A topic's settings contradict each other, or one of them does nothing.

    ## What it does
    Reports, at the value that does nothing or contradicts:
    - compaction settings (`min.compaction.lag.ms`, `max.compaction.lag.ms`,
      `min.cleanable.dirty.ratio`, `delete.retention.ms`) without `compact` in the effective
      `cleanup.policy` (the topic's, else the cluster's `log.cleanup.policy`, else `delete`);
    - `min.compaction.lag.ms` greater than `max.compaction.lag.ms`;
    - `local.retention.ms` / `.bytes` without `remote.storage.enable=true`, or larger than
      `retention.ms` / `.bytes` (unless those are unlimited);
    - `remote.storage.enable=true` on a compacted topic;
    - a `compression.<codec>.level` for another codec than `compression.type`.

    Values Kafka would refuse are PL603's and left out here.

    ## Why is this bad?
    A setting that does nothing was meant to do something: the reviewer believes tombstones
    are kept a day or segments stay local an hour, and they are not. Kafka refuses some of
    these combinations outright (compaction lags in the wrong order, tiered storage on a
    compacted topic), blocking the whole change.

    ## Example
    ```yaml
    config:
      cleanup.policy: delete
      min.compaction.lag.ms: 3600000
    ```

    ## Use instead
    ```yaml
    config:
      cleanup.policy: compact
      min.compaction.lag.ms: 3600000
    ```
    """
    code = "PL604"
    name = "inconsistent-topic-configs"
    severity = "warning"
    targets = ("manifest", "snapshot")
    reads_partitions = False
    message = "topic {topic}: {problem}"

    def check(self, target, ctx, options):
        for config in ctx.topic_configs(target):
            if INVOLVED.isdisjoint(config.config):
                continue
            release = ctx.kafka_release(target)
            specs = kafka_configs.table(release)
            profile = ctx.profile_for(target)
            broker = profile.config if profile is not None else {}
            values = {}
            for key, value in config.config.items():
                problem, value = kafka_configs.judge(release, key, value)
                if value is not None:
                    values[key] = value
            for key, problem in _problems(values, broker, specs):
                yield self.finding(self.say(topic=config.topic, problem=problem),
                                   at=config.value_at(key), topic=config.topic)


def _problems(values: dict, broker: dict, specs: dict):
    """(key, problem) of the contradictions among a topic's parsed values."""
    policy = values.get("cleanup.policy")
    if policy is None:
        policy = kafka_configs.as_text(broker.get("log.cleanup.policy", "delete"))
        policy = [p.strip() for p in policy.split(",")]
    compacted = "compact" in policy
    said = ",".join(policy)
    if not compacted:
        for key in COMPACTION:
            if key in values:
                yield key, (f"{key} has no effect: cleanup.policy is {said} (compaction "
                            "is off)")
    low, high = values.get("min.compaction.lag.ms"), values.get("max.compaction.lag.ms")
    if compacted and low is not None and high is not None and low > high:
        yield "min.compaction.lag.ms", (f"min.compaction.lag.ms={low} is greater than "
                                        f"max.compaction.lag.ms={high}: Kafka refuses it")
    remote = values.get("remote.storage.enable", False)
    for local, total in LOCAL:
        if local not in values or values[local] == -2:  # -2: the same as the total
            continue
        if not remote:
            yield local, f"{local} has no effect without remote.storage.enable=true"
            continue
        limit = values.get(total, specs.get(total, {}).get("default"))
        if limit is not None and limit >= 0 and (values[local] == -1 or values[local] > limit):
            shown = "unlimited (-1)" if values[local] == -1 else values[local]
            yield local, (f"{local}={shown} is larger than {total}={limit}: segments would "
                          "stay local longer than the topic keeps data")
    if remote and compacted:
        yield "remote.storage.enable", ("remote.storage.enable=true on a compacted topic "
                                        f"(cleanup.policy={said}): Kafka refuses tiered "
                                        "storage for compacted topics")
    codec = values.get("compression.type", specs.get("compression.type", {}).get("default"))
    for key, level_codec in LEVELS.items():
        if key in values and codec != level_codec:
            yield key, f"{key} has no effect: compression.type is {codec}"
