from ..model import Plan, is_reassigning, target_replicas
from ..rule import Rule
from ..words import ids


class InflatedReplicaSet(Rule):
    """A replica set looks inflated by an in-flight reassignment (the KIP-860 race).

    ## What it does
    Snapshot: reports a partition with more replicas than its topic's replication factor
    but no `adding`/`removing` information: a `describeTopics` read taken during a
    reassignment, which shows the union of old and new replicas. The topic's RF is the
    one its manifest declares in the same run, else the most common replica count of its
    non-reassigning partitions.

    Plan: reports an entry whose replica count equals the union size of the partition's
    in-flight reassignment in the snapshot and differs from its target size: the plan
    would make the intermediate replication factor permanent.

    ## Why is this bad?
    A tool that trusts such a read "preserves" an RF that was never intended and doubles
    the partition's storage and replication traffic (KIP-860).

    ## Example
    Snapshot of a topic with RF 3:
    ```json
    {"partition": 0, "replicas": [1, 2, 3, 4, 5, 6], "isr": [1, 2, 3, 4, 5, 6]}
    ```

    ## Use instead
    Take snapshots with `adding`/`removing` from `listPartitionReassignments`, or after
    the reassignment completed:
    ```json
    {"partition": 0, "replicas": [4, 5, 6], "isr": [4, 5, 6]}
    ```
    """
    code = "PL204"
    name = "inflated-replica-set"
    severity = "error"
    targets = ("snapshot", "plan")
    message = ("partition {topic}-{partition} has {n} replicas {replicas} but topic {topic} has "
               "replication factor {rf}, and the snapshot has no adding/removing replicas: "
               "probably read during a reassignment (KIP-860)")
    plan_message = ("partition {topic}-{partition}: the plan gives it {n} replicas, as many "
                    "as the in-flight union {replicas} of its reassignment, not the {target} "
                    "of its target: it would make the intermediate replication factor "
                    "permanent (KIP-860)")
    spark_frame = "partitions"

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            yield from self._plan(target, ctx)
            return
        for topic in target.topics.values():
            rf = ctx.topic_rf(target, topic)
            if rf is None:
                continue
            for p in topic.partitions:
                if len(p.replicas) > rf and not is_reassigning(p):
                    yield self.finding(
                        self.say(topic=topic.name, partition=p.partition, n=len(p.replicas),
                                 replicas=ids(p.replicas), rf=rf),
                        at=topic.where_partition(p, "replicas"), topic=topic.name,
                        partition=p.partition)

    def _plan(self, plan, ctx):
        view = ctx.plan_view(plan)
        for i in view.reassigning:
            move, state = plan.moves[i], view.states[i]
            n, target = len(move.replicas), len(target_replicas(state))
            if n == len(state.replicas) and n != target:
                yield self.finding(
                    self.plan_message.format(topic=move.topic, partition=move.partition, n=n,
                                             replicas=ids(state.replicas), target=target),
                    at=plan.where(move, "replicas"), topic=move.topic,
                    partition=move.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ..spark.expr import ids, one, say
        n, rf = F.size("replicas"), F.col("topic_rf")
        return one(rf.isNotNull() & (n > rf) & ~F.col("reassigning"), say(
            self.message, topic=F.col("topic"), partition=F.col("partition"), n=n,
            replicas=ids("replicas"), rf=rf))
