from ..rule import Rule
from .kafka import fmt_ids, with_placeholders


class PlaceholderInReassignment(Rule):
    """A reassignment plan targets a placeholder replica.

    ## What it does
    Reports each reassignment entry with a negative replica id.

    ## Why is this bad?
    Kafka rejects negative broker ids in reassignments, with or without KIP-409:
    placeholders can only be created by topic or partition creation, never moved to.

    ## Example
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, -1]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}
    ```
    """
    code = "PL505"
    name = "placeholder-in-reassignment"
    severity = "error"
    targets = ("plan",)

    def check(self, plan, ctx, options):
        for topic, partition, replicas, _, move, _ in with_placeholders(plan, ctx):
            yield self.finding(f"replicas {fmt_ids(replicas)} of {topic}-{partition} target "
                               "placeholder ids: Kafka rejects negative broker ids in a "
                               "reassignment", at=plan.where(move, "replicas"), topic=topic,
                               partition=partition)
