from ...rule import Rule


class SchemaViolation(Rule):
    """A recognised document breaks its JSON Schema.

    ## What it does
    Validates each Strimzi resource, reassignment plan and ClusterSnapshot against the
    JSON Schema shipped with policylint and reports every violation at the offending
    value: wrong types (replicas given as strings), missing required fields, unknown
    fields where the format forbids them (a typo like `replica:`), a reassignment
    `version` other than 1, partition numbers that are negative or not integers, and a
    `min.insync.replicas` that is not a positive integer.

    ## Why is this bad?
    Kafka and the Strimzi operator reject such documents, often only at apply time, or
    worse, drop the misspelled field and apply a default.

    ## Example
    ```json
    {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": ["1", "2"]}]}
    ```

    ## Use instead
    ```json
    {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2]}]}
    ```
    """
    code = "PL101"
    name = "schema-violation"
    severity = "error"
