from ...rule import Rule


class MissingNodePools(Rule):
    """A Strimzi Kafka uses node pools and none of its broker pools is among the inputs.

    ## What it does
    Reports a `Kafka` that uses node pools (`kafka.strimzi.io/v1`, or `v1beta2` with the
    annotation `strimzi.io/node-pools: enabled`) when no `KafkaNodePool` with the `broker`
    role labelled for it is linted with it. Its broker count is then unknown (Strimzi
    ignores `spec.kafka.replicas` with node pools, and so does policylint), so the rules
    that need it are unchecked for its topics. One finding per `Kafka`.

    ## Why is this bad?
    A broker count taken from the wrong place gives wrong answers: `spec.kafka.replicas`
    may say 3 while the pools run 6 brokers, or the other way round.

    ## Example
    ```yaml
    apiVersion: kafka.strimzi.io/v1
    kind: Kafka
    metadata: {name: prod}
    ```
    linted without `pools.yaml`.

    ## Use instead
    Lint the pools with it (`policylint lint clusters/prod/`), or give both with
    `--cluster kafka.yaml --cluster pools.yaml`.
    """
    code = "PL119"
    name = "missing-node-pools"
    severity = "warning"
