from ...rule import Rule


class UnknownCluster(Rule):
    """A topic declaration names a cluster that is none of the run's clusters.

    ## What it does
    Reports a topic declaration whose cluster (Strimzi's `strimzi.io/cluster` label and
    namespace, CFK's `kafkaClusterRef`, Koperator's `clusterRef`, topicctl's `meta.cluster`,
    Conduktor's `metadata.cluster`, Aiven's `serviceName`) is none of the clusters among the
    run's inputs, while others are. The rules that
    need the topic's cluster (broker count, racks, broker defaults) skip it, and the summary
    counts it as unchecked, rather than judging it against another cluster.

    ## Why is this bad?
    In a repository with one directory per cluster, a topic checked against the wrong
    cluster gets wrong answers: an RF of 5 passes against a large production cluster and
    fails on the three-broker development one it is really for. A misspelled label is
    worse: Strimzi's topic operator ignores the topic altogether.

    ## Example
    With the `Kafka` `prod` among the inputs:
    ```yaml
    metadata:
      name: orders
      labels:
        strimzi.io/cluster: prdo
    ```

    ## Use instead
    ```yaml
    metadata:
      name: orders
      labels:
        strimzi.io/cluster: prod
    ```
    or lint the topic together with its cluster's `Kafka` resource or snapshot.
    """
    code = "PL118"
    name = "unknown-cluster"
    severity = "warning"
