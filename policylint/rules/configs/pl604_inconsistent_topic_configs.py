from ... import kafka_configs
from ...rule import Reads, Rule

COMPACTION = ("min.compaction.lag.ms", "max.compaction.lag.ms", "min.cleanable.dirty.ratio",
              "delete.retention.ms")
LOCAL = ("local.retention.ms", "local.retention.bytes")
RETENTION = ("retention.ms", "retention.bytes")
RETENTION_SET = frozenset(RETENTION)
LEVELS = {f"compression.{codec}.level": codec for codec in ("gzip", "lz4", "zstd")}
# keys without which none of a topic's settings can be idle (retention: only on a topic whose
# policy may be compact alone, which most are not)
INVOLVED = frozenset(COMPACTION + LOCAL + tuple(LEVELS))


class InconsistentTopicConfigs(Rule):
    """A topic setting does nothing.

    ## What it does
    Reports, at the value that does nothing:
    - compaction settings (`min.compaction.lag.ms`, `max.compaction.lag.ms`,
      `min.cleanable.dirty.ratio`, `delete.retention.ms`) without `compact` in the effective
      `cleanup.policy` (the topic's, else the cluster's `log.cleanup.policy`, else `delete`);
    - `retention.ms` / `.bytes` on a topic whose policy is `compact` alone or empty (Kafka
      4.2 documents an empty policy as infinite retention; retention deletes only with
      `delete` in the policy);
    - `local.retention.ms` / `.bytes` without `remote.storage.enable=true`;
    - a `compression.<codec>.level` for another codec than `compression.type`.

    Values Kafka would refuse are PL603's, and combinations it refuses PL607's; both are
    left out here.

    ## Why is this bad?
    A setting that does nothing was meant to do something: the reviewer believes tombstones
    are kept a day, segments stay local an hour or old records are deleted after a week,
    and they are not.

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
    reads = Reads(targets=("manifest", "snapshot"), config_keys=INVOLVED | frozenset(RETENTION),
                  partitions=False, spark_frame="configs")
    message = "topic {topic}: {problem}"

    def check(self, target, ctx, options):
        profile = ctx.profile_for(target)
        broker = profile.config if profile is not None else {}
        default_policy = broker.get("log.cleanup.policy", "delete")
        for config in ctx.topic_configs(target):
            keys = config.config
            if INVOLVED.isdisjoint(keys) and (RETENTION_SET.isdisjoint(keys) or "delete" in
                                              str(keys.get("cleanup.policy", default_policy))):
                continue  # nothing here can be idle
            release = ctx.kafka_release(target)
            specs = kafka_configs.table(release)
            values = kafka_configs.parsed_config(release, config.config)
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
    if "delete" not in policy:  # compact alone, or empty: nothing removes old records
        said = "compact" if policy == ["compact"] else "empty (records are kept forever)"
        for key in RETENTION:
            if key in values:
                yield key, (f"{key} has no effect: cleanup.policy is {said}; only delete "
                            "removes records by age or size")
    if not values.get("remote.storage.enable", False):
        for key in LOCAL:
            if key in values and values[key] != -2:  # -2: the same as retention
                yield key, f"{key} has no effect without remote.storage.enable=true"
    codec = values.get("compression.type", specs.get("compression.type", {}).get("default"))
    for key, level_codec in LEVELS.items():
        if key in values and codec != level_codec:
            yield key, f"{key} has no effect: compression.type is {codec}"
