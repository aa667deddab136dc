from ...rule import Reads, Rule
from ...diff import renamed


class TopicRenamed(Rule):
    """A KafkaTopic resource now names another Kafka topic (diff mode).

    ## What it does
    With `--base REF`, reports a `KafkaTopic` resource (same namespace and
    `metadata.name`) whose Kafka topic name (`spec.topicName`, else `metadata.name`)
    differs from the one it had at REF.

    ## Why is this bad?
    Kafka cannot rename a topic. The Strimzi topic operator rejects a change of
    `spec.topicName` and marks the resource not ready; the topic keeps its old name.

    ## Example
    At REF `spec.topicName: orders`, now:
    ```yaml
    metadata: {name: orders}
    spec:
      topicName: orders-v2
    ```

    ## Use instead
    A new `KafkaTopic` resource for `orders-v2`, and a migration of producers and consumers.
    """
    code = "PL207"
    name = "topic-renamed"
    severity = "error"
    reads = Reads(targets=("run",))

    def check(self, ctx, _, options):
        for old, new in renamed(ctx):
            yield self.finding(
                f"topic {old.name}: KafkaTopic {new.resource[2]} now names topic {new.name} "
                f"(it named {old.name} at {ctx.base_ref}); Kafka cannot rename topics and the "
                "topic operator rejects the change",
                at=new.where("name"), topic=old.name)
