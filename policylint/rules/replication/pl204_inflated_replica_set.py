from ...model import Plan, is_reassigning, target_replicas
from ...rule import Reads, Rule
from ...words import ids


class InflatedReplicaSet(Rule):
    """A replica set looks inflated by an in-flight reassignment (the KIP-860 race).

    ## What it does
    Snapshot: reports a partition with more replicas than its topic's replication factor
    but no `adding`/`removing` information: a `describeTopics` read taken during a
    reassignment, which shows the union of old and new replicas. The topic's RF is the
    most common replica count of its non-reassigning partitions (ties: the smallest), as
    the cluster holds it: a manifest linted in the same run that declares another RF for
    every partition is drift between the declaration and the cluster (PL202), not a torn
    read. It also reports a partition that `policylint snapshot`
    marked `uncertain`: the capture read it again and again and still saw its reassignment
    state change, or metadata that disagreed with the controller's.

    Plan: reports an entry whose replica count equals the union size of the partition's
    in-flight reassignment in the snapshot and differs from its target size: the plan
    would make the intermediate replication factor permanent; an entry that keeps the size
    of a replica set the snapshot shows inflated (more replicas than its topic's RF, no
    reassignment stated); and an entry for a partition the snapshot marks `uncertain`,
    whose replicas are no safe baseline. `policylint plan` leaves all of these out.

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
    reads = Reads(targets=("snapshot", "plan"), spark_frame="partitions")
    message = ("partition {topic}-{partition} has {n} replicas {replicas} but topic {topic} has "
               "replication factor {rf}, and the snapshot has no adding/removing replicas: "
               "probably read during a reassignment (KIP-860)")
    plan_message = ("partition {topic}-{partition}: the plan gives it {n} replicas, as many "
                    "as the in-flight union {replicas} of its reassignment, not the {target} "
                    "of its target: it would make the intermediate replication factor "
                    "permanent (KIP-860)")
    kept_message = ("partition {topic}-{partition}: the plan keeps its {n} replicas, as many "
                    "as the snapshot's {replicas}, more than topic {topic}'s replication factor "
                    "{rf} with no reassignment stated: probably an in-flight union, which the "
                    "plan would make permanent; capture again once the reassignment completes "
                    "(KIP-860)")
    uncertain_message = ("partition {topic}-{partition}: the capture could not read it "
                         "consistently ({why}): its replicas {replicas} may be an in-flight "
                         "union; capture again once reassignments settle (KIP-860)")

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            yield from self._plan(target, ctx)
            return
        for topic in target.topics.values():
            rf = ctx.topic_rf(target, topic)
            for p in topic.partitions:
                if p.uncertain:
                    yield self.finding(
                        self.uncertain_message.format(topic=topic.name, partition=p.partition,
                                                      why=p.uncertain, replicas=ids(p.replicas)),
                        at=topic.where_partition(p, "uncertain"), topic=topic.name,
                        partition=p.partition)
                elif rf is not None and len(p.replicas) > rf and not is_reassigning(p):
                    yield self.finding(
                        self.say(topic=topic.name, partition=p.partition, n=len(p.replicas),
                                 replicas=ids(p.replicas), rf=rf),
                        at=topic.where_partition(p, "replicas"), topic=topic.name,
                        partition=p.partition)

    def _plan(self, plan, ctx):
        view = ctx.plan_view(plan)
        for i in view.uncertain:
            move, state = plan.moves[i], view.states[i]
            yield self.finding(
                self.uncertain_message.format(topic=move.topic, partition=move.partition,
                                              why=state.uncertain, replicas=ids(state.replicas)),
                at=plan.where(i, "replicas"), topic=move.topic, partition=move.partition)
        snapshot = ctx.snapshot
        if snapshot is not None:
            uncertain = set(view.uncertain)

            def rf(name: str) -> int | None:
                topic = snapshot.topics.get(name)
                return None if topic is None else ctx.topic_rf(snapshot, topic)

            for i in view.inflated(rf):
                move, state = plan.moves[i], view.states[i]
                if i not in uncertain and len(move.replicas) == len(state.replicas):
                    yield self.finding(
                        self.kept_message.format(
                            topic=move.topic, partition=move.partition, n=len(move.replicas),
                            replicas=ids(state.replicas), rf=rf(move.topic)),
                        at=plan.where(i, "replicas"), topic=move.topic,
                        partition=move.partition)
        for i in view.reassigning:
            move, state = plan.moves[i], view.states[i]
            n, target = len(move.replicas), len(target_replicas(state))
            if n == len(state.replicas) and n != target:
                yield self.finding(
                    self.plan_message.format(topic=move.topic, partition=move.partition, n=n,
                                             replicas=ids(state.replicas), target=target),
                    at=plan.where(i, "replicas"), topic=move.topic,
                    partition=move.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import ids, one, say
        n, rf, why = F.size("replicas"), F.col("topic_rf"), F.col("uncertain")
        fields = dict(topic=F.col("topic"), partition=F.col("partition"),
                      replicas=ids("replicas"))
        return one(why.isNotNull() | rf.isNotNull() & (n > rf) & ~F.col("reassigning"),
                   F.when(why.isNotNull(), say(self.uncertain_message, why=why, **fields))
                   .otherwise(say(self.message, n=n, rf=rf, **fields)))
