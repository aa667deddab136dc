from collections import Counter

from ...rule import Reads, Rule
from ...words import ids, plural


class DuplicateReplica(Rule):
    """A replica list names a broker more than once.

    ## What it does
    Reports a replica list (of a reassignment entry, a snapshot partition or an explicit
    assignment) in which a broker id appears twice. Repeated placeholder ids are left to
    PL503.

    ## Why is this bad?
    Kafka refuses such an assignment ("contains duplicate broker ids"); a partition cannot
    have two replicas on one broker.

    ## Example
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 1]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}
    ```
    """
    code = "PL112"
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "duplicate-replica"
    severity = "error"
    reads = Reads(targets=("plan", "snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    message = "replicas {replicas} of {topic}-{partition} name {brokers} more than once"

    def check(self, target, ctx, options):
        for found in ctx.replica_lists(target).failing(named_twice):
            twice = found.verdict
            brokers = f"{plural(len(twice), 'broker')} {', '.join(map(str, twice))}"
            yield self.finding(self.say(replicas=ids(found.replicas), topic=found.topic,
                                        partition=found.partition, brokers=brokers),
                               at=found.where(), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import ids, one, plural, say
        twice = F.expr("array_sort(filter(array_distinct(replicas), "
                       "b -> b >= 0 AND size(filter(replicas, x -> x = b)) > 1))")
        n = F.size(twice)
        brokers = F.concat(plural(n, "broker"), F.lit(" "),
                           F.array_join(twice.cast("array<string>"), ", "))
        return one(n > 0, say(self.message, replicas=ids("replicas"), topic=F.col("topic"),
                               partition=F.col("partition"), brokers=brokers))


def named_twice(replicas: tuple[int, ...]) -> list[int]:
    """Brokers a list names more than once (repeated placeholders are PL503's)."""
    if len(set(replicas)) == len(replicas):
        return []
    return sorted(b for b, n in Counter(replicas).items() if n > 1 and b >= 0)
