from ...rule import Rule


class PolicyWeakened(Rule):
    """A pull request changes the policy, the baseline or the suppressions that judge it.

    ## What it does
    In diff mode (`--base REF`, the GitHub Action on a pull request) the policy of the base
    ref judges the change: the policy file and everything it extends, its exemptions,
    excludes, `cel_rules` and baseline are read at REF. What the change itself does to them
    is reported here, at its line: a rule disabled or its severity lowered, a rule option
    loosened (a `min` lowered, a `max` raised, an `allow` list grown; any other option
    change is taken as a loosening), an exemption or exclude added or widened (with its
    expiry), `allow.rf_change` grown, a CEL rule removed or changed, baseline entries added,
    inline `# policylint: disable=` comments added, a manifest's `policylint.io/disable`
    annotation added or given more codes. Each weakening is an error; each strengthening (a
    rule enabled, a severity raised, an exemption removed, a CEL rule added) is a note. A
    `policylint.io/allow-rf-change` annotation added with the RF change it allows is a note
    (the documented acknowledgment, shown to reviewers); added with no RF change, a
    weakening. A policy outside the git work tree is read from disk as it is: the change
    cannot reach it.

    Inline comments cannot suppress this rule's findings. `--policy-from head` lets the
    working tree's policy judge instead (and says so).

    ## Why is this bad?
    A policy that the change it judges can rewrite is no gate: a pull request that lowers a
    topic's replication factor could also exempt itself. Changes to the policy need its
    owners' review (CODEOWNERS on the policy and the baseline).

    ## Example
    ```yaml
    # .policylint.yaml, changed by the pull request that also lowers payments' RF
    exemptions:
      - {rule: PL202, topics: ["*"], reason: "ok"}
    ```

    ## Use instead
    Change the policy in a pull request of its own, reviewed by its owners, or give the
    exemption a narrow scope, a reason and an `expires` date.
    """
    code = "PL125"
    name = "policy-weakened"
    severity = "error"
