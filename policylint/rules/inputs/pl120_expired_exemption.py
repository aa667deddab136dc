from ...rule import Rule


class ExpiredExemption(Rule):
    """A policy exemption has expired.

    ## What it does
    Reports, at the exemption in the policy file, an exemption whose `expires` date has
    passed. The exemption no longer applies: the findings it covered are reported again.

    ## Why is this bad?
    Exemptions are promises to fix something by a date. An expired one is a reminder that
    the promise fell due; delete it or renew it with a new reason and date.

    ## Example
    ```yaml
    exemptions:
      - {rule: PL401, topics: ["legacy-*"], reason: "moving racks", expires: 2025-01-31}
    ```

    ## Use instead
    ```yaml
    exemptions:
      - {rule: PL401, topics: ["legacy-*"], reason: "moving racks, ticket OPS-12", expires: 2027-01-31}
    ```
    """
    code = "PL120"
    name = "expired-exemption"
    severity = "note"
