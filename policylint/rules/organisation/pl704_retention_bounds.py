from ...kafka_configs import effective_retention
from ...rule import Reads, Rule
from .topics import every_topic

class RetentionBounds(Rule):
    """A topic's effective retention is outside the policy's bounds, or unlimited.

    ## What it does
    Off until the policy sets a bound. For each of `retention.ms` ([`min_ms`, `max_ms`])
    and `retention.bytes` ([`min_bytes`, `max_bytes`]) with a bound set, reports a
    manifest or snapshot topic whose effective value is outside it, or unlimited (-1)
    while `allow_unlimited` is false. The effective value is the topic's, else the
    cluster's (`log.retention.ms`, `.minutes`, `.hours`; `log.retention.bytes`), else
    Kafka's default (7 days; unlimited bytes). Located at the value when the topic sets
    it, else at the topic's config (or name).

    ## Why is this bad?
    Retention is a cost and a compliance promise: too short loses data consumers have not
    read, too long (or unlimited) fills disks and keeps personal data past its deadline.

    ## Example
    ```yaml
    # policy: rules: {retention-bounds: {min_ms: 3600000, max_ms: 2592000000}}
    config:
      retention.ms: -1
    ```

    ## Use instead
    ```yaml
    config:
      retention.ms: 604800000
    ```

    ## Options
    - `min_ms`, `max_ms`, `min_bytes`, `max_bytes` (integers, default none).
    - `allow_unlimited` (boolean, default false): whether -1 passes a bounded dimension.
    """
    code = "PL704"
    name = "retention-bounds"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"),
                  needs=frozenset({"retention.ms", "retention.bytes"}), partitions=False,
                  spark_frame="configs")
    message = "topic {topic}: {key}={value}{whence} {problem}"
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        **{name: {"type": ["integer", "null"], "minimum": 0, "default": None}
           for name in ("min_ms", "max_ms", "min_bytes", "max_bytes")},
        "allow_unlimited": {"type": "boolean", "default": False}}}

    def applies(self, options):
        return any(options[k] is not None for k in ("min_ms", "max_ms", "min_bytes",
                                                    "max_bytes"))

    def check(self, target, ctx, options):
        bounds = {"retention.ms": (options["min_ms"], options["max_ms"]),
                  "retention.bytes": (options["min_bytes"], options["max_bytes"])}
        bounded = {k: b for k, b in bounds.items() if b != (None, None)}
        profile = ctx.profile_for(target)
        broker = profile.config if profile is not None else {}
        for config in every_topic(target):
            for key, (lo, hi) in bounded.items():
                value, own = effective_retention(key, config.config, broker)
                if value is None:
                    continue  # not a number: PL603's
                if value < 0:
                    problem = None if options["allow_unlimited"] else \
                        "is unlimited, and the policy bounds it"
                elif lo is not None and value < lo:
                    problem = f"is below the policy minimum {lo}"
                elif hi is not None and value > hi:
                    problem = f"is above the policy maximum {hi}"
                else:
                    problem = None
                if problem:
                    whence = "" if own else " (the cluster's or Kafka's default)"
                    yield self.finding(
                        self.say(topic=config.topic, key=key, value=value, whence=whence,
                                 problem=problem),
                        at=config.value_at(key) if own else (config.doc, config.path),
                        topic=config.topic)

