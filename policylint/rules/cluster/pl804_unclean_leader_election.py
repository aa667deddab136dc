from ... import kafka_configs
from ...model import ClusterProfile
from ...rule import Reads, Rule

KEY = "unclean.leader.election.enable"


class UncleanLeaderElection(Rule):
    """Unclean leader election is enabled on a cluster or a topic.

    ## What it does
    Reports `unclean.leader.election.enable=true` in a cluster's broker settings (a
    `Kafka` resource, a snapshot or profile) or in a topic's config (manifest or snapshot
    topic), at the value.

    ## Why is this bad?
    When every in-sync replica is down, an out-of-sync replica may become leader: the
    partition comes back sooner, but the writes it had not replicated, acknowledged to
    their producers, are gone, and consumers may see offsets go back.

    ## Example
    ```yaml
    config:
      unclean.leader.election.enable: true
    ```

    ## Use instead
    ```yaml
    config:
      unclean.leader.election.enable: false
    ```
    """
    code = "PL804"
    name = "unclean-leader-election"
    severity = "warning"
    reads = Reads(targets=("profile", "manifest", "snapshot"), partitions=False,
                  spark_frame="configs")
    message = ("{subject}: unclean.leader.election.enable=true: an out-of-sync replica may "
               "become leader and acknowledged writes are lost")

    def check(self, target, ctx, options):
        if isinstance(target, ClusterProfile):
            if _enabled(target.config.get(KEY)) and target.doc is not None:
                yield self.finding(self.say(subject=f"cluster {target.name}"),
                                   at=(target.doc, target.config_path + (KEY,)))
            return
        for config in ctx.topic_configs(target):
            if _enabled(config.config.get(KEY)):
                yield self.finding(self.say(subject=f"topic {config.topic}"),
                                   at=config.value_at(KEY), topic=config.topic)


def _enabled(value) -> bool:
    return value is not None and kafka_configs.as_text(value).strip().lower() == "true"
