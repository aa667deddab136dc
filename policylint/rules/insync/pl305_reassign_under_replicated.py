from ...kafka import moves_data
from ...model import original_replicas
from ...rule import Reads, Rule
from ...words import ids


class ReassignUnderReplicated(Rule):
    """A plan moves a partition that is under-replicated (KIP-352).

    ## What it does
    With a snapshot, reports each plan entry that changes the replicas of a partition
    that is under-replicated exactly as Kafka's brokers compute it since KIP-352:
    `|original replicas| - |ISR| > 0`, where original replicas = replicas - adding. A
    partition that is reassigning is not under-replicated merely because its adding
    replicas are not in the ISR yet. Partitions without ISR in the snapshot are skipped.

    ## Why is this bad?
    A reassignment competes with the catch-up of the lagging replica for the same
    bandwidth, and throttles meant for reassignment traffic slow down the recovery too.

    ## Example
    Snapshot `{"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2]}`:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 4]}
    ```

    ## Use instead
    Let replica 3 rejoin the ISR first, or leave the partition out of this plan.
    """
    code = "PL305"
    name = "reassign-under-replicated"
    severity = "warning"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        view = ctx.plan_view(plan)
        for i in view.lagging:  # most partitions are in sync
            move, state = plan.moves[i], view.states[i]
            original = original_replicas(state)
            if len(original) - len(state.isr) > 0 and moves_data(move.replicas, state):
                yield self.finding(
                    f"partition {move.topic}-{move.partition} is moved while "
                    f"under-replicated: ISR {ids(state.isr)} of replicas "
                    f"{ids(original)}", at=plan.where(i, "replicas"),
                    topic=move.topic, partition=move.partition)
