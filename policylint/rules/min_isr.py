"""What the min ISR rules (PL301-PL303) share: their subjects, the form of their message
and their Spark form. Each of them says only when a (RF, minISR) pair breaks it."""

from ..rule import Rule
from ..words import subject


class MinIsrRule(Rule):
    targets = ("manifest", "snapshot", "plan")
    spark_frame = "topics"

    @staticmethod
    def breaks(rf, min_isr, options):
        """Numbers in ``check``, columns in the Spark form."""
        raise NotImplementedError

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
