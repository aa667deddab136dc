from ...rule import Reads, Rule


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
    reads = Reads(targets=("plan", "snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    message = "partition {topic}-{partition} has an empty replica list"

    def check(self, target, ctx, options):
        for found in ctx.replica_lists(target).failing(lambda replicas: not replicas):
            yield self.finding(self.say(topic=found.topic, partition=found.partition),
                               at=found.where(), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import one, say
        return one(F.size("replicas") == 0, say(self.message, topic=F.col("topic"),
                                                 partition=F.col("partition")))
