from ... import kafka_configs
from .min_isr import MinIsrRule


class MinIsrExceedsRf(MinIsrRule):
    """min.insync.replicas is larger than the replication factor.

    ## What it does
    Compares the effective min.insync.replicas (the topic's, else its cluster's broker
    default, else Kafka's default 1 where the cluster is among the inputs and does not set
    it) with the replication factor: of a declaration (topic-level, RF as declared, else
    the cluster's `default.replication.factor`); of a snapshot topic, its smallest current
    RF (topic-level); of a plan entry, its replica count, only where the plan makes it
    true (an RF change from a current RF that did not break it).

    A minISR that topics inherit from their cluster is one finding, at the cluster's
    `min.insync.replicas`, naming every topic that inherits it; a topic that sets its own
    keeps its own finding, at its `min.insync.replicas`. A value no input states (the
    cluster is not among the inputs) leaves the topic unchecked, counted in the summary.

    `--fix` lowers a manifest's own `min.insync.replicas` to RF - 1 when that is not below
    PL303's `min`; never the RF, and nothing in plans or snapshots.

    ## Why is this bad?
    Kafka itself accepts such a topic: CreateTopics and IncrementalAlterConfigs take a
    `min.insync.replicas` above the replication factor on every release from 3.3 to 4.4
    (asked of running clusters by `bench/kafka_oracle.py`). The finding is policylint's
    judgement of what follows, not a refusal. What happens depends on the cluster's
    release, which the message names when an input says it (the cluster's
    `kafka_version`, Strimzi's `spec.kafka.version`, the policy's `kafka_version` or
    `--kafka-version`):
    - before Kafka 3.7, every produce with `acks=all` fails with NotEnoughReplicas
      (KAFKA-4680, KIP-579), retried until it times out;
    - from Kafka 3.7, the broker uses min(min.insync.replicas, replicas) (KAFKA-15583): the
      topic behaves as minISR = RF, so every `acks=all` write needs every replica in sync
      and one broker down (every rolling restart) blocks writes.
    Kafka accepts the config either way; nothing warns until producers stall.

    ## Example
    ```yaml
    spec:
      replicas: 2
      config:
        min.insync.replicas: 3
    ```

    ## Use instead
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 2
    ```
    """
    code = "PL301"
    name = "min-isr-exceeds-rf"
    fixable = True
    severity = "error"
    message = "{subject}: min.insync.replicas={min_isr} > replication factor {rf}: {effect}"
    cause_message = ("cluster {cluster}: {setting} is above the replication factor of the "
                     "topics that inherit it: {effect}")
    #: what Kafka does, before 3.7 and from 3.7 (KAFKA-15583)
    FAILS = "every acks=all produce fails (NotEnoughReplicas)"
    BLOCKS = ("the broker caps min.insync.replicas at the replication factor: every acks=all "
              "write needs every replica in sync, and one broker down blocks writes")

    @staticmethod
    def breaks(rf, min_isr, options):
        return min_isr > rf

    def effect(self, release):
        if release is None:
            return f"on Kafka 3.7 and later {self.BLOCKS}; before 3.7 {self.FAILS}"
        if kafka_configs.at_least(release, "3.7"):
            return f"on Kafka {release} {self.BLOCKS}"
        return f"on Kafka {release} {self.FAILS}"

    def spark_effect(self, policy):
        from pyspark.sql import functions as F
        version = F.coalesce(F.col("kafka_version"), F.lit(policy.kafka_version)
                             .cast("string")) if policy.kafka_version is not None \
            else F.col("kafka_version")
        major = F.regexp_extract(version, r"^\D*(\d+)", 1)
        minor = F.regexp_extract(version, r"^\D*\d+\D+(\d+)", 1)
        number = major.cast("int") * 1000 + F.coalesce(minor.cast("int"), F.lit(0))
        return F.when((version.isNull()) | (major == ""), F.lit(self.effect(None))) \
            .when(number >= 3007, F.concat(F.lit("on Kafka "), version,
                                           F.lit(f" {self.BLOCKS}"))) \
            .otherwise(F.concat(F.lit("on Kafka "), version, F.lit(f" {self.FAILS}")))
