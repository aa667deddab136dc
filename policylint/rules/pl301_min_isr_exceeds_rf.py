from ..rule import Rule
from ..words import subject


class MinIsrExceedsRf(Rule):
    """min.insync.replicas is larger than the replication factor.

    ## What it does
    Compares the effective min.insync.replicas (the topic's, else the broker default,
    else 1) with the replication factor: of a manifest as declared (topic-level); of a
    snapshot topic, its smallest current RF (topic-level); of a plan entry, its replica
    count (per partition).

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
    severity = "error"
    targets = ("manifest", "snapshot", "plan")
    message = ("{subject}: min.insync.replicas={min_isr} > replication factor {rf}: every "
               "acks=all produce will fail")
    spark_frame = "topics"

    @staticmethod
    def breaks(rf, min_isr, options):  # numbers in check, columns in the Spark form
        return min_isr > rf

    def check(self, target, ctx, options):
        for s in ctx.min_isr_subjects(target, lambda rf, m: self.breaks(rf, m, options)):
            yield self.finding(self.say(subject=subject(s.topic, s.partition),
                                        min_isr=s.min_isr, rf=s.rf, **options),
                               at=s.at, topic=s.topic, partition=s.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ..spark.expr import one, say
        rf, min_isr = F.col("rf_min"), F.col("min_isr")
        return one(rf.isNotNull() & min_isr.isNotNull() & self.breaks(rf, min_isr, options),
                   say(self.message, subject=F.concat(F.lit("topic "), F.col("topic")),
                       min_isr=min_isr, rf=rf, **options))
