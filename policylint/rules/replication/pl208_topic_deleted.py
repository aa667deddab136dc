from ...rule import Reads, Rule
from ...diff import deleted


class TopicDeleted(Rule):
    """A topic manifest present at the base ref is gone (diff mode).

    ## What it does
    With `--base REF`, reports every Kafka topic defined by a manifest at REF that no
    manifest defines now; in a Terraform plan, every topic resource it deletes (at its
    change). A topic moved to another file, or into a file with other topics,
    is not deleted. The finding names the file the topic was in at REF; it has no line.
    Lint directories, not single files, so that a topic moved elsewhere is found. A topic
    its operator did not manage at REF (Strimzi's `strimzi.io/managed: "false"`) is left
    out: deleting its resource leaves the topic and its data.

    ## Why is this bad?
    When the topic operator manages the topic, deleting its `KafkaTopic` deletes the Kafka
    topic and all its data (unless deletion is disabled on the cluster).

    ## Example
    `topics/orders.yaml` removed while `orders` still has producers.

    ## Use instead
    Keep the manifest, or delete it deliberately and suppress the finding with an exemption
    that gives the reason.
    """
    code = "PL208"
    name = "topic-deleted"
    severity = "warning"
    reads = Reads(targets=("run",))

    def check(self, ctx, _, options):
        for old in deleted(ctx):
            if not old.managed:
                continue  # the operator leaves the topic (and its data) as it is
            change = ctx.change_of(old)
            if change is not None:  # a change set deletes it, where it says so
                yield self.finding(f"topic {old.name}: the plan deletes {change.address}, the "
                                   "topic and its data",
                                   at=change.where(), topic=old.name)
                continue
            finding = self.finding(
                f"topic {old.name}: its manifest at {ctx.base_ref} ({old.doc.source.name}) is "
                "gone; where its operator manages it (and the cluster allows deletion), "
                "merging this deletes the topic and its data", topic=old.name)
            finding.file = old.doc.source.name
            yield finding
