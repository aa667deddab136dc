from collections import Counter

from ..rule import Rule
from .kafka import fmt_ids, lists_failing, where_replicas


class DuplicateReplica(Rule):
    """A replica list names a broker more than once.

    ## What it does
    Reports a replica list (of a reassignment entry, a snapshot partition or an explicit
    assignment) in which a broker id appears twice. Repeated placeholder ids are left to
    PL503.

    ## Why is this bad?
    Kafka refuses such an assignment ("contains duplicate broker ids"); a partition cannot
    have two replicas on one broker.

    ## Example
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 1]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}
    ```
    """
    code = "PL112"
    name = "duplicate-replica"
    severity = "error"
    targets = ("plan", "snapshot", "manifest")

    def check(self, target, ctx, options):
        for topic, partition, replicas, owner, item, twice in lists_failing(
                target, ctx, _named_twice):
            yield self.finding(
                f"replicas {fmt_ids(replicas)} of {topic}-{partition} name broker"
                f"{'s' if len(twice) > 1 else ''} {', '.join(map(str, twice))} more than "
                "once", at=where_replicas(owner, item), topic=topic, partition=partition)


def _named_twice(replicas: tuple[int, ...]) -> list[int]:
    """Brokers a list names more than once (repeated placeholders are PL503's)."""
    if len(set(replicas)) == len(replicas):
        return []
    return sorted(b for b, n in Counter(replicas).items() if n > 1 and b >= 0)
