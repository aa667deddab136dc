from ...rule import Reads, Rule
from .cluster_config import said, setting, where
from .pl802_internal_topic_rf_exceeds_brokers import INTERNAL


class InternalTopicRfTooLow(Rule):
    """The replication factor of Kafka's internal topics is lower than the cluster allows.

    ## What it does
    Reports a cluster of two or more brokers whose `offsets.topic.replication.factor` or
    `transaction.state.log.replication.factor` is below min(3, its broker count), at the
    setting. Kafka's default (3) never is.

    ## Why is this bad?
    Kafka creates `__consumer_offsets` and `__transaction_state` once, with these factors,
    and never raises them by itself. With one replica, one broker down makes every consumer
    group on it lose its coordinator and its committed offsets are unreadable; transactions
    whose coordinator sits there block. A value lowered for a single-broker development
    cluster is often copied into a three-broker one.

    ## Example
    ```yaml
    kafka:
      replicas: 3
      config:
        offsets.topic.replication.factor: 1
    ```

    ## Use instead
    ```yaml
    kafka:
      replicas: 3
      config:
        offsets.topic.replication.factor: 3
        transaction.state.log.replication.factor: 3
    ```
    """
    code = "PL805"
    name = "internal-topic-rf-too-low"
    severity = "warning"
    reads = Reads(targets=("profile",), partitions=False, spark_frame="configs")
    message = ("cluster {cluster}: {setting} with {brokers} brokers: {topic} has fewer "
               "replicas than it could; {down} down {effect}")

    def check(self, profile, ctx, options):
        count = profile.broker_count
        if count is None or count < 2:
            return
        for key, topic, effect in INTERNAL:
            value, at = setting(profile, key)
            if value is not None and 0 < value < min(3, count):
                yield self.finding(self.say(cluster=profile.name, setting=said(key, value, at),
                                            brokers=count, topic=topic, effect=_DOWN[key],
                                            down="one broker" if value == 1 else
                                            f"{value} brokers"),
                                   at=where(profile, at))


_DOWN = {"offsets.topic.replication.factor":
         "and the consumer groups whose offsets it held cannot commit or read them until it "
         "returns (a lost disk loses them)",
         "transaction.state.log.replication.factor":
         "and the transactions it coordinated block until it returns"}
