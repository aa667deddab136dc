from ... import kafka_configs
from ...model import target_replicas
from ...rule import Reads, Rule


class ReplicaOnCordonedDir(Rule):
    """A plan places a new replica where Kafka refuses to (a cordoned log directory).

    ## What it does
    From Kafka 4.3 (KIP-1066) a broker's `cordoned.log.dirs` names log directories that
    take no new replicas (`*`: all of them). With a snapshot that carries each broker's
    `cordoned_log_dirs` (and `log_dirs`; `policylint snapshot` captures both), reports, at the replica, a plan entry that puts
    a replica on a broker that does not hold it yet and all of whose log directories are
    cordoned; and, at the entry of `log_dirs`, one that names a cordoned directory. A
    cluster whose release is known to be older than 4.3 has no cordoning: nothing is
    reported.

    ## Why is this bad?
    Kafka refuses the reassignment of that partition (`INELIGIBLE_REPLICA`): a broker is
    cordoned because it is being drained or its disks replaced, and the plan asks for the
    opposite.

    ## Example
    With broker 3's only log directory cordoned:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 3]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2, 4]}
    ```
    """
    code = "PL124"
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "replica-on-cordoned-dir"
    severity = "error"
    reads = Reads(targets=("plan",))
    message = ("{topic}-{partition}: {what} (cordoned_log_dirs of broker {broker} in "
               "{source}): Kafka {release} refuses it (INELIGIBLE_REPLICA)")

    def check(self, plan, ctx, options):
        profile = ctx.profile
        if profile is None or not profile.cordoned:
            return
        version = ctx.kafka_version(plan)
        if version is not None and not kafka_configs.at_least(
                kafka_configs.resolve(version), "4.3"):
            return
        release = kafka_configs.resolve(version) if version else "4.3+"
        source = profile.doc.source.name if profile.doc is not None else profile.name
        states = ctx.plan_view(plan).states
        # without the snapshot's partitions, a replica already held cannot be told from a
        # new one: only the log_dirs are judged, the rest counted as unchecked
        lists = ctx.snapshot is not None and ctx.snapshot.lists_topics
        for entry, (move, state) in enumerate(zip(plan.moves, states)):
            held = set(target_replicas(state)) if state is not None else \
                set() if lists else None
            if held is None and any(b in profile.cordoned for b in move.replicas):
                ctx.unchecked.add(self.code, plan.where(entry, "replicas"), move.topic,
                                  "which replicas the partition has today (a snapshot that "
                                  "lists its topics)")
            for i, broker in enumerate(move.replicas):
                cordoned = profile.cordoned.get(broker)
                if not cordoned:
                    continue
                where, what = None, None
                wanted = move.log_dirs[i] if move.log_dirs and i < len(move.log_dirs) else "any"
                if wanted != "any" and ("*" in cordoned or wanted in cordoned):
                    where = plan.where(entry, "log_dirs", i)
                    what = f"log_dirs names {wanted}, a cordoned directory of broker {broker}"
                elif held is not None and broker not in held and \
                        profile.fully_cordoned(broker):
                    where = plan.where(entry, "replicas", i)
                    what = f"a new replica on broker {broker}, all of whose log " \
                           "directories are cordoned"
                if where is not None:
                    yield self.finding(self.say(topic=move.topic, partition=move.partition,
                                                what=what, broker=broker, source=source,
                                                release=release),
                                       at=where, topic=move.topic, partition=move.partition)
