from ..model import Plan, Snapshot
from ..rule import Rule
from .kafka import lists_failing, manifest_rf, snapshot_topic_rf, subject


class RfExceedsBrokers(Rule):
    """The replication factor is larger than the number of brokers.

    ## What it does
    Compares the replication factor of a topic manifest (as declared, else the cluster's
    `default.replication.factor`), of each reassignment entry (its replica count) and of
    each snapshot topic (its RF) with the number of brokers in the cluster profile.

    ## Why is this bad?
    Kafka cannot place two replicas of a partition on one broker: topic creation fails
    with `InvalidReplicationFactorException`, and the Strimzi topic operator leaves the
    topic not ready. Cruise Control refuses an RF change beyond the broker count.

    ## Example
    With 3 brokers:
    ```yaml
    spec:
      replicas: 4
    ```

    ## Use instead
    ```yaml
    spec:
      replicas: 3
    ```
    """
    code = "PL203"
    name = "rf-exceeds-brokers"
    severity = "error"
    targets = ("manifest", "plan", "snapshot")

    def check(self, target, ctx, options):
        profile = target.profile if isinstance(target, Snapshot) else ctx.profile
        brokers = None if profile is None else profile.broker_count
        if not brokers:
            return
        if isinstance(target, Plan):
            for topic, partition, replicas, _, move, _ in lists_failing(
                    target, ctx, lambda replicas: len(replicas) > brokers):
                yield self._finding(topic, partition, len(replicas), brokers, profile,
                                    target.where(move, "replicas"))
        elif isinstance(target, Snapshot):
            for topic in target.topics.values():
                spec = ctx.manifest(topic.name)
                rf = snapshot_topic_rf(topic, None if spec is None else
                                       manifest_rf(spec, profile))
                if rf is not None and rf > brokers:
                    yield self._finding(topic.name, None, rf, brokers, profile,
                                        topic.where("name"))
        else:
            rf = manifest_rf(target, profile)
            if rf is not None and rf > brokers:
                yield self._finding(target.name, None, rf, brokers, profile,
                                    target.where("rf"))

    def _finding(self, topic, partition, rf, brokers, profile, at):
        return self.finding(f"{subject(topic, partition)}: replication factor {rf} is larger "
                            f"than the {brokers} brokers of cluster {profile.name}",
                            at=at, topic=topic, partition=partition)
