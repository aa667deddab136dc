from ...rule import Rule


class UnusedSuppression(Rule):
    """A suppression names no rule, or suppresses nothing.

    ## What it does
    Reports an inline `# policylint: disable=CODE` comment, or a manifest's
    `policylint.io/disable` annotation, that names no rule policylint knows (a typo such
    as `PL3O1`), or that suppressed no finding in this run of a rule that ran (a rule left
    out with `--select`/`--ignore`, or off in the policy, is not judged), at the comment or
    annotation. As ruff's RUF100.

    `--fix` takes such codes out of the comment or annotation; one left naming nothing goes
    whole, and a comment on a line of its own takes its line with it.

    ## Why is this bad?
    A typo'd suppression silently suppresses nothing, and the reviewer believes the finding
    was looked at. A suppression that outlived its finding hides the next real one on that
    line.

    ## Example
    ```yaml
    spec:
      replicas: 3  # policylint: disable=PL3O1 accepted for this topic
    ```

    ## Use instead
    Name the rule exactly (`PL301` or `min-isr-exceeds-rf`), or remove the comment once its
    finding is fixed.
    """
    code = "PL122"
    fixable = True
    name = "unused-suppression"
    severity = "warning"
