from ..rule import Rule
from .kafka import min_isr_subjects, subject


class MinIsrEqualsRf(Rule):
    """min.insync.replicas equals the replication factor (RF > 1).

    ## What it does
    Reports a topic (manifest or snapshot) or plan entry whose effective
    min.insync.replicas equals its replication factor, when the RF is above 1.

    ## Why is this bad?
    No replica may ever be out of sync: a single broker restart (every rolling restart)
    blocks all `acks=all` producers of the topic.

    ## Example
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 3
    ```

    ## Use instead
    ```yaml
    spec:
      replicas: 3
      config:
        min.insync.replicas: 2
    ```
    """
    code = "PL302"
    name = "min-isr-equals-rf"
    severity = "warning"
    targets = ("manifest", "snapshot", "plan")

    def check(self, target, ctx, options):
        for topic, partition, rf, min_isr, at in min_isr_subjects(
                target, ctx, lambda rf, min_isr: min_isr == rf and rf > 1):
            yield self.finding(
                f"{subject(topic, partition)}: min.insync.replicas={min_isr} equals the "
                f"replication factor {rf}: one broker down blocks acks=all producers",
                at=at, topic=topic, partition=partition)
