from .min_isr import MinIsrRule


class MinIsrTooLow(MinIsrRule):
    """min.insync.replicas is below `min` on a topic with RF >= 3.

    ## What it does
    Reports a topic (manifest, snapshot, or the entries of a plan: once per topic, at its
    first entry) with a replication factor of 3 or more whose effective
    min.insync.replicas is below the option `min` (default 2). When that is Kafka's
    built-in default of 1, because neither the topic nor a cluster profile sets it, the
    message says so: give the cluster (`--cluster`) for the real value.

    ## Why is this bad?
    With min.insync.replicas=1 an `acks=all` write is acknowledged by the leader alone;
    if that broker fails before followers catch up, acknowledged writes are lost despite
    the three copies the topic pays for.

    ## Example
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 1
    ```

    ## Use instead
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 2
    ```

    ## Options
    - `min` (integer, default 2): the lowest acceptable min.insync.replicas.
    """
    code = "PL303"
    name = "min-isr-too-low"
    severity = "warning"
    message = ("{subject}: min.insync.replicas={min_isr} with replication factor {rf}: "
               "acknowledged writes may be lost (policy minimum is {min})")
    options_schema = {"type": "object", "additionalProperties": False,
                      "properties": {"min": {"type": "integer", "minimum": 1, "default": 2}}}

    topic_level = True

    @staticmethod
    def breaks(rf, min_isr, options):
        return (rf >= 3) & (min_isr < options["min"])
