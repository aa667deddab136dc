from ..rule import Rule
from .kafka import min_isr_subjects, subject


class MinIsrTooLow(Rule):
    """min.insync.replicas is below `min` on a topic with RF >= 3.

    ## What it does
    Reports a topic (manifest or snapshot) or plan entry with a replication factor of 3
    or more whose effective min.insync.replicas is below the option `min` (default 2).

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
    targets = ("manifest", "snapshot", "plan")
    options_schema = {"type": "object", "additionalProperties": False,
                      "properties": {"min": {"type": "integer", "minimum": 1, "default": 2}}}

    def check(self, target, ctx, options):
        floor = options["min"]
        for topic, partition, rf, min_isr, at in min_isr_subjects(
                target, ctx, lambda rf, min_isr: rf >= 3 and min_isr < floor):
            yield self.finding(
                f"{subject(topic, partition)}: min.insync.replicas={min_isr} with replication "
                f"factor {rf}: acknowledged writes may be lost (policy minimum is {floor})",
                at=at, topic=topic, partition=partition)
