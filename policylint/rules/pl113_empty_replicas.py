from ..rule import Rule
from .kafka import lists_failing, where_replicas


class EmptyReplicas(Rule):
    """A replica list is empty.

    ## What it does
    Reports a reassignment entry, snapshot partition or explicit assignment with no
    replicas at all.

    ## Why is this bad?
    Kafka refuses an empty replica list in a reassignment ("empty replica list"); a
    partition without replicas holds no data and cannot be led.

    ## Example
    ```json
    {"topic": "orders", "partition": 0, "replicas": []}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}
    ```
    """
    code = "PL113"
    name = "empty-replicas"
    severity = "error"
    targets = ("plan", "snapshot", "manifest")

    def check(self, target, ctx, options):
        for topic, partition, _, owner, item, _ in lists_failing(target, ctx, _empty):
            yield self.finding(f"partition {topic}-{partition} has an empty replica list",
                               at=where_replicas(owner, item), topic=topic, partition=partition)


def _empty(replicas: tuple[int, ...]) -> bool:
    return not replicas
