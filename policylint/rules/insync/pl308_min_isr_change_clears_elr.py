from ...diff import at, matched
from ...kafka import as_int, cluster_setting, elr
from ...model import ClusterProfile
from ...rule import Reads, Rule

KEY = "min.insync.replicas"


class MinIsrChangeClearsElr(Rule):
    """A min.insync.replicas change while eligible leader replicas are on.

    ## What it does
    Compares each topic declaration's own `min.insync.replicas` with the same topic's
    before (its manifest at REF in diff mode, a Terraform plan's before, the live topic of
    the cluster's snapshot) and reports a change (a value set, changed or removed) when
    eligible leader replicas (ELR, KIP-966) are on for the topic's cluster. Whether they
    are on is read from the cluster's feature level (`eligible.leader.replicas.version` in
    a snapshot's `features`), a config that states it, or its release (none before Kafka
    4.0). Where no input says, the topic is counted unchecked: a 4.1 cluster formatted new
    has ELR on, one upgraded from 4.0 has it off.

    Also reports a cluster resource (a Strimzi `Kafka`'s broker config) whose
    `min.insync.replicas` differs from the live cluster's (its snapshot in the run) while
    ELR is on: Kafka refuses a broker-level min.insync.replicas change then ("Broker-level
    min.insync.replicas cannot be altered while ELR is enabled", as running 4.x clusters
    answer `bench/kafka_oracle.py`).

    ## Why is this bad?
    With ELR on, Kafka clears a topic's eligible leader replicas when its
    min.insync.replicas is updated (and every topic's when the cluster default is). Until
    the ISR regrows, a partition that loses its last in-sync replica has no replica known
    to hold every committed record to elect: it stays offline, or an unclean election loses
    data. The change itself is allowed; apply it when the cluster is healthy, not during an
    incident. A broker-level change is refused outright while ELR is on: only the
    cluster-level default (`kafka-configs.sh --entity-type brokers --entity-default`) can
    change, and changing it clears every topic's ELR.

    ## Example
    At REF `min.insync.replicas: 2`, now:
    ```yaml
    config:
      min.insync.replicas: 3
    ```

    ## Use instead
    Change it while every partition's ISR is full, and watch under-min-ISR partitions
    until they recover.
    """
    code = "PL308"
    name = "min-isr-change-clears-elr"
    severity = "warning"
    reads = Reads(targets=("run", "profile"), spark_frame="configs")
    # an audit reads snapshots alone: no declaration to compare, so checked once per cluster
    # shape it finds nothing, as lint on the same snapshots
    message = ("topic {topic}: min.insync.replicas {old} {before} becomes {new} while eligible "
               "leader replicas are on ({said}): Kafka clears the topic's ELR, and until its "
               "ISR regrows a partition that loses its last in-sync replica has no eligible "
               "leader (KIP-966)")
    refused_message = ("cluster {cluster}: min.insync.replicas {new} differs from the live "
                       "cluster's {old} ({live}) while eligible leader replicas are on "
                       "({said}): Kafka refuses a broker-level min.insync.replicas change; "
                       "change the cluster-level default instead (kafka-configs.sh "
                       "--entity-type brokers --entity-default), which clears every topic's "
                       "ELR (KIP-966)")

    def check(self, target, ctx, options):
        if isinstance(target, ClusterProfile):
            yield from self._cluster(target, ctx)
            return
        pairs = [(old.config, new, at(ctx, old)) for old, new in matched(ctx)]
        if ctx.snapshot is not None:
            pairs += [(ctx.snapshot.topics[new.name].config, new,
                       f"on the live cluster {ctx.snapshot.profile.name}")
                      for new in ctx.judged_manifests if new.name in ctx.snapshot.topics]
        profile = ctx.snapshot.profile if ctx.snapshot is not None else ctx.profile
        on, said = elr(profile)
        for old_config, new, before in pairs:
            old, now = old_config.get(KEY), new.config.get(KEY)
            if (as_int(old) if old is not None else None) == \
                    (as_int(now) if now is not None else None):
                continue
            if on is None:
                ctx.unchecked.add(self.code, new.where("name"), new.name,
                                  "whether eligible leader replicas are on for its cluster "
                                  "(a snapshot with the cluster's features)")
                continue
            if on:
                yield self.finding(
                    self.say(topic=new.name, old="unset" if old is None else old,
                             new="unset" if now is None else now, before=before, said=said),
                    at=new.config_at(KEY) if now is not None else new.where("config"),
                    topic=new.name)

    def _cluster(self, profile, ctx):
        """A cluster resource's broker min.insync.replicas against the live cluster's."""
        live = ctx.snapshot
        if live is None or profile is live.profile or KEY not in profile.config:
            return
        new, old = profile.config[KEY], live.profile.config.get(KEY)
        if old is None or as_int(new) == as_int(old):
            return  # the live value is not captured, or nothing changes
        on, said = elr(live.profile)
        where = cluster_setting(profile, KEY).at or profile.where_config()
        if on is None:
            ctx.unchecked.add(self.code, where, None, "whether eligible leader replicas are "
                              "on for the cluster (a snapshot with the cluster's features)")
        elif on:
            yield self.finding(self.refused_message.format(
                cluster=profile.name, new=new, old=old, live=live.doc.source.name, said=said),
                at=where)
