from ..rule import Rule


class DuplicateTopic(Rule):
    """Two manifests define the same Kafka topic.

    ## What it does
    Reports every topic manifest after the first that defines a Kafka topic name already
    defined by another manifest of the run (the Strimzi `spec.topicName`, else
    `metadata.name`).

    ## Why is this bad?
    The Strimzi topic operator reconciles only one of them and marks the other not ready;
    which one wins depends on creation order, so an edit may silently have no effect.

    ## Example
    ```yaml
    metadata: {name: orders}
    ---
    metadata: {name: orders-v2}
    spec: {topicName: orders}
    ```

    ## Use instead
    One manifest per Kafka topic.
    """
    code = "PL117"
    name = "duplicate-topic"
    severity = "error"
    targets = ("run",)

    def check(self, ctx, _, options):
        first: dict = {}
        for spec in ctx.manifests:
            if "name" in spec.unknown:  # a template's placeholder: its name is not known
                continue
            earlier = first.setdefault(spec.name, spec)
            if earlier is spec:
                continue
            line, _column = earlier.doc.locate(earlier.paths["name"]) or (None, None)
            where = earlier.doc.source.name + (f":{line}" if line else "")
            yield self.finding(f"topic {spec.name} is already defined in {where}",
                               at=spec.where("name"), topic=spec.name)
