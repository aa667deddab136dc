from ...rule import Reads, Rule
from .cluster_config import over_brokers, where


class DefaultRfExceedsBrokers(Rule):
    """The cluster's default.replication.factor is larger than its broker count.

    ## What it does
    Reports a cluster (a Strimzi `Kafka` resource, with its node pools' broker counts, or
    a snapshot or profile) whose `default.replication.factor` exceeds its number of
    brokers, at the setting.

    ## Why is this bad?
    Every topic created without an explicit replication factor (auto-created topics,
    Kafka Streams and Connect internal topics, `kafka-topics.sh --create` without
    `--replication-factor`) fails with "Replication factor larger than available brokers".

    ## Example
    ```yaml
    kafka:
      replicas: 2
      config:
        default.replication.factor: 3
    ```

    ## Use instead
    ```yaml
    kafka:
      replicas: 3
      config:
        default.replication.factor: 3
    ```
    """
    code = "PL801"
    name = "default-rf-exceeds-brokers"
    severity = "error"
    reads = Reads(targets=("profile",), partitions=False, spark_frame="configs")
    message = ("cluster {cluster}: {setting} but it has {brokers}: topics created with "
               "the default replication factor fail")

    def check(self, profile, ctx, options):
        found = over_brokers(profile, "default.replication.factor")
        if found:
            said, brokers, at = found
            yield self.finding(self.say(cluster=profile.name, setting=said, brokers=brokers),
                               at=where(profile, at))
