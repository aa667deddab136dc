from collections import Counter

from ...kafka import current_rfs
from ...model import Plan, TopicSpec, target_replicas
from ...rule import Reads, Rule
from ...words import plural


class InconsistentRf(Rule):
    """Partitions of one topic have different replication factors.

    ## What it does
    Within a snapshot, reports a topic whose partitions do not all have the same current
    replication factor (the target size for a reassigning partition). With a plan and a
    snapshot, applies the plan to the snapshot and reports each topic the plan leaves
    inconsistent, at the plan's first entry for that topic. A declaration's static replica
    assignment (topicctl's `staticAssignments`, Koperator's and Terraform's where they
    have one) is reported at its first row whose length differs from the others' or from
    the declared replication factor: Kafka and topicctl refuse it.

    ## Why is this bad?
    A topic's replication factor is a per-partition fact in Kafka. Mixed RFs usually come
    from a partial or raced reassignment; the Strimzi topic operator then skips the topic
    and stops reconciling it.

    ## Example
    ```json
    {"name": "orders", "partitions": [
      {"partition": 0, "replicas": [1, 2, 3]},
      {"partition": 1, "replicas": [1, 2]}]}
    ```

    ## Use instead
    ```json
    {"name": "orders", "partitions": [
      {"partition": 0, "replicas": [1, 2, 3]},
      {"partition": 1, "replicas": [1, 2, 3]}]}
    ```
    """
    code = "PL205"
    plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "inconsistent-rf"
    severity = "warning"
    # of declarations, only those with a static assignment
    reads = Reads(targets=("snapshot", "plan", "manifest"), replica_lists_only=True,
                  spark_frame="topics")
    message = "{prefix}partitions of topic {topic} {verb} different replication factors: {shares}"
    share = "RF {rf} ({n} {partitions})"

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            yield from self._plan(target, ctx)
            return
        if isinstance(target, TopicSpec):
            yield from self._declared(target)
            return
        for topic in target.topics.values():
            rfs = Counter(current_rfs(topic.partitions))
            if len(rfs) > 1:
                yield self.finding(self.say(prefix="", topic=topic.name, verb="have",
                                            shares=self._shares(rfs)),
                                   at=topic.where("name"), topic=topic.name)

    def _plan(self, plan, ctx):
        view = ctx.plan_view(plan)
        runs: dict[str, list[tuple[int, int]]] | None = None  # topic -> its entries' runs
        for name, replica_lists, first in view.after:
            rfs = Counter(map(len, replica_lists))
            if len(rfs) <= 1:
                continue
            finding = self.finding(self.say(prefix="after this plan, ", topic=name,
                                            verb="would have", shares=self._shares(rfs)),
                                   at=plan.where(first), topic=name)
            if runs is None:  # once per plan: a topic's entries found without a scan
                runs = {}
                for topic, start, stop in view.runs:
                    runs.setdefault(topic, []).append((start, stop))
            entries = [i for start, stop in runs[name] for i in range(start, stop)]
            planned = {view.sizes[i] for i in entries}
            # the plan changes no RF of the topic: the inconsistency is the snapshot's own,
            # in partitions the plan does not name, which no repair of the plan changes
            if len(planned) == 1 and all(view.sizes[i] == view.current_rfs[i] for i in entries):
                size = next(iter(planned))
                named = {view.partitions[i] for i in entries}
                odd = [p for p in ctx.snapshot.topics[name].partitions
                       if p.partition not in named and len(target_replicas(p)) != size]
                if odd:
                    finding.message += (
                        "; not named by the plan, as the snapshot has them: "
                        + ", ".join(f"{name}-{p.partition} (RF {len(target_replicas(p))})"
                                    for p in odd[:5]) + (" ..." if len(odd) > 5 else ""))
                    finding.repairable = False  # a repair changes only the plan's entries
            yield finding

    def _declared(self, topic: TopicSpec):
        rows = topic.assignment or []
        rfs = Counter(map(len, rows))
        if topic.rf is not None and set(rfs) != {topic.rf}:
            odd = next(i for i, row in enumerate(rows) if len(row) != topic.rf)
            yield self.finding(
                f"topic {topic.name}: replica assignment row {odd} has {len(rows[odd])} "
                f"replicas, the replication factor is {topic.rf} ({self._shares(rfs)}): "
                "Kafka refuses the topic", at=topic.where("assignment", odd), topic=topic.name)
        elif len(rfs) > 1:
            common = rfs.most_common(1)[0][0]
            odd = next(i for i, row in enumerate(rows) if len(row) != common)
            yield self.finding(self.say(prefix="", topic=topic.name, verb="would have",
                                        shares=self._shares(rfs)) +
                               ": Kafka refuses the topic",
                               at=topic.where("assignment", odd), topic=topic.name)

    def _shares(self, rfs: Counter) -> str:
        return ", ".join(self.share.format(rf=rf, n=n, partitions=plural(n, "partition"))
                         for rf, n in sorted(rfs.items()))

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import one, plural, say
        shares = F.array_join(F.transform("rf_shares", lambda s: say(
            self.share, rf=s["rf"], n=s["n"], partitions=plural(s["n"], "partition"))), ", ")
        return one(F.size("rf_shares") > 1, say(self.message, prefix="", topic=F.col("topic"),
                                                  verb="have", shares=shares))
