from ...rule import Reads, Rule


class DuplicateTopic(Rule):
    """Two topic declarations define the same Kafka topic of one cluster.

    ## What it does
    Reports every topic declaration after the first that defines a Kafka topic name already
    defined for the same cluster (the Strimzi `spec.topicName`, else `metadata.name`; each
    format's name field), whatever their formats. Clusters are scoped by directory: the
    same topics declared for two environments' clusters of one name (`aws/`, `azure/`) are
    not duplicates. A Terraform topic that no cluster among the inputs takes is its
    module's: a module's provider configurations and cluster resources are its own, so two
    environments' modules (`envs/dev`, `envs/prod`) are two clusters, and so are two
    provider aliases. A Terraform resource read both from its `.tf` file and from a plan
    (the same address) is one declaration. A name that is a template placeholder is not
    compared.

    ## Why is this bad?
    The Strimzi topic operator reconciles only one of them and marks the other not ready;
    which one wins depends on creation order, so an edit may silently have no effect.
    Other tools apply both, the last one winning.

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
    reads = Reads(targets=("run",))

    def check(self, ctx, _, options):
        if not ctx.name_clashes()[0]:  # most runs: no name twice, nothing to walk
            return
        first: dict = {}
        for spec in ctx.manifests:
            if "name" in spec.unknown:  # a template's placeholder: its name is not known
                continue
            earlier = first.setdefault(spec.name, spec)
            if earlier is spec or (spec.origin is not None and spec.origin == earlier.origin):
                continue  # one Terraform resource, read from its .tf file and from a plan
            line, _column = earlier.doc.locate(earlier.paths["name"]) or (None, None)
            where = earlier.doc.source.name + (f":{line}" if line else "")
            yield self.finding(f"topic {spec.name} is already defined in {where}",
                               at=spec.where("name"), topic=spec.name)
