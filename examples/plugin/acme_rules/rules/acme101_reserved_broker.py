from policylint.rule import Reads, Rule
from policylint.words import ids


class ReservedBroker(Rule):
    """A replica lives on a reserved broker.

    ## What it does
    Reports each snapshot partition with a replica on one of the brokers of the option
    `reserved` (brokers being drained for decommissioning).

    ## Why is this bad?
    A reserved broker is about to be removed: every replica still on it must be moved
    first, or the partition loses a copy when the broker goes.

    ## Example
    With `reserved: [3]`:
    ```json
    {"partition": 0, "replicas": [1, 3]}
    ```

    ## Use instead
    ```json
    {"partition": 0, "replicas": [1, 2]}
    ```

    ## Options
    - `reserved` (list of broker ids, default `[]`).
    """
    code = "ACME101"
    name = "reserved-broker"
    severity = "warning"
    # the audit runs the Spark form below
    reads = Reads(targets=("snapshot",), spark_frame="partitions")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "reserved": {"type": "array", "items": {"type": "integer"}, "default": []}}}
    message = "partition {topic}-{partition} has replicas {replicas} on reserved brokers"

    def check(self, snapshot, ctx, options):
        reserved = set(options["reserved"])
        on_reserved = reserved.intersection
        for found in ctx.replica_lists(snapshot).failing(on_reserved):
            yield self.finding(self.say(topic=found.topic, partition=found.partition,
                                        replicas=ids(found.replicas)),
                               at=found.where(), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from policylint.spark.expr import ids, one, say
        reserved = F.array(*[F.lit(b) for b in options["reserved"]]).cast("array<int>")
        return one(F.arrays_overlap("replicas", reserved), say(
            self.message, topic=F.col("topic"), partition=F.col("partition"),
            replicas=ids("replicas")))
