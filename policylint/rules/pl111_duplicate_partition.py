from operator import itemgetter

from ..rule import Rule

_KEY = itemgetter(0, 1)


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
        keys = [list(map(_KEY, plan.moves)) for plan in ctx.plans]
        if len(set().union(*keys)) == sum(map(len, keys)):
            return  # the common case, decided at C speed
        seen: dict = {}
        for plan, plan_keys in zip(ctx.plans, keys):
            for key, move in zip(plan_keys, plan.moves):
                first = seen.setdefault(key, (plan, move))
                if first[1] is move:
                    continue
                where = "earlier in this plan" if first[0] is plan else \
                    f"also in {first[0].doc.source.name}"
                yield self.finding(
                    f"partition {move.topic}-{move.partition} is reassigned twice "
                    f"(entry {first[1].index + 1} {where})",
                    at=plan.where(move), topic=move.topic, partition=move.partition)
