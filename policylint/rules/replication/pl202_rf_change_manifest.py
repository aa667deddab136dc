from ...rule import Reads, Rule
from ...diff import ALLOW_RF_CHANGE, allows_rf_change, at, live_topics, matched, resolved, words
from ...kafka import default_rf


class RfChangeManifest(Rule):
    """A topic manifest changes the replication factor (diff mode, or against the live topic).

    ## What it does
    Against the live topic: with a snapshot of the cluster among the inputs (`--cluster`),
    reports a declaration that states another replication factor than the live topic has
    (the most common replica count of its partitions): drift between the declaration and
    the cluster, which applying the declaration turns into an RF change. A declaration that
    leaves the factor to the broker default is no change.

    With `--base REF`, compares each topic manifest's replication factor with the same
    topic's manifest at REF (matched by Kafka topic name, wherever the file is). A factor
    left to the broker default is resolved through the cluster profile; without a profile
    such a change is counted as unchecked. Allowed for topics in the policy's
    `allow.rf_change`, with `--allow-rf-change`, and for manifests annotated
    `policylint.io/allow-rf-change: "true"`.

    ## Why is this bad?
    Changing the replication factor moves data between brokers: the Strimzi topic operator
    runs a reassignment through Cruise Control, which can saturate the cluster, and a lower
    factor silently weakens durability. Such a change should be deliberate and reviewed.

    ## Example
    At REF `spec.replicas: 3`, now:
    ```yaml
    spec:
      replicas: 2
    ```

    ## Use instead
    Keep `replicas: 3`, or mark the change as intended:
    ```yaml
    metadata:
      annotations:
        policylint.io/allow-rf-change: "true"
    spec:
      replicas: 2
    ```
    """
    code = "PL202"
    name = "rf-change-manifest"
    severity = "error"
    reads = Reads(targets=("run",))

    def check(self, ctx, _, options):
        said = set()
        for old, new in matched(ctx):
            values = resolved(ctx, self.code, old, new, "rf", default_rf)
            if values is None or values[0] == values[1] or allows_rf_change(ctx, new):
                continue
            said.add(new.name)
            yield self.finding(
                f"topic {new.name}: replication factor is changed from {words(old.rf, values[0])}"
                f" {at(ctx, old)} to {words(new.rf, values[1])} (if intended, annotate the "
                f'manifest with {ALLOW_RF_CHANGE}: "true" or allow it with allow.rf_change in '
                "the policy)",
                at=new.where("rf"), topic=new.name)
        yield from self._drift(ctx, said)

    def _drift(self, ctx, said: set):
        """Declarations whose stated RF is not their live topic's in the run's snapshot."""
        for spec, live, source in live_topics(ctx, said):
            if not isinstance(spec.rf, int) or spec.rf < 1 or allows_rf_change(ctx, spec):
                continue
            rf = ctx.topic_rf(ctx.snapshot, live)
            if rf is None or rf == spec.rf:
                continue
            yield self.finding(
                f"topic {spec.name}: declares replication factor {spec.rf}, the live topic has "
                f"{rf} ({source}): the declaration and the cluster have drifted apart, and "
                "applying it changes the replication factor (if intended, annotate the "
                f'manifest with {ALLOW_RF_CHANGE}: "true" or allow it with allow.rf_change in '
                f"the policy; else declare {rf})", at=spec.where("rf"), topic=spec.name)
