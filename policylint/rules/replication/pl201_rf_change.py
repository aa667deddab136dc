from ...rule import Reads, Rule


class RfChange(Rule):
    """A reassignment changes a partition's replication factor.

    ## What it does
    Compares each plan entry's replica count with the partition's current replication
    factor, taken from the first baseline found: the snapshot (KIP-860: for a partition
    already reassigning, the size of its in-flight target, `replicas - removing`), else the
    `--current` assignment JSON, else the RF declared by the topic's manifest (in diff mode
    the manifest at the base ref, else the one in the same run). Partitions with no
    baseline are counted in the summary as unchecked. Allowed for topics in the policy's
    `allow.rf_change` and with `--allow-rf-change`.

    ## Why is this bad?
    Tools that read replica sets with `describeTopics` during a reassignment see the
    intermediate union of old and new replicas and write it back as the new assignment,
    silently raising the replication factor (KIP-860). Kafka 4.1's
    `--disallow-replication-factor-change` refuses such plans; policylint catches them
    before they are executed on any version.

    ## Example
    With `orders-0` on replicas [1, 2, 3]:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3, 4]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 4]}
    ```
    """
    code = "PL201"
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "rf-change"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        allowed: dict[str, bool] = {}
        # only entries whose size differs from the snapshot's RF, or that it lacks, can fail
        for i in ctx.plan_view(plan).resized():
            move = plan.moves[i]
            topic = move.topic
            ok = allowed.get(topic)
            if ok is None:
                ok = allowed[topic] = ctx.allows_rf_change(topic)
            if ok:
                continue
            rf, source = ctx.entry_rf(plan, i)
            if rf is None:
                ctx.unchecked.add(self.code, plan.where(i, "replicas"), topic,
                                  "the partition's current RF (a snapshot, --current, or "
                                  "the topic's manifest)")
            elif len(move.replicas) != rf:
                yield self.finding(
                    f"partition {topic}-{move.partition}: replication factor is changed from "
                    f"{rf} to {len(move.replicas)} (current RF from {source}; if intended, "
                    "allow it with allow.rf_change in the policy or --allow-rf-change)",
                    at=plan.where(i, "replicas"), topic=topic, partition=move.partition)
