from itertools import compress, repeat
from operator import gt

from ..model import Plan, is_reassigning, target_replicas
from ..rule import Rule
from .kafka import StateColumns, fmt_ids, manifest_rf, replica_counts, snapshot_topic_rf


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

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            yield from self._plan(target, ctx)
            return
        for topic in target.topics.values():
            spec = ctx.manifest(topic.name)
            rf = snapshot_topic_rf(topic, None if spec is None else
                                   manifest_rf(spec, target.profile))
            if rf is None:
                continue
            larger = compress(topic.partitions, map(gt, replica_counts(topic.partitions),
                                                    repeat(rf)))
            for p in larger:
                if not is_reassigning(p):
                    yield self.finding(
                        f"partition {topic.name}-{p.partition} has {len(p.replicas)} replicas "
                        f"{fmt_ids(p.replicas)} but topic {topic.name} has replication factor "
                        f"{rf}, and the snapshot has no adding/removing replicas: probably "
                        "read during a reassignment (KIP-860)",
                        at=topic.where_partition(p, "replicas"), topic=topic.name,
                        partition=p.partition)

    def _plan(self, plan, ctx):
        states = ctx.states(plan)
        for i in ctx.shared(StateColumns, states).reassigning:
            move, state = plan.moves[i], states[i]
            n, target = len(move.replicas), len(target_replicas(state))
            if n == len(state.replicas) and n != target:
                yield self.finding(
                    f"partition {move.topic}-{move.partition}: the plan's {n} replicas match "
                    f"the in-flight union {fmt_ids(state.replicas)}, not the target of "
                    f"{target}: it would make the intermediate replication factor permanent "
                    "(KIP-860)", at=plan.where(move, "replicas"), topic=move.topic,
                    partition=move.partition)
