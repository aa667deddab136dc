from ..rule import Rule
from .kafka import fmt_ids, where_replicas, with_placeholders


class PlaceholderLeader(Rule):
    """A placeholder is the preferred leader.

    ## What it does
    Reports a partition whose first replica (its preferred leader) is a placeholder.

    ## Why is this bad?
    A placeholder is not a broker: preferred leader election can never move leadership to
    it, so the partition stays led by whichever replica happens to lead, and leader
    balancing tools keep trying.

    ## Example
    ```json
    {"partition": 0, "replicas": [-1, 1, 2]}
    ```

    ## Use instead
    ```json
    {"partition": 0, "replicas": [1, 2, -1]}
    ```
    """
    code = "PL504"
    name = "placeholder-leader"
    severity = "error"
    targets = ("snapshot", "manifest")

    def check(self, target, ctx, options):
        for topic, partition, replicas, owner, item, _ in with_placeholders(target, ctx):
            if replicas[0] < 0:
                doc, path = where_replicas(owner, item)
                yield self.finding(f"the preferred leader of {topic}-{partition} is placeholder "
                                   f"{replicas[0]} (replicas {fmt_ids(replicas)})",
                                   at=(doc, path + (0,)), topic=topic, partition=partition)
