from ...kafka import ADDING, REMOVING
from ...rule import Reads, Rule
from ...words import count, ids


class ReassignInProgress(Rule):
    """A plan is made while a reassignment is in progress.

    ## What it does
    With a snapshot, reports each plan entry for a partition that has `adding` or
    `removing` replicas: a reassignment is in flight. When other partitions of the cluster
    are reassigning, it also reports the plan itself, once.

    ## Why is this bad?
    `kafka-reassign-partitions.sh --execute` refuses every plan while any reassignment is in
    progress unless run with `--additional` (ReassignPartitionsCommand: "Cannot execute
    because there is an existing partition assignment"); with it, an entry for a reassigning
    partition silently replaces the in-flight target. A plan
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
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        view = ctx.plan_view(plan)
        named = set()
        for i in view.reassigning:
            move, state = plan.moves[i], view.states[i]
            named.add((move.topic, move.partition))
            yield self.finding(
                    f"partition {move.topic}-{move.partition} is already reassigning "
                    f"(adding {ids(state.adding)}, removing {ids(state.removing)}); "
                    "Kafka needs --additional to replace it", at=plan.where(i),
                    topic=move.topic, partition=move.partition)
        others = [key for key in _reassigning(ctx.snapshot) if key not in named]
        if others:
            topic, partition = others[0]
            yield self.finding(
                f"{count(len(others), 'other partition')} of cluster "
                f"{ctx.snapshot.profile.name} {'is' if len(others) == 1 else 'are'} "
                f"reassigning ({topic}-{partition}"
                f"{', ...' if len(others) > 1 else ''}): kafka-reassign-partitions.sh "
                "--execute refuses this plan until they complete, unless run with --additional",
                at=plan.where())


def _reassigning(snapshot) -> list[tuple[str, int]]:
    """(topic, partition) of the snapshot's reassigning partitions, in its order."""
    if snapshot is None:
        return []
    found = []
    for topic in snapshot.topics.values():
        parts = topic.partitions
        if any(map(ADDING, parts)) or any(map(REMOVING, parts)):  # at C speed: the usual none
            found += [(topic.name, p.partition) for p in parts if p.adding or p.removing]
    return found
