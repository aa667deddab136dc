from ..rule import Rule
from .kafka import effective_min_isr, fmt_ids, profile_of, where_replicas, with_placeholders


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
    targets = ("snapshot", "manifest")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "max_per_partition": {"type": ["integer", "null"], "minimum": 0, "default": None}}}

    def check(self, target, ctx, options):
        if not ctx.policy.placeholders_enabled:
            return
        profile = profile_of(target, ctx)
        limit = options["max_per_partition"]
        for topic, partition, replicas, owner, item, _ in with_placeholders(target, ctx):
            real = sum(1 for r in replicas if r >= 0)
            held = len(replicas) - real
            needed = min(effective_min_isr(owner.config, profile), len(replicas))
            if real < needed:
                problem = (f"have {real} real replica{'s' if real != 1 else ''}, fewer than "
                           f"min(min.insync.replicas, RF) = {needed}")
            elif limit is not None and held > limit:
                problem = f"hold {held} placeholders, more than max_per_partition={limit}"
            else:
                continue
            yield self.finding(f"replicas {fmt_ids(replicas)} of {topic}-{partition} {problem}",
                               at=where_replicas(owner, item), topic=topic, partition=partition)
