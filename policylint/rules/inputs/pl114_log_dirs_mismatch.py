from ...rule import Reads, Rule


class LogDirsMismatch(Rule):
    """`log_dirs` is present and its length differs from `replicas`.

    ## What it does
    Reports a reassignment entry whose `log_dirs` list does not have one entry per
    replica. `"any"` is the per-replica default and counts like any other entry.

    ## Why is this bad?
    `kafka-reassign-partitions.sh` refuses the plan ("Length of replicas and log_dirs
    should be identical").

    ## Example
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3], "log_dirs": ["any", "any"]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3], "log_dirs": ["any", "any", "any"]}
    ```
    """
    code = "PL114"
    name = "log-dirs-mismatch"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        for i in ctx.plan_view(plan).log_dirs_mismatched():
            move = plan.moves[i]
            yield self.finding(
                f"partition {move.topic}-{move.partition} has {len(move.replicas)} "
                f"replicas but {len(move.log_dirs)} log_dirs (use \"any\" for each "
                "replica without a preference)", at=plan.where(i, "log_dirs"),
                topic=move.topic, partition=move.partition)
