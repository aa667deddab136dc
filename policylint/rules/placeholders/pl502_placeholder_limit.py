from ...kafka import effective_min_isr, holds_placeholder
from ...rule import Reads, Rule
from ...words import ids, plural


class PlaceholderLimit(Rule):
    """Too few real replicas (or too many placeholders) in a partition.

    ## What it does
    With placeholders enabled, reports a partition whose real replicas (ids >= 0) are
    fewer than min(effective min.insync.replicas, RF), where RF counts every replica id,
    placeholders included; or whose placeholder count exceeds the option
    `max_per_partition`, when set.

    ## Why is this bad?
    KIP-409 lets a topic be created under-replicated only while enough real replicas
    exist to accept `acks=all` writes; below min(min.insync.replicas, RF) the partition
    cannot take them.

    ## Example
    min.insync.replicas=2:
    ```json
    {"partition": 0, "replicas": [1, -1, -2]}
    ```

    ## Use instead
    ```json
    {"partition": 0, "replicas": [1, 2, -1]}
    ```

    ## Options
    - `max_per_partition` (integer or null, default null): the most placeholders one
      partition may hold.
    """
    code = "PL502"
    name = "placeholder-limit"
    severity = "error"
    reads = Reads(targets=("snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="partitions")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "max_per_partition": {"type": ["integer", "null"], "minimum": 0, "default": None}}}
    message = "replicas {replicas} of {topic}-{partition} {problem}"
    too_few = "have {real} real {replicas}, fewer than min(min.insync.replicas, RF) = {needed}"
    too_many = "hold {held} placeholders, more than max_per_partition={max_per_partition}"

    def check(self, target, ctx, options):
        if not ctx.policy.placeholders_enabled:
            return
        profile = ctx.profile_for(target)
        limit = options["max_per_partition"]
        for found in ctx.replica_lists(target).failing(holds_placeholder):
            replicas = found.replicas
            real = sum(1 for r in replicas if r >= 0)
            held = len(replicas) - real
            needed = min(effective_min_isr(found.owner.config, profile), len(replicas))
            if real < needed:
                problem = self.too_few.format(real=real, replicas=plural(real, "replica"),
                                              needed=needed)
            elif limit is not None and held > limit:
                problem = self.too_many.format(held=held, **options)
            else:
                continue
            yield self.finding(self.say(replicas=ids(replicas), topic=found.topic,
                                        partition=found.partition, problem=problem),
                               at=found.where(), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import has_placeholder, ids, one, plural, say
        limit = options["max_per_partition"]
        real = F.size(F.filter("replicas", lambda r: r >= 0))
        held = F.size("replicas") - real
        needed = F.least(F.col("min_isr"), F.size("replicas"))
        too_few = real < needed
        problem = F.when(too_few, say(self.too_few, real=real, replicas=plural(real, "replica"),
                                      needed=needed))
        broken = too_few
        if limit is not None:
            problem = problem.when(held > limit, say(self.too_many, held=held, **options))
            broken = too_few | (held > limit)
        return one(F.lit(policy.placeholders_enabled) & has_placeholder() & broken, say(
            self.message, replicas=ids("replicas"), topic=F.col("topic"),
            partition=F.col("partition"), problem=problem))
