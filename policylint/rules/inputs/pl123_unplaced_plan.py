from ...rule import Rule


class UnplacedPlan(Rule):
    """A reassignment plan that no cluster of the run places.

    ## What it does
    Reports a plan, in a run whose inputs describe clusters, that none of them places: no
    `--cluster`, no cluster described in its nearest directory, no `clusters:` glob of the
    policy matching its path. The rules that need its cluster (broker ids, racks, the
    current assignment) skip it and the summary counts its entries under `unchecked`; the
    rest of the run is linted as usual.

    ## Why is this bad?
    A plan is only safe or unsafe against the cluster it is for: checked against none, its
    replication factor changes, unknown brokers and rack spread go unseen.

    ## Example
    `plans/move.json` beside `clusters/prod/kafka.yaml` and `clusters/dev/kafka.yaml`.

    ## Use instead
    Put the plan in its cluster's directory (`clusters/prod/plans/move.json`), give the
    cluster with `--cluster`, or map the plan's path in the policy:
    ```yaml
    clusters:
      prod: ["plans/prod-*.json"]
    ```
    """
    code = "PL123"
    name = "unplaced-plan"
    severity = "warning"
