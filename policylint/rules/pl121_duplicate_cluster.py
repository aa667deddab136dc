from ..rule import Rule


class DuplicateCluster(Rule):
    """Two files describe the same cluster.

    ## What it does
    Reports a second Strimzi `Kafka` with the name and namespace of one already read, or a
    second ClusterSnapshot of the same cluster with the same `captured_at`, naming the file
    of the first. policylint uses the first description and ignores the second. Snapshots
    of one cluster taken at different times are not duplicates (the latest is its state),
    and neither are a snapshot and the `Kafka` of the same cluster.

    ## Why is this bad?
    Which description is the cluster's is a guess: two `Kafka` resources named `my-cluster`
    in one namespace cannot both be deployed, and topics are checked against one of them
    only.

    ## Example
    `dev/kafka.yaml` and `prod/kafka.yaml` both define `Kafka` `my-cluster` with no
    namespace.

    ## Use instead
    Give each cluster its own name or namespace, or lint one cluster's directory at a time.
    """
    code = "PL121"
    name = "duplicate-cluster"
    severity = "warning"
