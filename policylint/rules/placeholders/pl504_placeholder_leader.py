from ...kafka import holds_placeholder
from ...rule import Reads, Rule
from ...words import ids


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
    reads = Reads(targets=("snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    message = ("the preferred leader of {topic}-{partition} is placeholder {leader} "
               "(replicas {replicas})")

    def check(self, target, ctx, options):
        for found in ctx.replica_lists(target).failing(holds_placeholder):
            if found.replicas[0] < 0:
                yield self.finding(self.say(topic=found.topic, partition=found.partition,
                                            leader=found.replicas[0],
                                            replicas=ids(found.replicas)),
                                   at=found.where(0), topic=found.topic,
                                   partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import has_placeholder, ids, one, say
        leader = F.element_at("replicas", 1)
        return one(has_placeholder() & (leader < 0), say(
            self.message, topic=F.col("topic"), partition=F.col("partition"), leader=leader,
            replicas=ids("replicas")))
