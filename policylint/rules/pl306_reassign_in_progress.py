from ..rule import Rule
from ..words import ids


class ReassignInProgress(Rule):
    """A plan names a partition that is already reassigning.

    ## What it does
    With a snapshot, reports each plan entry for a partition that has `adding` or
    `removing` replicas: a reassignment is in flight.

    ## Why is this bad?
    `kafka-reassign-partitions.sh` refuses to start a reassignment for such partitions
    unless run with `--additional`, which silently replaces the in-flight target. A plan
    computed from a read taken mid-reassignment is often built on the inflated replica
    set (KIP-860).

    ## Example
    Snapshot `{"partition": 0, "replicas": [1, 2, 3, 4], "adding": [4], "removing": [1]}`:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [2, 3, 5]}
    ```

    ## Use instead
    Wait for the reassignment to complete (`--verify`), or cancel it, then plan again.
    """
    code = "PL306"
    name = "reassign-in-progress"
    severity = "warning"
    targets = ("plan",)

    def check(self, plan, ctx, options):
        view = ctx.plan_view(plan)
        for i in view.reassigning:
            move, state = plan.moves[i], view.states[i]
            yield self.finding(
                    f"partition {move.topic}-{move.partition} is already reassigning "
                    f"(adding {ids(state.adding)}, removing {ids(state.removing)}); "
                    "Kafka needs --additional to replace it", at=plan.where(move),
                    topic=move.topic, partition=move.partition)
