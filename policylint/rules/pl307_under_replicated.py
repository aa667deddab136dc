from ..model import original_replicas
from ..rule import Rule
from .kafka import fmt_ids, lagging


class UnderReplicated(Rule):
    """A snapshot partition is under-replicated (KIP-352).

    ## What it does
    Reports a snapshot partition for which `|replicas - adding| - |ISR| > 0`: a replica
    that was assigned before any in-flight reassignment is out of sync. Replicas being
    added by a reassignment do not count. Partitions without ISR are skipped.

    ## Why is this bad?
    The partition has fewer up-to-date copies than its replication factor promises; one
    more failure may make it unavailable or lose acknowledged writes.

    ## Example
    ```json
    {"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2]}
    ```

    ## Use instead
    Investigate broker 3 (disk, network, replica fetcher lag) until it rejoins the ISR:
    ```json
    {"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2, 3]}
    ```
    """
    code = "PL307"
    name = "under-replicated"
    severity = "warning"
    targets = ("snapshot",)

    def check(self, snapshot, ctx, options):
        for topic in snapshot.topics.values():
            for p in lagging(topic.partitions):  # most partitions are in sync
                original = original_replicas(p) if p.adding else p.replicas
                if len(original) > len(p.isr):
                    yield self.finding(
                        f"partition {topic.name}-{p.partition} is under-replicated: ISR "
                        f"{fmt_ids(p.isr)} of replicas {fmt_ids(original)}",
                        at=topic.where_partition(p, "isr"), topic=topic.name,
                        partition=p.partition)
