from ...rule import Reads, Rule


class TopicReplaced(Rule):
    """A Terraform plan destroys a topic and creates it again.

    ## What it does
    Reports each topic resource (`kafka_topic`, `confluent_kafka_topic`,
    `aiven_kafka_topic`, `aws_msk_topic`, `google_managed_kafka_topic`) whose change in a
    plan (`terraform show -json PLANFILE`) has both the `delete` and the `create` action,
    at that change, naming the resource address and the attributes that force it
    (`replace_paths`: a changed `name`, fewer `partitions`, ...).

    ## Why is this bad?
    Terraform replaces a topic by deleting it: every record in it is gone, and consumers'
    offsets point nowhere. The plan says `-/+ destroy and then create replacement` in one
    line among many. A renamed resource key, a `count` index that shifts when an element
    is removed from a list, a partition count lowered or a `name` edited all do it.

    ## Example
    ```hcl
    resource "kafka_topic" "orders" {
      name       = "orders-v2"   # was "orders": replaced
      partitions = 12
    }
    ```

    ## Use instead
    Keep the topic's name and never lower its partitions; key topics with `for_each` over a
    map rather than `count` over a list; for a resource renamed in the configuration, a
    `moved` block tells Terraform it is the same topic. Add `lifecycle { prevent_destroy =
    true }` to topics.
    """
    code = "PL211"
    name = "topic-replaced"
    severity = "error"
    reads = Reads(targets=("run",))
    message = ("topic {topic}: the plan deletes and re-creates {address}{why}: the topic and "
               "all its data are deleted")

    def check(self, ctx, _, options):
        for change in ctx.changes:
            if not change.replaces:
                continue
            topic = (change.before or change.after).name
            why = ", ".join(".".join(path) for path in change.replace_paths)
            yield self.finding(self.say(topic=topic, address=change.address,
                                        why=f" because of {why}" if why else ""),
                               at=change.where(), topic=topic)
