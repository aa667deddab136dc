from ...rule import Reads, Rule


class EmptyReassignment(Rule):
    """A reassignment plan has no partitions.

    ## What it does
    Reports a reassignment plan whose `partitions` list is empty.

    ## Why is this bad?
    `kafka-reassign-partitions.sh` refuses an empty plan ("Partition reassignment list
    cannot be empty"); an empty plan in a pull request is almost always a generation step
    that silently failed.

    ## Example
    ```json
    {"version": 1, "partitions": []}
    ```

    ## Use instead
    ```json
    {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}]}
    ```
    """
    code = "PL110"
    name = "empty-reassignment"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        if not plan.entries:
            yield self.finding("reassignment plan has no partitions", at=plan.where())
