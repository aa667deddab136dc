from itertools import compress, count

from ..kafka import manifest_rf
from ..model import Plan, Snapshot
from ..rule import Rule


class RfBelowMinimum(Rule):
    """A topic's replication factor is below the minimum (2 by default).

    ## What it does
    Reports a topic whose replication factor is below the option `min` (default 2) while
    its cluster has at least `min` brokers, or no broker count is known: a topic manifest
    (as declared, else the cluster's `default.replication.factor`, which the message then
    says), a snapshot topic (its RF), a plan (one finding per topic, at its first entry
    with fewer replicas).

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
    targets = ("manifest", "plan", "snapshot")
    needs = frozenset({"rf"})
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "min": {"type": "integer", "minimum": 1, "default": 2}}}
    message = ("{subject}: replication factor {rf}{origin} is below the minimum of {min}: "
               "losing one broker makes its partitions unavailable and can lose acknowledged "
               "writes")
    spark_frame = "topics"

    def check(self, target, ctx, options):
        floor, profile = options["min"], ctx.profile_for(target)
        if profile is not None and profile.broker_count is not None \
                and profile.broker_count < floor:
            return  # a small cluster cannot do better
        if isinstance(target, Plan):
            view, seen = ctx.plan_view(target), set()
            for i in compress(count(), (size < floor for size in view.sizes)):
                move = target.moves[i]
                if move.topic not in seen:
                    seen.add(move.topic)
                    yield self._finding(f"topic {move.topic}", view.sizes[i], "", options,
                                        target.where(move, "replicas"), move.topic)
        elif isinstance(target, Snapshot):
            for topic in target.topics.values():
                rf = ctx.topic_rf(target, topic)
                if rf is not None and rf < floor:
                    yield self._finding(f"topic {topic.name}", rf, "", options,
                                        topic.where("name"), topic.name)
        else:
            rf = manifest_rf(target, profile)
            if rf is not None and rf < floor:
                origin = "" if target.rf is not None else \
                    " (the cluster's default.replication.factor)"
                yield self._finding(f"topic {target.name}", rf, origin, options,
                                    target.where("rf"), target.name)

    def _finding(self, subject, rf, origin, options, at, topic):
        return self.finding(self.say(subject=subject, rf=rf, origin=origin, **options), at=at,
                            topic=topic)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ..spark.expr import one, say
        rf, floor = F.col("topic_rf"), options["min"]
        return one(rf.isNotNull() & (rf < floor) & (F.col("n_brokers") >= floor), say(
            self.message, subject=F.concat(F.lit("topic "), F.col("topic")), rf=rf, origin="",
            **options))
