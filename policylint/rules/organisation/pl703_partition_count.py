from ...model import Snapshot
from ...rule import Reads, Rule


class PartitionCount(Rule):
    """A topic's partition count is outside the policy's bounds.

    ## What it does
    Off until the policy sets `min` or `max`. Then reports a manifest whose declared
    partitions, or a snapshot topic whose partition count, is outside [`min`, `max`], at
    the count (a manifest that leaves partitions to the broker default is not judged).

    ## Why is this bad?
    Too few partitions cap a topic's consumers and throughput, and partitions can never be
    removed later; too many cost every broker memory, file handles and failover time.

    ## Example
    ```yaml
    # policy: rules: {partition-count: {min: 3, max: 100}}
    spec:
      partitions: 1000
    ```

    ## Use instead
    ```yaml
    spec:
      partitions: 48
    ```

    ## Options
    - `min` (integer, default none), `max` (integer, default none).
    """
    code = "PL703"
    name = "partition-count"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), needs=frozenset({"partitions"}),
                  spark_frame="names")
    message = "topic {topic}: {count} partitions, {bound}"
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "min": {"type": ["integer", "null"], "minimum": 1, "default": None},
        "max": {"type": ["integer", "null"], "minimum": 1, "default": None}}}

    def applies(self, options):
        return options["min"] is not None or options["max"] is not None

    def check(self, target, ctx, options):
        lo, hi = options["min"], options["max"]
        if isinstance(target, Snapshot):
            counts = [(t.name, len(t.partitions), t.where("partitions"))
                      for t in target.topics.values() if not t.name.startswith("__")]
        else:
            counts = [(target.name, target.partitions, target.where("partitions"))] \
                if target.partitions is not None and target.partitions > 0 else []
        for topic, count, at in counts:
            if lo is not None and count < lo:
                bound = f"fewer than the policy minimum {lo}"
            elif hi is not None and count > hi:
                bound = f"more than the policy maximum {hi}"
            else:
                continue
            yield self.finding(self.say(topic=topic, count=count, bound=bound), at=at,
                               topic=topic)

    def spark(self, options, policy):
        """The topics out of bounds (Kafka's internal ones left out)."""
        from pyspark.sql import functions as F
        count, lo, hi = F.col("partitions"), options["min"], options["max"]
        out = (count < lo if lo is not None else F.lit(False)) | \
            (count > hi if hi is not None else F.lit(False))
        return ~F.col("topic").startswith("__") & out
