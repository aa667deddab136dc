from ...rule import Rule


class DuplicateCluster(Rule):
    """Two files describe the same cluster.

    ## What it does
    Reports a second cluster resource (a Strimzi or CFK `Kafka`, a Koperator
    `KafkaCluster`, ...) with the name and namespace of one already read in the same scope,
    or a second ClusterSnapshot of the same cluster with the same `captured_at`, naming the
    file of the first. A description belongs to its directory: one in a directory and one in
    its subdirectory are one scope; two sibling directories (two environments) describe two
    clusters of the same name, and are no duplicates. policylint uses the first description and ignores the second. Snapshots
    of one cluster taken at different times are not duplicates (the latest is its state),
    and neither are a snapshot and the `Kafka` of the same cluster.

    ## Why is this bad?
    Which description is the cluster's is a guess: two `Kafka` resources named `my-cluster`
    in one namespace cannot both be deployed, and topics are checked against one of them
    only.

    ## Example
    `kafka/cluster.yaml` and `kafka/cluster-copy.yaml` both define `Kafka` `my-cluster`
    with no namespace.

    ## Use instead
    Give each cluster its own name or namespace, or lint one cluster's directory at a time.
    """
    code = "PL121"
    name = "duplicate-cluster"
    severity = "warning"
