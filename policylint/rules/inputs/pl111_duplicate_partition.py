from ...rule import Reads, Rule


class DuplicatePartition(Rule):
    """The same topic-partition appears twice in one plan.

    ## What it does
    Reports every entry after the first that names a topic-partition already named by an
    entry of the same plan file. Two plan files may name the same partition: a plan and
    the rollback file the Kafka tool tells you to keep sit side by side.

    ## Why is this bad?
    Kafka refuses a plan with duplicates ("Partition reassignment contains duplicate
    topic partitions"), and which of the two lists was meant is anyone's guess.

    ## Example
    ```json
    {"version": 1, "partitions": [
      {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]},
      {"topic": "orders", "partition": 0, "replicas": [4, 5, 6]}]}
    ```

    ## Use instead
    ```json
    {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [4, 5, 6]}]}
    ```
    """
    code = "PL111"
    name = "duplicate-partition"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        if _all_distinct(ctx.plan_view(plan)):
            return
        seen: dict = {}
        for i, move in enumerate(plan.moves):
            first = seen.setdefault((move.topic, move.partition), i)
            if first != i:
                yield self.finding(
                    f"partition {move.topic}-{move.partition} is reassigned twice in this plan "
                    f"(first at entry {plan.index(first) + 1})",
                    at=plan.where(i), topic=move.topic, partition=move.partition)


def _all_distinct(view) -> bool:
    """The common case, decided a topic at a time at C speed: a plan lists a topic's entries
    together, and each topic-partition once. (False: look closer.)"""
    topics: set[str] = set()
    for topic, start, stop in view.runs:
        if topic in topics or len(set(view.partitions[start:stop])) != stop - start:
            return False
        topics.add(topic)
    return True
