from ...rule import Reads, Rule
from ...words import plural


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
    reads = Reads(targets=("profile",), spark_frame="clusters")
    message = "cluster {cluster}: {brokers} {ids} {have} no rack while others have one"

    def check(self, profile, ctx, options):
        brokers = profile.brokers or {}
        missing = sorted(b for b, rack in brokers.items() if rack is None)
        if missing and len(missing) < len(brokers):
            n = len(missing)
            yield self.finding(self.say(cluster=profile.name, brokers=plural(n, "broker"),
                                        ids=", ".join(map(str, missing)),
                                        have=plural(n, "has", "have")), at=profile.where())

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import one, plural, say
        n = F.size("no_rack")
        return one((n > 0) & (n < F.col("n_brokers")), say(
            self.message, cluster=F.col("cluster"), brokers=plural(n, "broker"),
            ids=F.array_join(F.col("no_rack").cast("array<string>"), ", "),
            have=plural(n, "has", "have")))
