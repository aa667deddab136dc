from ..rule import Rule
from .kafka import fmt_ids, lists_failing, profile_of, where_replicas


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
    name = "unknown-broker"
    severity = "error"
    targets = ("plan", "snapshot", "manifest")

    def check(self, target, ctx, options):
        profile = profile_of(target, ctx)
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

        for topic, partition, replicas, owner, item, found in lists_failing(target, ctx,
                                                                            unknown):
            doc, path = where_replicas(owner, item)
            for broker, i in found.items():
                yield self.finding(
                    f"broker {broker} in replicas {fmt_ids(replicas)} of {topic}-{partition} "
                    f"is not a broker of cluster {profile.name} (brokers: {_known(brokers)})",
                    at=(doc, path + (i,)), topic=topic, partition=partition)


def _known(brokers) -> str:
    ids = sorted(brokers)
    return ", ".join(map(str, ids[:20])) + (f", ... ({len(ids)} in all)" if len(ids) > 20 else "")
