from .min_isr import MinIsrRule


class MinIsrTooLow(MinIsrRule):
    """min.insync.replicas is below `min` on a topic with RF >= 3.

    ## What it does
    Reports a topic (declaration or snapshot) with a replication factor of 3 or more
    whose effective min.insync.replicas is below the option `min` (default 2). A minISR
    the topic inherits from its cluster (its broker default, or Kafka's default 1 where
    the cluster is among the inputs and does not set it) is one finding at the cluster,
    naming every topic that inherits it. When the topic's cluster is not among the inputs
    its minISR is unknown: the topic is counted as unchecked, and the summary says what
    input would let it be checked (`--cluster`, or the cluster's `Kafka` resource).

    A plan cannot set min.insync.replicas: PL303 is a finding of the topic (its
    declaration or snapshot), never of a plan's entries.

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
    reads = MinIsrRule.reads.but(targets=("manifest", "snapshot"))
    message = ("{subject}: min.insync.replicas={min_isr} with replication factor {rf}: "
               "acknowledged writes may be lost (policy minimum is {min})")
    cause_message = ("cluster {cluster}: {setting} for its topics of replication factor 3 "
                     "or more that inherit it: acknowledged writes may be lost (policy "
                     "minimum is {min})")
    options_schema = {"type": "object", "additionalProperties": False,
                      "properties": {"min": {"type": "integer", "minimum": 1, "default": 2}}}

    @staticmethod
    def breaks(rf, min_isr, options):
        return (rf >= 3) & (min_isr < options["min"])
