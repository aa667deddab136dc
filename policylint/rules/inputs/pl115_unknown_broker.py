from ...model import Plan
from ...rule import Reads, Rule
from ...words import ids


class UnknownBroker(Rule):
    """A replica id is not a broker of the cluster profile.

    ## What it does
    With a cluster profile (a snapshot, a policylint cluster file or a Strimzi `Kafka`
    resource without node pools), reports every replica id >= 0 that is not one of the
    cluster's brokers: each unknown id is its own finding, at its place in the list.
    Negative ids are placeholders (PL501-PL505). A snapshot is checked against its own
    broker list.

    ## Why is this bad?
    Kafka refuses the reassignment ("The proposed assignment contains non-existent
    brokerIDs"). In a snapshot, it means replicas live on brokers that are gone.

    ## Example
    With brokers 1, 2, 3:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 7]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}
    ```
    """
    code = "PL115"
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "unknown-broker"
    severity = "error"
    reads = Reads(targets=("plan", "snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    message = ("broker {broker} in replicas {replicas} of {topic}-{partition} is not a broker "
               "of cluster {cluster} (brokers: {known})")

    def check(self, target, ctx, options):
        profile = ctx.profile_for(target)
        if profile is None or profile.brokers is None:
            return
        brokers = profile.brokers.keys()

        def unknown(replicas: tuple[int, ...]) -> dict[int, int]:
            """Each unknown broker id at its first position."""
            if brokers >= set(replicas):
                return {}
            found: dict[int, int] = {}
            for i, broker in enumerate(replicas):
                if broker >= 0 and broker not in brokers:
                    found.setdefault(broker, i)
            return found

        # a plan's broker may be one that joins the cluster, which the snapshot cannot know
        joins = isinstance(target, Plan)
        for found in ctx.replica_lists(target).failing(unknown):
            for broker, i in found.verdict.items():
                yield self.finding(
                    self.say(broker=broker, replicas=ids(found.replicas), topic=found.topic,
                             partition=found.partition, cluster=profile.name,
                             known=_known(brokers)) +
                    (f"; if it joins the cluster, say so: --add {broker}:RACK" if joins
                     else ""),
                    at=found.where(i), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import Verdict, ids, say
        known = F.concat_ws(", ", F.slice("broker_ids", 1, 20).cast("array<string>"))
        known = F.when(F.size("broker_ids") > 20, F.concat(
            known, F.lit(", ... ("), F.size("broker_ids").cast("string"), F.lit(" in all)"))
        ).otherwise(known)
        unknown = F.filter(F.array_except("replicas", "broker_ids"), lambda r: r >= 0)
        return Verdict(F.size(unknown) > 0, F.transform(unknown, lambda broker: say(
            self.message, broker=broker, replicas=ids("replicas"), topic=F.col("topic"),
            partition=F.col("partition"), cluster=F.col("cluster"), known=known)))


def _known(brokers) -> str:
    known = sorted(brokers)
    return ", ".join(map(str, known[:20])) + (f", ... ({len(known)} in all)"
                                             if len(known) > 20 else "")
