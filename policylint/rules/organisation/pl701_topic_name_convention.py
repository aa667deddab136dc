import re

from ...rule import Reads, Rule
from .topics import topic_names


class TopicNameConvention(Rule):
    """A topic name breaks the organisation's naming convention.

    ## What it does
    Off until the policy sets `pattern` (a regular expression the whole name must match)
    or `prefixes` (the name must start with one of them), or both. Then reports, at the
    name, each manifest's topic and each snapshot topic (Kafka's internal `__` topics left
    out) that breaks them.

    ## Why is this bad?
    Names carry ownership, ACL prefixes and quotas: a topic outside the convention gets no
    ACLs, no owner and no alerting, and prefix-based ACLs (`orders.` for the orders team)
    silently do not cover it.

    ## Example
    ```yaml
    # policy: rules: {topic-name-convention: {prefixes: ["orders.", "payments."]}}
    metadata:
      name: tmp-test-topic
    ```

    ## Use instead
    ```yaml
    metadata:
      name: orders.created.v1
    ```

    ## Options
    - `pattern` (regex, default none): the whole name must match it.
    - `prefixes` (list, default none): the name must start with one of them.
    """
    code = "PL701"
    name = "topic-name-convention"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), needs=frozenset({"name"}), partitions=False,
                  spark_frame="names")
    message = "topic {topic}: the name {breaks}"
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "pattern": {"anyOf": [{"type": "string", "format": "regex"}, {"type": "null"}],
                    "default": None},
        "prefixes": {"type": ["array", "null"], "items": {"type": "string", "minLength": 1},
                     "default": None}}}

    def applies(self, options):
        return options["pattern"] is not None or options["prefixes"] is not None

    def check(self, target, ctx, options):
        pattern, prefixes = options["pattern"], options["prefixes"]
        for name, at in topic_names(target):
            if pattern is not None and not re.fullmatch(pattern, name):
                breaks = f"does not match the convention {pattern}"
            elif prefixes is not None and not name.startswith(tuple(prefixes)):
                breaks = f"starts with none of {', '.join(prefixes)}"
            else:
                continue
            yield self.finding(self.say(topic=name, breaks=breaks), at=at, topic=name)

    def spark(self, options, policy):
        """The topics this rule may report: every one but Kafka's internal ones when a
        pattern (a Python regular expression, which Spark's Java ones are not) is set,
        else those that start with none of the prefixes."""
        from functools import reduce

        from pyspark.sql import Column
        from pyspark.sql import functions as F
        name = F.col("topic")
        ours = ~name.startswith("__")
        if options["pattern"] is not None or not options["prefixes"]:
            return ours
        return ours & ~reduce(Column.__or__, [name.startswith(p)
                                             for p in options["prefixes"]])
