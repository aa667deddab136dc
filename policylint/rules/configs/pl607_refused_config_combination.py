from ... import kafka_configs
from ...diff import at, matched
from ...rule import Reads, Rule

LOCAL = {"local.retention.ms": "retention.ms", "local.retention.bytes": "retention.bytes"}
# the broker settings a topic's local retention falls back to
LOCAL_DEFAULTS = {"local.retention.ms": "log.local.retention.ms",
                  "local.retention.bytes": "log.local.retention.bytes"}
REMOTE = "remote.storage.enable"
SYSTEM = "remote.log.storage.system.enable"
COPY_DISABLE, DELETE_ON_DISABLE = "remote.log.copy.disable", "remote.log.delete.on.disable"
# keys without which a topic's settings cannot be refused together
INVOLVED = frozenset({"min.compaction.lag.ms", "max.compaction.lag.ms", REMOTE})
# Kafka 4.4 (KIP-1241): how far the copy to remote storage may trail, per local retention
COPY_LAG = {"local.retention.ms": "remote.copy.lag.ms",
            "local.retention.bytes": "remote.copy.lag.bytes"}


class RefusedConfigCombination(Rule):
    """A topic's settings are each valid, and Kafka refuses them together.

    ## What it does
    Reports, at the value Kafka names, what `LogConfig` refuses when a topic is created or
    altered, on the releases that refuse it:
    - `min.compaction.lag.ms` greater than `max.compaction.lag.ms`, whatever the cleanup
      policy (`validateValues`);
    - `remote.storage.enable=true` (Kafka 3.6 on) on a topic whose `cleanup.policy` is not
      `delete` alone, or on a cluster whose `remote.log.storage.system.enable` is false (a
      cluster resource that lists its settings, or a snapshot that states it);
    - with remote storage on, an effective `local.retention.ms` / `.bytes` (the topic's,
      else the broker's `log.local.retention.*`) of -1 or larger than the effective
      `retention.ms` / `.bytes`, unless that is unlimited;
    - with `remote.log.copy.disable=true` (3.9 on), a local retention other than -2 that
      differs from the retention;
    - diff mode (3.9 on): `remote.storage.enable` turned off, from true at the base ref,
      without `remote.log.delete.on.disable=true`.

    ## Why is this bad?
    The broker refuses the create or alter: the Strimzi topic operator marks the topic not
    ready, Terraform's apply fails, and the change that came with it is stuck.

    ## Example
    ```yaml
    config:
      min.compaction.lag.ms: 86400000
      max.compaction.lag.ms: 3600000
    ```

    ## Use instead
    ```yaml
    config:
      min.compaction.lag.ms: 3600000
      max.compaction.lag.ms: 86400000
    ```
    """
    code = "PL607"
    name = "refused-config-combination"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot", "run"), config_keys=INVOLVED, partitions=False,
                  spark_frame="configs")
    message = "topic {topic}: {problem}"

    def check(self, target, ctx, options):
        if target is ctx:  # diff mode: what changed
            yield from self._turned_off(ctx)
            return
        for config in ctx.topic_configs(target):
            if INVOLVED.isdisjoint(config.config):
                continue
            release = ctx.kafka_release(target)
            profile = ctx.profile_for(target)
            values = kafka_configs.parsed_config(release, config.config)
            for key, problem in _problems(values, release, profile):
                yield self.finding(self.say(topic=config.topic, problem=problem),
                                   at=config.value_at(key), topic=config.topic)

    def _turned_off(self, ctx):
        for old, new in matched(ctx):
            release = ctx.kafka_release(new)
            if REMOTE not in old.config or not kafka_configs.at_least(release, "3.9"):
                continue
            before, after = kafka_configs.parsed_config(release, old.config), kafka_configs.parsed_config(release, new.config)
            if before.get(REMOTE) and not after.get(REMOTE, False) \
                    and not after.get(DELETE_ON_DISABLE, False):
                where = new.config_at(REMOTE) if REMOTE in new.config else new.where("config")
                yield self.finding(self.say(topic=new.name, problem=(
                    f"{REMOTE} is turned off (true {at(ctx, old)}) without "
                    f"{DELETE_ON_DISABLE}=true: Kafka refuses to disable remote storage "
                    f"without deleting the remote data (to keep it read-only, set "
                    f"{REMOTE}=true and {COPY_DISABLE}=true)")), at=where, topic=new.name)


def _problems(values: dict, release: str, profile):
    low, high = values.get("min.compaction.lag.ms"), values.get("max.compaction.lag.ms")
    if low is not None and high is not None and low > high:
        yield "min.compaction.lag.ms", (f"min.compaction.lag.ms={low} is greater than "
                                        f"max.compaction.lag.ms={high}: Kafka refuses it "
                                        "whatever the cleanup policy")
    if not values.get(REMOTE) or not kafka_configs.at_least(release, "3.6"):
        return
    broker = profile.config if profile is not None else {}
    policy = values.get("cleanup.policy", ["delete"])
    if policy and policy != ["delete"]:
        yield REMOTE, (f"{REMOTE}=true with cleanup.policy={','.join(policy)}: Kafka keeps "
                       "remote storage for topics whose cleanup.policy is delete alone")
    system = broker.get(SYSTEM, None if profile is None or not profile.config_complete
                        else "false")
    if system is not None and kafka_configs.as_text(system).strip().lower() != "true":
        yield REMOTE, (f"{REMOTE}=true on cluster {profile.name}, whose {SYSTEM} is false: "
                       "Kafka refuses remote storage where the brokers have it disabled")
    copy_disabled = values.get(COPY_DISABLE, False) and kafka_configs.at_least(release, "3.9")
    for local, total in LOCAL.items():
        limit = kafka_configs.effective_retention(total, values, broker)[0]
        own = local in values
        value = values[local] if own else kafka_configs.number(
            broker.get(LOCAL_DEFAULTS[local], -2))
        if value is None or value == -2 or limit is None:
            continue
        where = local if own else REMOTE
        inherited = "" if own else f" (from the broker's {LOCAL_DEFAULTS[local]})"
        if limit != -1 and value == -1:
            yield where, (f"{local}=-1{inherited} with {total}={limit}: Kafka refuses an "
                          "unlimited local retention under a limited one")
        elif limit != -1 and value > limit:
            yield where, (f"{local}={value}{inherited} is larger than {total}={limit}: "
                          "Kafka refuses it")
        elif copy_disabled and value != limit:
            yield where, (f"{local}={value}{inherited} differs from {total}={limit} with "
                          f"{COPY_DISABLE}=true: Kafka refuses it (nothing more is copied to "
                          "remote storage)")
    if not kafka_configs.at_least(release, "4.4"):
        return
    for local, total in LOCAL.items():  # KIP-1241: a copy may not lag past the local data
        lag_key = COPY_LAG[local]
        lag = values.get(lag_key)
        if not isinstance(lag, int) or lag <= 0:
            continue
        value = values.get(local, kafka_configs.number(broker.get(LOCAL_DEFAULTS[local], -2)))
        effective = kafka_configs.effective_retention(total, values, broker)[0] \
            if value == -2 else value  # -2: the local retention follows the total one
        if isinstance(effective, int) and effective >= 0 and lag > effective:
            yield lag_key, (f"{lag_key}={lag} is larger than the local retention it may trail "
                            f"({local} {effective}): Kafka {release} refuses it (KIP-1241)")
