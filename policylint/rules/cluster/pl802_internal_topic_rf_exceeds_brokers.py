from ...rule import Reads, Rule
from .cluster_config import over_brokers, where

INTERNAL = (("offsets.topic.replication.factor", "__consumer_offsets",
             "consumer groups cannot commit or even join"),
            ("transaction.state.log.replication.factor", "__transaction_state",
             "transactional producers hang"))


class InternalTopicRfExceedsBrokers(Rule):
    """The replication factor of Kafka's internal topics is larger than the broker count.

    ## What it does
    Reports a cluster whose `offsets.topic.replication.factor` or
    `transaction.state.log.replication.factor` (Kafka's default: 3 each) exceeds its
    number of brokers, at the setting (or at the cluster's settings when the default
    applies).

    ## Why is this bad?
    Kafka creates `__consumer_offsets` and `__transaction_state` on first use with these
    factors and refuses while there are fewer brokers: consumers cannot find a group
    coordinator and hang, transactional producers never initialise. A one- or two-broker
    cluster needs them lowered.

    ## Example
    ```yaml
    kafka:
      replicas: 1
      config: {}
    ```

    ## Use instead
    ```yaml
    kafka:
      replicas: 1
      config:
        offsets.topic.replication.factor: 1
        transaction.state.log.replication.factor: 1
        transaction.state.log.min.isr: 1
    ```
    """
    code = "PL802"
    name = "internal-topic-rf-exceeds-brokers"
    severity = "error"
    reads = Reads(targets=("profile",), partitions=False, spark_frame="configs")
    message = ("cluster {cluster}: {setting} but it has {brokers}: {topic} cannot be created "
               "and {effect}")

    def check(self, profile, ctx, options):
        for key, topic, effect in INTERNAL:
            found = over_brokers(profile, key)
            if found:
                said, brokers, at = found
                yield self.finding(self.say(cluster=profile.name, setting=said,
                                            brokers=brokers, topic=topic, effect=effect),
                                   at=where(profile, at))
