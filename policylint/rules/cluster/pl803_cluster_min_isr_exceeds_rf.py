from ...rule import Reads, Rule
from .cluster_config import said, setting, where

PAIRS = (("min.insync.replicas", "default.replication.factor",
          "acks=all writes to topics created with the defaults fail"),
         ("transaction.state.log.min.isr", "transaction.state.log.replication.factor",
          "transactions cannot commit"))


class ClusterMinIsrExceedsRf(Rule):
    """A cluster's default min.insync.replicas is larger than its default replication factor.

    ## What it does
    Reports a cluster whose broker `min.insync.replicas` exceeds its
    `default.replication.factor`, or whose `transaction.state.log.min.isr` exceeds
    `transaction.state.log.replication.factor` (Kafka's defaults count where a key is not
    set), at the min ISR setting.

    ## Why is this bad?
    A topic created with the defaults can never have enough in-sync replicas: every
    `acks=all` write is refused with NotEnoughReplicas; for the transaction log, no
    transaction can commit.

    ## Example
    ```yaml
    config:
      default.replication.factor: 2
      min.insync.replicas: 3
    ```

    ## Use instead
    ```yaml
    config:
      default.replication.factor: 3
      min.insync.replicas: 2
    ```
    """
    code = "PL803"
    name = "cluster-min-isr-exceeds-rf"
    severity = "error"
    reads = Reads(targets=("profile",), partitions=False, spark_frame="configs")
    message = "cluster {cluster}: {min_isr} is greater than {rf}: {effect}"

    def check(self, profile, ctx, options):
        for min_key, rf_key, effect in PAIRS:
            min_isr, min_at = setting(profile, min_key)
            rf, rf_at = setting(profile, rf_key)
            if min_isr is None or rf is None or min_isr <= rf:
                continue
            yield self.finding(self.say(cluster=profile.name, effect=effect,
                                        min_isr=said(min_key, min_isr, min_at),
                                        rf=said(rf_key, rf, rf_at)),
                               at=where(profile, min_at or rf_at))
