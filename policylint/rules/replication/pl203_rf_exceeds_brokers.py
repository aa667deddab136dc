from ...model import Plan, Snapshot, TopicSpec
from ...rule import Reads, Rule
from ...words import count, subject


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
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "rf-exceeds-brokers"
    severity = "error"
    reads = Reads(targets=("manifest", "plan", "snapshot"), needs=frozenset({"rf"}),
                  spark_frame="topics")
    message = ("{subject}: replication factor {rf} is larger than the {brokers} of cluster "
               "{cluster}")

    def check(self, target, ctx, options):
        profile = ctx.profile_for(target)
        brokers = None if profile is None else profile.broker_count
        if profile is not None and brokers is None and not isinstance(target, Snapshot):
            ctx.unchecked.add(self.code, target.where("name") if isinstance(target, TopicSpec)
                              else target.where(), getattr(target, "name", None),
                              "its cluster's broker count (the Kafka's node pools)")
        if not brokers:
            return
        # the cluster as a message names it: with the file that describes it, but for a
        # snapshot's own topics (their findings are in that file)
        cluster = profile.name if isinstance(target, Snapshot) or profile.doc is None \
            else f"{profile.name} ({profile.doc.source.name})"
        if isinstance(target, Plan):
            for found in ctx.replica_lists(target).failing(
                    lambda replicas: len(replicas) > brokers):
                yield self._finding(found.topic, found.partition, len(found.replicas), brokers,
                                    cluster, found.where())
        elif isinstance(target, Snapshot):
            for topic in target.topics.values():
                rf = ctx.topic_rf(target, topic)
                if rf is not None and rf > brokers:
                    yield self._finding(topic.name, None, rf, brokers, cluster,
                                        topic.where("name"))
        else:
            rf = ctx.declared(target)[0]
            if rf.value is None or rf.value <= brokers:
                return
            if rf.cause is None:  # the topic's own
                yield self._finding(target.name, None, rf.value, brokers, cluster, rf.at)
                return
            # the cluster's default: one finding for the topics that leave their RF to it
            finding = self.finding(self.say(
                subject=f"cluster {profile.name}", rf=f"{rf.value} ({rf.source})",
                brokers=count(brokers, "broker"), cluster=cluster),
                at=target.where("name"), topic=target.name)
            finding.cause, finding.cause_at = (self.code,) + rf.cause, rf.at
            yield finding

    def _finding(self, topic, partition, rf, brokers, cluster, at):
        return self.finding(self.say(subject=subject(topic, partition), rf=rf,
                                     brokers=count(brokers, "broker"), cluster=cluster),
                            at=at, topic=topic, partition=partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import count, one, say
        rf, brokers = F.col("topic_rf"), F.col("n_brokers")
        return one(rf.isNotNull() & (brokers > 0) & (rf > brokers), say(
            self.message, subject=F.concat(F.lit("topic "), F.col("topic")), rf=rf,
            brokers=count(brokers, "broker"), cluster=F.col("cluster")))
