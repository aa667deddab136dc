from ...kafka import holds_placeholder
from ...rule import Reads, Rule
from ...words import ids


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
    reads = Reads(targets=("snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    message = "placeholders {held} of {topic}-{partition} should be {expected}"

    def check(self, target, ctx, options):
        for found in ctx.replica_lists(target).failing(holds_placeholder):
            held = [r for r in found.replicas if r < 0]
            expected = range(-1, -len(held) - 1, -1)
            if len(set(held)) != len(held) or set(held) != set(expected):
                yield self.finding(self.say(held=ids(held), topic=found.topic,
                                            partition=found.partition, expected=ids(expected)),
                                   at=found.where(), topic=found.topic,
                                   partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import has_placeholder, ids, one, say
        held = F.filter("replicas", lambda r: r < 0)
        n = F.size(held)
        well_formed = ((F.size(F.array_distinct(held)) == n) & (F.array_min(held) == -n)
                       & (F.array_max(held) == -1))
        return one(has_placeholder() & ~well_formed, say(
            self.message, held=ids(held), topic=F.col("topic"), partition=F.col("partition"),
            expected=ids(F.sequence(F.lit(-1), -n, F.lit(-1)))))
