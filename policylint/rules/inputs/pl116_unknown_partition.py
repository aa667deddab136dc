from ...rule import Reads, Rule
from ...words import count


class UnknownPartition(Rule):
    """A plan names a topic or partition the snapshot does not have.

    ## What it does
    With a snapshot as cluster context, reports each plan entry whose topic is not in the
    snapshot, or whose partition number the topic does not have.

    ## Why is this bad?
    Kafka refuses the reassignment ("Topic orders not found" / "Unable to find partition
    orders-12"); a typo in a topic name or a plan generated for another cluster shows up
    here first.

    ## Example
    With topic `orders` of 3 partitions in the snapshot:
    ```json
    {"topic": "orders", "partition": 12, "replicas": [1, 2, 3]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 2, "replicas": [1, 2, 3]}
    ```
    """
    code = "PL116"
    name = "unknown-partition"
    severity = "error"
    reads = Reads(targets=("plan",))

    def check(self, plan, ctx, options):
        if ctx.snapshot is None or not ctx.snapshot.lists_topics:
            return  # a cluster profile lists no topics
        topics = ctx.snapshot.topics
        states = ctx.plan_view(plan).states
        if None not in states:
            return  # the common case, decided at C speed
        for i, (move, state) in enumerate(zip(plan.moves, states)):
            if state is not None:
                continue
            topic = topics.get(move.topic)
            if topic is None:
                message = (f"topic {move.topic} is not in the snapshot of cluster "
                           f"{ctx.snapshot.profile.name}")
                at = plan.where(i, "topic")
            else:
                message = (f"partition {move.topic}-{move.partition} is not in the snapshot "
                           f"of cluster {ctx.snapshot.profile.name} (topic {move.topic} has "
                           f"{count(len(topic.partitions), 'partition')})")
                at = plan.where(i, "partition")
            yield self.finding(message, at=at, topic=move.topic, partition=move.partition)
