"""What the min ISR rules (PL301-PL303) share: their subjects, the form of their message
and their Spark form. Each of them says only when a (RF, minISR) pair breaks it.

A declaration's values come from the topic or from its cluster (``kafka.Stated``): a minISR
the topic inherits is one cause, reported once at the cluster's setting for every topic
that inherits it; a value no input states leaves the topic unchecked. A plan cannot set
minISR: an entry is judged only where its replica count makes the pair break (an RF
change), against the partition's current RF."""

from __future__ import annotations

from itertools import compress, count

from ...kafka import Stated
from ...model import Fix, Plan, Snapshot, TopicSpec
from ...rule import Reads, Rule
from ...words import subject

#: the values an unknown RF or minISR may take that decide every verdict (each rule
#: compares them with each other, with 1, 3 and its option ``min``, never beyond)
_CANDIDATES = range(1, 12)


class MinIsrRule(Rule):
    # one finding at a cluster setting only if every inheritor breaks
    reads = Reads(targets=("manifest", "snapshot", "plan"),
                  needs=frozenset({"rf", "min.insync.replicas"}), spark_frame="topics",
                  weighs_others=True)
    #: how the message gives a snapshot topic's minISR that is Kafka's built-in default
    DEFAULT_OF = ("{min_isr} (Kafka's default: neither the topic nor cluster {cluster} sets "
                  "min.insync.replicas)")
    #: ... and one it inherits from its cluster's broker default
    INHERITED = "{min_isr} (cluster {cluster}'s broker default)"
    #: the message of one cluster setting that several topics inherit: {setting} says it
    #: and where it is written; the topics are listed after it
    cause_message = ""

    @staticmethod
    def breaks(rf, min_isr, options):
        """Numbers in ``check``, columns in the Spark form."""
        raise NotImplementedError

    def effect(self, release: str | None) -> str:
        """What Kafka does with such a topic on ``release`` (None: unknown), where it
        differs between releases (PL301)."""
        return ""


    def check(self, target, ctx, options):
        if isinstance(target, TopicSpec):
            yield from self._declared(target, ctx, options)
        elif isinstance(target, Snapshot):
            yield from self._snapshot(target, ctx, options)
        elif isinstance(target, Plan):
            yield from self._planned(target, ctx, options)

    def _could_break(self, rf: int | None, min_isr: int | None, options) -> bool:
        """Whether some value of the unknown one of the two would break the rule."""
        return any(self.breaks(rf if rf is not None else r,
                               min_isr if min_isr is not None else r, options)
                   for r in _CANDIDATES)

    def _declared(self, topic: TopicSpec, ctx, options):
        rf, min_isr = ctx.declared(topic)
        if rf.value is None or min_isr.value is None:
            if self._could_break(rf.value, min_isr.value, options):
                missing = " and ".join(n for n, v in (("replication factor", rf.value),
                                                      ("min.insync.replicas", min_isr.value))
                                       if v is None)
                ctx.unchecked.add(self.code, topic.where("name"), topic.name,
                                  f"its {missing}, left to its cluster: the cluster's "
                                  "resource or snapshot (--cluster)")
            return
        cause = (self.code,) + min_isr.cause if min_isr.cause is not None else None
        if cause is not None:
            ctx.inheritors[cause] += 1
        if not self.breaks(rf.value, min_isr.value, options):
            return
        release = ctx.kafka_version(topic)
        if cause is not None:  # the cluster's setting: one finding for its topics ...
            own = topic.where("rf") if topic.rf is not None else topic.where("name")
            finding = self.finding(
                self.cause_message.format(
                    cluster=min_isr.cause[0], setting=_said("min.insync.replicas", min_isr),
                    effect=self.effect(release), **options),
                at=own, topic=topic.name)
            finding.cause, finding.cause_at = cause, min_isr.at
            # ... unless some of them meet it: then the topic's own value is the cause
            finding.alone = (self.say(subject=f"topic {topic.name}",
                                      min_isr=_with_source(min_isr), rf=_with_source(rf),
                                      effect=self.effect(release), **options),
                             own, [("min.insync.replicas", min_isr.at)])
            yield finding
            return
        finding = self.finding(
            self.say(subject=f"topic {topic.name}", min_isr=min_isr.value,
                     rf=_with_source(rf), effect=self.effect(release), **options),
            at=min_isr.at, topic=topic.name)
        finding.related = [("replication factor", rf.at)] if rf.at is not None else []
        if self.fixable and "min.insync.replicas" in topic.config:
            finding.fix = _lowered(topic, rf.value, ctx)
        yield finding

    def _snapshot(self, snapshot: Snapshot, ctx, options):
        release = ctx.kafka_version(snapshot)
        name = snapshot.profile.name
        for s in ctx.min_isr_subjects(snapshot, lambda rf, m: self.breaks(rf, m, options)):
            template = self.DEFAULT_OF if s.default else \
                self.INHERITED if s.inherited else "{min_isr}"
            yield self.finding(
                self.say(subject=f"topic {s.topic}",
                         min_isr=template.format(min_isr=s.min_isr, cluster=name), rf=s.rf,
                         effect=self.effect(release), **options),
                at=s.at, topic=s.topic)

    def _planned(self, plan: Plan, ctx, options):
        """Entries whose replica count breaks the rule where the partition's current RF
        did not: the plan makes it true."""
        view = ctx.plan_view(plan)
        release = ctx.kafka_version(plan)
        verdicts: dict[tuple[str, int], Stated | None] = {}  # (topic, RF) -> its minISR
        for topic, rf in view.topic_sizes:
            min_isr = ctx.topic_min_isr(topic)
            if min_isr.value is None:
                verdicts[topic, rf] = None if self._could_break(rf, None, options) else False
            elif self.breaks(rf, min_isr.value, options):
                verdicts[topic, rf] = min_isr
        if not verdicts:
            return
        for i in compress(count(), map(verdicts.__contains__, zip(view.topics, view.sizes))):
            move, rf = plan.moves[i], view.sizes[i]
            min_isr = verdicts[move.topic, rf]
            if min_isr is False:
                continue
            current, source = ctx.entry_rf(plan, i)
            if min_isr is None or current is None:
                ctx.unchecked.add(self.code, plan.where(i, "replicas"), move.topic,
                                  "the topic's min.insync.replicas (its cluster)"
                                  if min_isr is None else "the partition's current RF (a "
                                  "snapshot, --current, or the topic's manifest)")
                continue
            if current == rf or self.breaks(current, min_isr.value, options):
                continue  # the topic's own standing, not the plan's doing
            finding = self.finding(
                self.say(subject=subject(move.topic, move.partition),
                         min_isr=_with_source(min_isr),
                         rf=f"{rf} (the plan's, from {current} in {source})",
                         effect=self.effect(release), **options),
                at=plan.where(i, "replicas"), topic=move.topic, partition=move.partition)
            finding.related = [("min.insync.replicas", min_isr.at)] if min_isr.at else []
            yield finding

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import one, say
        rf, min_isr = F.col("rf_min"), F.col("min_isr")
        said = F.when(F.col("min_isr_default"), say(self.DEFAULT_OF, min_isr=min_isr,
                                                          cluster=F.col("cluster"))) \
            .when(F.col("min_isr_inherited"), say(self.INHERITED, min_isr=min_isr,
                                                  cluster=F.col("cluster"))) \
            .otherwise(min_isr.cast("string"))
        return one(rf.isNotNull() & min_isr.isNotNull() & self.breaks(rf, min_isr, options),
                   say(self.message, subject=F.concat(F.lit("topic "), F.col("topic")),
                       min_isr=said, rf=rf, effect=self.spark_effect(policy), **options))

    def spark_effect(self, policy):
        """``effect`` as a column of the cluster's ``kafka_version``."""
        from pyspark.sql import functions as F
        return F.lit(self.effect(None))


def _with_source(value: Stated) -> str:
    """A value as a message gives it: with where it comes from, unless the subject's own."""
    return f"{value.value}" + (f" ({value.source})" if value.source else "")


def _said(key: str, value: Stated) -> str:
    return f"{key}={value.value} ({value.source})"


def _lowered(topic: TopicSpec, rf: int, ctx) -> Fix | None:
    """min.insync.replicas set to RF - 1, written as the topic wrote it (a number or a
    string); None when that is below the minimum PL303 asks (an RF change is no fix)."""
    from ...registry import find
    floor = max(1, ctx.policy.options(find("PL303"))["min"])
    if rf - 1 < floor:
        return None
    written = topic.config["min.insync.replicas"]
    return Fix("set", topic.config_at("min.insync.replicas"),
               str(rf - 1) if isinstance(written, str) else rf - 1)
