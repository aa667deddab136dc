from ...rule import Reads, Rule
from ...kafka import holds_placeholder
from ...words import ids


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
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "placeholder-in-reassignment"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        for found in ctx.replica_lists(plan).failing(holds_placeholder):
            yield self.finding(f"replicas {ids(found.replicas)} of {found.topic}-"
                               f"{found.partition} target placeholder ids: Kafka rejects "
                               "negative broker ids in a reassignment", at=found.where(),
                               topic=found.topic, partition=found.partition)
