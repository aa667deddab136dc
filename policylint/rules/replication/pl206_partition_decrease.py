from ...rule import Reads, Rule
from ...diff import at, live_topics, matched, resolved, words
from ...kafka import default_partitions


class PartitionDecrease(Rule):
    """A topic manifest lowers the partition count (diff mode).

    ## What it does
    Against the live topic: with a snapshot of the cluster among the inputs (`--cluster`),
    reports a declaration that states fewer partitions than the topic has.

    With `--base REF`, compares each topic manifest's partition count with the same topic's
    manifest at REF (matched by Kafka topic name). A count left to the broker default
    (`num.partitions`) is resolved through the cluster profile; without a profile such a
    change is counted as unchecked. A field removed is no change (the operator leaves the
    topic as it is), and neither is any change to a topic its operator no longer manages
    (Strimzi's `strimzi.io/managed: "false"`).

    ## Why is this bad?
    Kafka can add partitions but never remove them. The Strimzi topic operator refuses the
    change and marks the topic not ready, so the manifest and the cluster drift apart.

    ## Example
    At REF `spec.partitions: 12`, now:
    ```yaml
    spec:
      partitions: 6
    ```

    ## Use instead
    Keep 12 partitions, or create a new topic with fewer partitions and migrate to it.
    """
    code = "PL206"
    name = "partition-decrease"
    severity = "error"
    reads = Reads(targets=("run",))

    def check(self, ctx, _, options):
        said = set()
        for old, new in matched(ctx):
            if not new.managed:
                continue  # the operator no longer touches the topic
            values = resolved(ctx, self.code, old, new, "partitions", default_partitions)
            if values is None or values[1] >= values[0]:
                continue
            said.add(new.name)
            yield self.finding(
                f"topic {new.name}: partition count is lowered from "
                f"{words(old.partitions, values[0])} {at(ctx, old)} to "
                f"{words(new.partitions, values[1])}; Kafka cannot remove partitions",
                at=new.where("partitions"), topic=new.name)

        yield from self._below_live(ctx, said)

    def _below_live(self, ctx, said: set):
        """Declarations with fewer partitions than their live topic in the run's snapshot."""
        for spec, live, source in live_topics(ctx, said):
            if spec.partitions is None or spec.partitions >= len(live.partitions):
                continue
            yield self.finding(
                f"topic {spec.name}: declares {spec.partitions} partitions, the live topic has "
                f"{len(live.partitions)} ({source}); Kafka cannot remove partitions, and every "
                "tool that applies it refuses", at=spec.where("partitions"), topic=spec.name)
