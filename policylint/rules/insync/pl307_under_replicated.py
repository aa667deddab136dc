from ...kafka import lagging
from ...model import original_replicas
from ...rule import Reads, Rule
from ...words import ids


class UnderReplicated(Rule):
    """A snapshot partition is under-replicated (KIP-352).

    ## What it does
    Reports a snapshot partition for which `|replicas - adding| - |ISR| > 0`: a replica
    that was assigned before any in-flight reassignment is out of sync. Replicas being
    added by a reassignment do not count. Partitions without ISR are skipped.

    ## Why is this bad?
    The partition has fewer up-to-date copies than its replication factor promises; one
    more failure may make it unavailable or lose acknowledged writes.

    ## Example
    ```json
    {"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2]}
    ```

    ## Use instead
    Investigate broker 3 (disk, network, replica fetcher lag) until it rejoins the ISR:
    ```json
    {"partition": 0, "replicas": [1, 2, 3], "isr": [1, 2, 3]}
    ```
    """
    code = "PL307"
    name = "under-replicated"
    severity = "warning"
    reads = Reads(targets=("snapshot",), spark_frame="partitions")
    message = "partition {topic}-{partition} is under-replicated: ISR {isr} of replicas {original}"

    def check(self, snapshot, ctx, options):
        for topic in snapshot.topics.values():
            for p in lagging(topic.partitions):  # most partitions are in sync
                original = original_replicas(p)
                if len(original) > len(p.isr):
                    yield self.finding(
                        self.say(topic=topic.name, partition=p.partition, isr=ids(p.isr),
                                 original=ids(original)),
                        at=topic.where_partition(p, "isr"), topic=topic.name,
                        partition=p.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import ids, one, say
        original = F.expr("IF(size(adding) > 0, "
                          "filter(replicas, r -> NOT array_contains(adding, r)), replicas)")
        return one(F.col("isr").isNotNull() & (F.size(original) > F.size("isr")), say(
            self.message, topic=F.col("topic"), partition=F.col("partition"), isr=ids("isr"),
            original=ids(original)))
