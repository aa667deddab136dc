from ..rule import Rule
from ..words import subject


class MinIsrEqualsRf(Rule):
    """min.insync.replicas equals the replication factor (RF > 1).

    ## What it does
    Reports a topic (manifest or snapshot) or plan entry whose effective
    min.insync.replicas equals its replication factor, when the RF is above 1.

    ## Why is this bad?
    No replica may ever be out of sync: a single broker restart (every rolling restart)
    blocks all `acks=all` producers of the topic.

    ## Example
    ```yaml
    spec:
      replicas: 3
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
    code = "PL302"
    name = "min-isr-equals-rf"
    severity = "warning"
    targets = ("manifest", "snapshot", "plan")
    message = ("{subject}: min.insync.replicas={min_isr} equals the replication factor {rf}: one "
               "broker down blocks acks=all producers")
    spark_frame = "topics"

    @staticmethod
    def breaks(rf, min_isr, options):  # numbers in check, columns in the Spark form
        return (min_isr == rf) & (rf > 1)

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
