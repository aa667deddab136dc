from ..rule import Rule


class DuplicatePartition(Rule):
    """The same topic-partition appears twice in a plan, or in two plans linted together.

    ## What it does
    Reports every entry after the first that names a topic-partition already named by an
    entry of the same plan or of another plan in the same run.

    ## Why is this bad?
    Kafka refuses a plan with duplicates ("Partition reassignment contains duplicate
    topic partitions"); two plans that move the same partition race each other.

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
    targets = ("run",)

    def check(self, ctx, _, options):
        if _all_distinct(ctx):
            return
        seen: dict = {}
        for plan in ctx.plans:
            for move in plan.moves:
                first = seen.setdefault(move[:2], (plan, move))
                if first[1] is move:
                    continue
                where = "earlier in this plan" if first[0] is plan else \
                    f"also in {first[0].doc.source.name}"
                yield self.finding(
                    f"partition {move.topic}-{move.partition} is reassigned twice "
                    f"(entry {first[1].index + 1} {where})",
                    at=plan.where(move), topic=move.topic, partition=move.partition)


def _all_distinct(ctx) -> bool:
    """The common case, decided a topic at a time at C speed: plans list a topic's entries
    together, and each topic-partition once. (False: look closer.)"""
    topics: set[str] = set()
    for plan in ctx.plans:
        view = ctx.plan_view(plan)
        for topic, start, stop in view.runs:
            if topic in topics or len(set(view.partitions[start:stop])) != stop - start:
                return False
            topics.add(topic)
    return True
