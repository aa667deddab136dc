from ...model import Fix
from ...rule import Reads, Rule

MANAGED = ("leader.replication.throttled.replicas", "follower.replication.throttled.replicas")


class OperatorManagedConfig(Rule):
    """A manifest declares the replication throttles that reassignment tooling manages.

    ## What it does
    Reports `leader.replication.throttled.replicas` or
    `follower.replication.throttled.replicas` in a topic manifest, at the key.

    `--fix` removes the throttle keys from the manifest.

    ## Why is this bad?
    `kafka-reassign-partitions.sh` (and Cruise Control) set these while a reassignment
    runs and clear them when it completes. Declared in a manifest, the topic operator puts
    them back: a throttle outlives its reassignment and slows replication for good, or a
    running reassignment loses the throttle it relies on.

    ## Example
    ```yaml
    config:
      leader.replication.throttled.replicas: "*"
    ```

    ## Use instead
    Leave them out of the manifest; throttle with `--throttle` on the reassignment.
    """
    code = "PL606"
    fixable = True
    name = "operator-managed-config"
    severity = "warning"
    reads = Reads(targets=("manifest",))
    message = ("topic {topic}: {key} is set and cleared by reassignment tooling; declared "
               "here, the operator restores it after every reassignment")

    def check(self, target, ctx, options):
        for config in ctx.topic_configs(target):
            for key in MANAGED:
                if key in config.config:
                    finding = self.finding(self.say(topic=config.topic, key=key),
                                           at=config.key_at(key), topic=config.topic)
                    finding.fix = Fix("delete", config.value_at(key))
                    yield finding
