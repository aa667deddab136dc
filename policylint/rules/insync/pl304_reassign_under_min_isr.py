from ...kafka import moves_data
from ...rule import Reads, Rule


class ReassignUnderMinIsr(Rule):
    """A plan moves a partition that is below min.insync.replicas.

    ## What it does
    With a snapshot, reports each plan entry that changes the replicas of a partition
    whose ISR is smaller than the topic's effective min.insync.replicas. Partitions
    without ISR in the snapshot are skipped.

    ## Why is this bad?
    The partition already refuses `acks=all` writes. Moving it adds replication load on
    the very replicas that are behind, and removing an in-sync replica can make it
    unavailable or lose its last up-to-date copy. Fix the ISR first.

    ## Example
    min.insync.replicas=2, snapshot `{"partition": 0, "replicas": [1, 2, 3], "isr": [1]}`:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 4, 5]}
    ```

    ## Use instead
    Wait until the ISR has recovered, then move the partition.
    """
    code = "PL304"
    name = "reassign-under-min-isr"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        if ctx.snapshot is None:
            return
        view = ctx.plan_view(plan)
        for i, floor in view.below_min_isr(ctx.min_isr):
            move, state = plan.moves[i], view.states[i]
            if moves_data(move.replicas, state):
                yield self.finding(
                    f"partition {move.topic}-{move.partition} is moved while under "
                    f"min.insync.replicas: ISR {len(state.isr)} of {len(state.replicas)} "
                    f"replicas < min.insync.replicas={floor}", at=plan.where(i, "replicas"),
                    topic=move.topic, partition=move.partition)
