import math

from ..rule import Rule
from .kafka import fmt_ids, lists_failing, profile_of, rack_counts, where_replicas


class RackSpread(Rule):
    """A partition's replicas do not spread over racks.

    ## What it does
    Checks the replicas of each reassignment entry, snapshot partition (its target
    replicas) and explicit manifest assignment against the racks of the cluster profile.
    Mode `strict` (default): the replicas must use min(RF, number of racks) distinct
    racks. Mode `even`: no rack may hold more than ceil(RF / number of racks) replicas.
    Placeholders, unknown brokers and brokers without a rack never count as a rack.
    Skipped when no broker has a rack.

    ## Why is this bad?
    Replicas that share a rack (an availability zone) share its failures: losing one zone
    can take all in-sync copies of a partition, and with them availability or data.

    ## Example
    Brokers 1, 2 in rack a, broker 3 in rack b:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 3]}
    ```

    ## Options
    - `mode` (`strict` or `even`, default `strict`).
    """
    code = "PL401"
    name = "rack-spread"
    severity = "error"
    targets = ("plan", "snapshot", "manifest")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "mode": {"enum": ["strict", "even"], "default": "strict"}}}

    def check(self, target, ctx, options):
        profile = profile_of(target, ctx)
        if profile is None or not profile.brokers:
            return
        racks = profile.brokers
        n_racks = len(profile.racks)
        if not n_racks:
            return
        strict = options["mode"] == "strict"
        for topic, partition, replicas, owner, item, problem in lists_failing(
                target, ctx, lambda replicas: self._problem(replicas, racks, n_racks, strict),
                final=True):
            yield self.finding(f"replicas {fmt_ids(replicas)} of {topic}-{partition} {problem}",
                               at=where_replicas(owner, item), topic=topic, partition=partition)

    @staticmethod
    def _problem(replicas, racks, n_racks, strict) -> str | None:
        counts = rack_counts(replicas, racks)
        rf = len(replicas)
        if strict:
            wanted = min(rf, n_racks)
            if len(counts) < wanted:
                used = ", ".join(sorted(counts)) or "none"
                return (f"span {len(counts)} rack{'s' if len(counts) != 1 else ''} ({used}); "
                        f"RF {rf} with {n_racks} racks in the cluster needs {wanted}")
            return None
        ceiling = math.ceil(rf / n_racks)
        rack, most = max(counts.items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
        if most > ceiling:
            return (f"put {most} replicas in rack {rack}; with RF {rf} over {n_racks} racks "
                    f"no rack should hold more than {ceiling}")
        return None
