from .min_isr import MinIsrRule


class MinIsrExceedsRf(MinIsrRule):
    """min.insync.replicas is larger than the replication factor.

    ## What it does
    Compares the effective min.insync.replicas (the topic's, else the broker default,
    else 1) with the replication factor: of a manifest as declared (topic-level); of a
    snapshot topic, its smallest current RF (topic-level); of a plan entry, its replica
    count (per partition).

    `--fix` lowers a manifest's own `min.insync.replicas` to RF - 1 when that is not below
    PL303's `min`; never the RF, and nothing in plans or snapshots.

    ## Why is this bad?
    Every produce with `acks=all` fails with NotEnoughReplicas (KAFKA-4680, KIP-579),
    retried until it times out. Kafka chose not to reject such configs; on Kafka >= 3.7
    minISR is silently capped to RF, so one broker down blocks all writes.

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
    message = ("{subject}: min.insync.replicas={min_isr} > replication factor {rf}: every "
               "acks=all produce will fail")

    @staticmethod
    def breaks(rf, min_isr, options):
        return min_isr > rf
