from ..rule import Rule
from .kafka import fmt_ids, where_replicas, with_placeholders


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
    targets = ("snapshot", "manifest")

    def check(self, target, ctx, options):
        if ctx.policy.placeholders_enabled:
            return
        for topic, partition, replicas, owner, item, _ in with_placeholders(target, ctx):
            yield self.finding(f"replicas {fmt_ids(replicas)} of {topic}-{partition} hold "
                               "placeholder ids, but placeholders (KIP-409) are not enabled",
                               at=where_replicas(owner, item), topic=topic, partition=partition)
