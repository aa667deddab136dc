from ...kafka import holds_placeholder
from ...rule import Reads, Rule
from ...words import ids


class PlaceholderNotAllowed(Rule):
    """A placeholder replica appears while placeholders are not enabled.

    ## What it does
    Reports a snapshot partition or explicit manifest assignment with a negative replica
    id (a KIP-409 placeholder) when the policy does not set `placeholders.enabled: true`.

    ## Why is this bad?
    Placeholders stand for replicas that do not exist yet: the partition has fewer copies
    than its replication factor says. KIP-409 is a draft; unless a cluster runs with it
    on purpose, a negative id is a bug in whatever wrote the assignment.

    ## Example
    ```json
    {"partition": 0, "replicas": [1, 2, -1]}
    ```

    ## Use instead
    ```json
    {"partition": 0, "replicas": [1, 2, 3]}
    ```
    or enable the KIP-409 mode (`extends: kip409` or `placeholders: {enabled: true}`).
    """
    code = "PL501"
    name = "placeholder-not-allowed"
    severity = "error"
    reads = Reads(targets=("snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    message = ("replicas {replicas} of {topic}-{partition} hold placeholder ids, but "
               "placeholders (KIP-409) are not enabled")

    def check(self, target, ctx, options):
        if ctx.policy.placeholders_enabled:
            return
        for found in ctx.replica_lists(target).failing(holds_placeholder):
            yield self.finding(self.say(replicas=ids(found.replicas), topic=found.topic,
                                        partition=found.partition),
                               at=found.where(), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import has_placeholder, ids, one, say
        return one(F.lit(not policy.placeholders_enabled) & has_placeholder(), say(
            self.message, replicas=ids("replicas"), topic=F.col("topic"),
            partition=F.col("partition")))
