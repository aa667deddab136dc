from ..rule import Rule
from .kafka import fmt_ids


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
        for move in plan.moves:
            if move.replicas and min(move.replicas) < 0:
                yield self.finding(f"replicas {fmt_ids(move.replicas)} of {move.topic}-"
                                   f"{move.partition} target placeholder ids: Kafka rejects "
                                   "negative broker ids in a reassignment",
                                   at=plan.where(move, "replicas"), topic=move.topic,
                                   partition=move.partition)
