from itertools import compress, count

from ... import platforms
from ...model import Plan, Snapshot
from ...rule import Reads, Rule


class RfBelowMinimum(Rule):
    """A topic's replication factor is below the minimum (2 by default).

    ## What it does
    Reports a topic whose replication factor is below the option `min` (default 2) while
    its cluster has at least `min` brokers, or no broker count is known: a declaration's
    own RF, at its line; a snapshot topic's RF; a plan entry that brings a partition's RF
    below the minimum from a current RF at or above it (one finding per topic, at its
    first such entry). A declaration whose platform decides its RF (Aiven Inkless takes a
    diskless topic's as 1) is the platform's to judge (PL609), not this rule's.

    Declarations that set no RF inherit their cluster's `default.replication.factor`, or
    Kafka's default 1 where the cluster is among the inputs and does not set it: that is
    one finding, at the cluster's setting (or the cluster), naming every topic that
    inherits it. When the topic's cluster is not among the inputs, its RF is unknown: the
    topic is counted as unchecked, and the summary says what input would let it be
    checked.

    ## Why is this bad?
    With one replica, losing one broker makes the partition unavailable until the broker
    returns, and a lost disk loses acknowledged writes for good. Kafka creates such topics
    without a word when `default.replication.factor` is left at 1.

    ## Example
    On a cluster of three brokers:
    ```yaml
    spec:
      partitions: 6
      replicas: 1
    ```

    ## Use instead
    ```yaml
    spec:
      partitions: 6
      replicas: 3
    ```

    ## Options
    - `min` (integer, default 2): the lowest acceptable replication factor.
    """
    code = "PL209"
    name = "rf-below-minimum"
    severity = "warning"
    reads = Reads(targets=("manifest", "plan", "snapshot"), needs=frozenset({"rf"}),
                  spark_frame="topics")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "min": {"type": "integer", "minimum": 1, "default": 2}}}
    message = ("{subject}: replication factor {rf} is below the minimum of {min}: "
               "losing one broker makes its partitions unavailable and can lose acknowledged "
               "writes")
    cause_message = ("cluster {cluster}: replication factor {rf} ({source}) is below the "
                     "minimum of {min} for the topics that set none: losing one broker "
                     "makes their partitions unavailable and can lose acknowledged writes")

    def check(self, target, ctx, options):
        floor, profile = options["min"], ctx.profile_for(target)
        if profile is not None and profile.broker_count is not None \
                and profile.broker_count < floor:
            return  # a small cluster cannot do better
        if isinstance(target, Plan):
            yield from self._planned(target, ctx, floor, options)
        elif isinstance(target, Snapshot):
            for topic in target.topics.values():
                rf = ctx.topic_rf(target, topic)
                if rf is not None and rf < floor:
                    yield self._finding(f"topic {topic.name}", rf, options,
                                        topic.where("name"), topic.name)
        else:
            if platforms.decided_rf(platforms.of(ctx.policy, target), target.config):
                return  # the platform takes this RF (Inkless' diskless topics: 1), PL609's
            rf = ctx.declared(target)[0]
            if rf.value is None:
                ctx.unchecked.add(self.code, target.where("name"), target.name,
                                  "its replication factor, left to its cluster's "
                                  "default.replication.factor: the cluster (--cluster)")
            elif rf.value < floor:
                if rf.cause is None:  # the topic's own
                    yield self._finding(f"topic {target.name}", rf.value, options, rf.at,
                                        target.name)
                    return
                finding = self.finding(self.cause_message.format(
                    cluster=rf.cause[0], rf=rf.value, source=rf.source, **options),
                    at=target.where("name"), topic=target.name)
                finding.cause, finding.cause_at = (self.code,) + rf.cause, rf.at
                yield finding

    def _planned(self, plan, ctx, floor, options):
        """Entries that bring a partition's RF below the minimum: from a current RF at or
        above it (the plan makes it true); an unknown current RF is unchecked."""
        view, seen = ctx.plan_view(plan), set()
        for i in compress(count(), (size < floor for size in view.sizes)):
            move = plan.moves[i]
            if move.topic in seen:
                continue
            current, source = ctx.entry_rf(plan, i)
            if current is None:
                ctx.unchecked.add(self.code, plan.where(i, "replicas"), move.topic,
                                  "the partition's current RF (a snapshot, --current, or "
                                  "the topic's manifest)")
            elif current >= floor:
                seen.add(move.topic)
                yield self._finding(
                    f"topic {move.topic}", f"{view.sizes[i]} (the plan's, from {current} in "
                    f"{source})", options, plan.where(i, "replicas"), move.topic)

    def _finding(self, subject, rf, options, at, topic):
        return self.finding(self.say(subject=subject, rf=rf, **options), at=at,
                            topic=topic)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import one, say
        rf, floor = F.col("topic_rf"), options["min"]
        return one(rf.isNotNull() & (rf < floor) & (F.col("n_brokers") >= floor), say(
            self.message, subject=F.concat(F.lit("topic "), F.col("topic")), rf=rf,
            **options))
