from ..rule import Rule
from .kafka import fmt_ids, where_replicas, with_placeholders


class PlaceholderMalformed(Rule):
    """Placeholder ids of a partition are not exactly -1..-k.

    ## What it does
    Reports a partition whose placeholder ids are not distinct, or are not exactly
    -1, -2, ..., -k for k placeholders. They are compared as a set: [1, -2, -1] is
    well formed.

    ## Why is this bad?
    KIP-409 numbers the missing replicas -1, -2, -3; the controller fills them in that
    order as brokers join. Repeated or skipped ids mean the assignment was edited by hand
    or written by a tool that does not implement the proposal.

    ## Example
    ```json
    {"partition": 0, "replicas": [1, -1, -1]}
    ```

    ## Use instead
    ```json
    {"partition": 0, "replicas": [1, -1, -2]}
    ```
    """
    code = "PL503"
    name = "placeholder-malformed"
    severity = "error"
    targets = ("snapshot", "manifest")

    def check(self, target, ctx, options):
        for topic, partition, replicas, owner, item, _ in with_placeholders(target, ctx):
            held = [r for r in replicas if r < 0]
            if len(set(held)) != len(held) or set(held) != set(range(-1, -len(held) - 1, -1)):
                yield self.finding(f"placeholders {fmt_ids(held)} of {topic}-{partition} "
                                   f"should be {fmt_ids(range(-1, -len(held) - 1, -1))}",
                                   at=where_replicas(owner, item), topic=topic,
                                   partition=partition)
