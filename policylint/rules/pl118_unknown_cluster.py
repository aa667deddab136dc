from ..rule import Rule


class UnknownCluster(Rule):
    """A topic manifest names a cluster that is none of the run's clusters.

    ## What it does
    Reports a Strimzi `KafkaTopic` whose `strimzi.io/cluster` label (and namespace) names a
    `Kafka` or snapshot that is not among the run's inputs, while others are. The rules that
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
