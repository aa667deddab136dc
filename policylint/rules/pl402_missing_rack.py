from ..rule import Rule


class MissingRack(Rule):
    """Some brokers have a rack and others do not.

    ## What it does
    Reports a cluster profile in which some brokers have a rack and others have none,
    once, naming the brokers without a rack.

    ## Why is this bad?
    Kafka refuses rack-aware assignment in that state ("Not all brokers have rack
    information") and topic creation or `kafka-reassign-partitions.sh --generate` fails
    unless rack awareness is switched off, which silently drops rack spread everywhere.

    ## Example
    ```json
    "brokers": [{"id": 1, "rack": "eu-1a"}, {"id": 2, "rack": "eu-1b"}, {"id": 3, "rack": null}]
    ```

    ## Use instead
    ```json
    "brokers": [{"id": 1, "rack": "eu-1a"}, {"id": 2, "rack": "eu-1b"}, {"id": 3, "rack": "eu-1c"}]
    ```
    """
    code = "PL402"
    name = "missing-rack"
    severity = "error"
    targets = ("profile",)

    def check(self, profile, ctx, options):
        brokers = profile.brokers or {}
        missing = sorted(b for b, rack in brokers.items() if rack is None)
        if missing and len(missing) < len(brokers):
            ids = ", ".join(map(str, missing))
            yield self.finding(f"cluster {profile.name}: broker{'s' if len(missing) > 1 else ''}"
                               f" {ids} ha{'ve' if len(missing) > 1 else 's'} no rack while "
                               "others have one", at=profile.where())
