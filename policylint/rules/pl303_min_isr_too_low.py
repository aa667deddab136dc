from ..rule import Rule
from ..words import subject


class MinIsrTooLow(Rule):
    """min.insync.replicas is below `min` on a topic with RF >= 3.

    ## What it does
    Reports a topic (manifest or snapshot) or plan entry with a replication factor of 3
    or more whose effective min.insync.replicas is below the option `min` (default 2).

    ## Why is this bad?
    With min.insync.replicas=1 an `acks=all` write is acknowledged by the leader alone;
    if that broker fails before followers catch up, acknowledged writes are lost despite
    the three copies the topic pays for.

    ## Example
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 1
    ```

    ## Use instead
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 2
    ```

    ## Options
    - `min` (integer, default 2): the lowest acceptable min.insync.replicas.
    """
    code = "PL303"
    name = "min-isr-too-low"
    severity = "warning"
    targets = ("manifest", "snapshot", "plan")
    message = ("{subject}: min.insync.replicas={min_isr} with replication factor {rf}: "
               "acknowledged writes may be lost (policy minimum is {min})")
    options_schema = {"type": "object", "additionalProperties": False,
                      "properties": {"min": {"type": "integer", "minimum": 1, "default": 2}}}
    spark_frame = "topics"

    @staticmethod
    def breaks(rf, min_isr, options):  # numbers in check, columns in the Spark form
        return (rf >= 3) & (min_isr < options["min"])

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
