from collections import Counter

from ..model import Plan
from ..rule import Rule
from .kafka import after_plan, current_rfs


class InconsistentRf(Rule):
    """Partitions of one topic have different replication factors.

    ## What it does
    Within a snapshot, reports a topic whose partitions do not all have the same current
    replication factor (the target size for a reassigning partition). With a plan and a
    snapshot, applies the plan to the snapshot and reports each topic the plan leaves
    inconsistent, at the plan's first entry for that topic.

    ## Why is this bad?
    A topic's replication factor is a per-partition fact in Kafka. Mixed RFs usually come
    from a partial or raced reassignment; the Strimzi topic operator then skips the topic
    and stops reconciling it.

    ## Example
    ```json
    {"name": "orders", "partitions": [
      {"partition": 0, "replicas": [1, 2, 3]},
      {"partition": 1, "replicas": [1, 2]}]}
    ```

    ## Use instead
    ```json
    {"name": "orders", "partitions": [
      {"partition": 0, "replicas": [1, 2, 3]},
      {"partition": 1, "replicas": [1, 2, 3]}]}
    ```
    """
    code = "PL205"
    name = "inconsistent-rf"
    severity = "warning"
    targets = ("snapshot", "plan")

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            yield from self._plan(target, ctx)
            return
        for topic in target.topics.values():
            rfs = Counter(current_rfs(topic.partitions))
            if len(rfs) > 1:
                yield self.finding(f"partitions of topic {topic.name} have different "
                                   f"replication factors: {_shares(rfs)}",
                                   at=topic.where("name"), topic=topic.name)

    def _plan(self, plan, ctx):
        if ctx.snapshot is None:
            return
        for name, replica_lists, first in after_plan(plan, ctx):
            rfs = Counter(map(len, replica_lists))
            if len(rfs) > 1:
                yield self.finding(f"after this plan, partitions of topic {name} would have "
                                   f"different replication factors: {_shares(rfs)}",
                                   at=plan.where(first), topic=name)


def _shares(rfs: Counter) -> str:
    return ", ".join(f"RF {rf} ({n} partition{'s' if n != 1 else ''})"
                     for rf, n in sorted(rfs.items()))
