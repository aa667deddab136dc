from ...diff import at, matched
from ...kafka_configs import effective_retention
from ...rule import Reads, Rule
from ...words import duration, size

KEYS = ("retention.ms", "retention.bytes")


class RetentionDecrease(Rule):
    """A manifest cuts a topic's retention: below half of what it was, or from unlimited.

    ## What it does
    Compares each topic manifest's effective `retention.ms` and `retention.bytes` (the
    topic's, else the cluster's setting, else Kafka's default) with the same topic's
    before: its manifest at REF in diff mode (`--base REF`), and the live topic of the
    cluster's snapshot when the run has one. Reports, at the new value, a value below
    1/`max_factor` (default 2) of the old one, or a limit where there was none (-1).

    ## Why is this bad?
    Lowering retention deletes data at the next log cleanup: every record older or beyond
    the new limit is gone within minutes of the operator applying the change, including
    what lagging consumers and replays still needed. A cut that large deserves a
    deliberate review (raise `max_factor`, or exempt the topic, when it is meant).

    ## Example
    At REF `retention.ms: 604800000` (7 days), now:
    ```yaml
    config:
      retention.ms: 3600000
    ```

    ## Use instead
    Lower it in steps after checking consumer lag, or keep the data another way first.

    ## Options
    - `max_factor` (number >= 1, default 2): how many times smaller a value may become.
    """
    code = "PL210"
    name = "retention-decrease"
    severity = "warning"
    reads = Reads(targets=("run",))
    message = ("topic {topic}: {key} is lowered from {old} {before} to {new}: data past the "
               "new limit is deleted at the next log cleanup")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "max_factor": {"type": "number", "minimum": 1, "default": 2}}}

    def check(self, ctx, _, options):
        broker = ctx.profile.config if ctx.profile is not None else {}
        pairs = [(old.config, new, at(ctx, old)) for old, new in matched(ctx)]
        if ctx.snapshot is not None:
            pairs += [(ctx.snapshot.topics[new.name].config, new,
                       f"on the live cluster {ctx.snapshot.profile.name}")
                      for new in ctx.judged_manifests if new.name in ctx.snapshot.topics]
        for old_config, new, before in pairs:
            for key in KEYS:
                old, _ = effective_retention(key, old_config, broker)
                now, own = effective_retention(key, new.config, broker)
                if old is None or now is None or now < 0:
                    continue
                if old < 0 or now * options["max_factor"] < old:
                    said = duration if key == "retention.ms" else size
                    yield self.finding(
                        self.say(topic=new.name, key=key, new=said(now), before=before,
                                 old="unlimited (-1)" if old < 0 else said(old)),
                        at=new.config_at(key) if own else new.where("config"),
                        topic=new.name)
