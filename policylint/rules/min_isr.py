"""What the min ISR rules (PL301-PL303) share: their subjects, the form of their message
and their Spark form. Each of them says only when a (RF, minISR) pair breaks it."""

from ..model import Fix, TopicSpec
from ..rule import Rule
from ..words import subject


class MinIsrRule(Rule):
    targets = ("manifest", "snapshot", "plan")
    needs = frozenset({"rf", "min.insync.replicas"})
    spark_frame = "topics"
    #: on plans too, one finding per topic (at its first entry) rather than per partition
    topic_level = False
    #: how the message gives a minISR that is Kafka's built-in default
    DEFAULT = ("{min_isr} (Kafka's default: neither the topic nor a cluster profile sets "
               "min.insync.replicas; give the cluster with --cluster)")
    #: ... when the topic's cluster is known and does not set it
    DEFAULT_OF = ("{min_isr} (Kafka's default: neither the topic nor cluster {cluster} sets "
                  "min.insync.replicas)")

    @staticmethod
    def breaks(rf, min_isr, options):
        """Numbers in ``check``, columns in the Spark form."""
        raise NotImplementedError

    #: whether --fix lowers the topic's own minISR to RF - 1 (never below PL303's minimum)
    fixable = False

    def check(self, target, ctx, options):
        seen = set()
        for s in ctx.min_isr_subjects(target, lambda rf, m: self.breaks(rf, m, options)):
            partition = None if self.topic_level else s.partition
            if partition is None and s.topic in seen:
                continue
            seen.add(s.topic)
            min_isr = s.min_isr if s.default is None else \
                self.DEFAULT_OF.format(min_isr=s.min_isr, cluster=s.default) if s.default \
                else self.DEFAULT.format(min_isr=s.min_isr)
            finding = self.finding(self.say(subject=subject(s.topic, partition),
                                            min_isr=min_isr, rf=s.rf, **options),
                                   at=s.at, topic=s.topic, partition=partition)
            if self.fixable and isinstance(target, TopicSpec) and \
                    "min.insync.replicas" in target.config:
                finding.fix = _lowered(target, s.rf, ctx)
            yield finding

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ..spark.expr import one, say
        rf, min_isr = F.col("rf_min"), F.col("min_isr")
        said = F.when(F.col("min_isr_default"), say(self.DEFAULT_OF, min_isr=min_isr,
                                                          cluster=F.col("cluster"))) \
            .otherwise(min_isr.cast("string"))
        return one(rf.isNotNull() & min_isr.isNotNull() & self.breaks(rf, min_isr, options),
                   say(self.message, subject=F.concat(F.lit("topic "), F.col("topic")),
                       min_isr=said, rf=rf, **options))


def _lowered(topic: TopicSpec, rf: int, ctx) -> Fix | None:
    """min.insync.replicas set to RF - 1, written as the topic wrote it (a number or a
    string); None when that is below the minimum PL303 asks (an RF change is no fix)."""
    from ..registry import find
    floor = max(1, ctx.policy.options(find("PL303"))["min"])
    if rf - 1 < floor:
        return None
    written = topic.config["min.insync.replicas"]
    return Fix("set", topic.config_at("min.insync.replicas"),
               str(rf - 1) if isinstance(written, str) else rf - 1)
