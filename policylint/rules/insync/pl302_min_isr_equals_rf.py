from .min_isr import MinIsrRule


class MinIsrEqualsRf(MinIsrRule):
    """min.insync.replicas equals the replication factor (RF > 1).

    ## What it does
    Reports a topic (declaration or snapshot) whose effective min.insync.replicas equals
    its replication factor, when the RF is above 1; and a plan entry whose replica count
    makes it so (an RF change). The values come as PL301 takes them: a minISR inherited
    from the cluster is one finding at the cluster's setting, for every topic that
    inherits it; a value no input states leaves the topic unchecked.

    `--fix` lowers a manifest's own `min.insync.replicas` to RF - 1 when that is not below
    PL303's `min` (an RF of 2 gets no fix: an RF change is the user's call).

    ## Why is this bad?
    No replica may ever be out of sync: a single broker restart (every rolling restart)
    blocks all `acks=all` producers of the topic. The same on every release (from 3.7 a
    minISR above RF behaves like this too: PL301).

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
    fixable = True
    severity = "warning"
    message = ("{subject}: min.insync.replicas={min_isr} equals the replication factor {rf}: "
               "one broker down blocks acks=all producers")
    cause_message = ("cluster {cluster}: {setting} equals the replication factor of the "
                     "topics that inherit it: one broker down blocks their acks=all producers")

    @staticmethod
    def breaks(rf, min_isr, options):
        return (min_isr == rf) & (rf > 1)
