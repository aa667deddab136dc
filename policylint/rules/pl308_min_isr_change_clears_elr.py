from ..diff import at, matched
from ..kafka import as_int, elr
from ..rule import Rule

KEY = "min.insync.replicas"


class MinIsrChangeClearsElr(Rule):
    """A topic's min.insync.replicas changes while eligible leader replicas are on.

    ## What it does
    Compares each topic declaration's own `min.insync.replicas` with the same topic's
    before (its manifest at REF in diff mode, a Terraform plan's before, the live topic of
    the cluster's snapshot) and reports a change (a value set, changed or removed) when
    eligible leader replicas (ELR, KIP-966) are on for the topic's cluster. Whether they
    are on is read from the cluster's feature level (`eligible.leader.replicas.version` in
    a snapshot's `features`), a config that states it, or its release (none before Kafka
    4.0). Where no input says, the topic is counted unchecked: a 4.1 cluster formatted new
    has ELR on, one upgraded from 4.0 has it off.

    ## Why is this bad?
    With ELR on, Kafka clears a topic's eligible leader replicas when its
    min.insync.replicas is updated (and every topic's when the cluster default is). Until
    the ISR regrows, a partition that loses its last in-sync replica has no replica known
    to hold every committed record to elect: it stays offline, or an unclean election loses
    data. The change itself is allowed; apply it when the cluster is healthy, not during an
    incident.

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
    targets = ("run",)
    message = ("topic {topic}: min.insync.replicas {old} {before} becomes {new} while eligible "
               "leader replicas are on ({said}): Kafka clears the topic's ELR, and until its "
               "ISR regrows a partition that loses its last in-sync replica has no eligible "
               "leader (KIP-966)")

    def check(self, ctx, _, options):
        pairs = [(old.config, new, at(ctx, old)) for old, new in matched(ctx)]
        if ctx.snapshot is not None:
            pairs += [(ctx.snapshot.topics[new.name].config, new,
                       f"on the live cluster {ctx.snapshot.profile.name}")
                      for new in ctx.manifests if new.name in ctx.snapshot.topics]
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
