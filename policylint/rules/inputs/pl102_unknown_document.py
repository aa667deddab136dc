from ...rule import Rule


class UnknownDocument(Rule):
    """A file given explicitly is none of the supported kinds.

    ## What it does
    Reports a file named on the command line that holds no Strimzi `KafkaTopic`, `Kafka`
    or `KafkaNodePool`, no reassignment plan and no ClusterSnapshot. Kinds are recognised
    by content, not by file name. Files found by walking a directory are skipped silently
    instead.

    ## Why is this bad?
    A file that was meant to be checked but was not recognised passes without a single
    rule having run on it.

    ## Example
    ```json
    {"partition": [{"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}]}
    ```

    ## Use instead
    ```json
    {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}]}
    ```
    """
    code = "PL102"
    name = "unknown-document"
    severity = "warning"
