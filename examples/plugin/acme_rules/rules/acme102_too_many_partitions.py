from policylint.rule import Reads, Rule


class TooManyPartitions(Rule):
    """A topic has more partitions than ACME's brokers are sized for.

    ## What it does
    Reports a snapshot topic with more partitions than the option `max`.

    ## Why is this bad?
    Each partition costs file handles, memory and controller work; past a few hundred
    per topic ACME's clusters slow down on every restart.

    ## Example
    A topic with 4,096 partitions.

    ## Use instead
    At most `max` partitions; more consumers per partition instead.

    ## Options
    - `max` (integer, default 1000).
    """
    code = "ACME102"
    name = "too-many-partitions"
    severity = "warning"
    reads = Reads(targets=("snapshot",))
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "max": {"type": "integer", "minimum": 1, "default": 1000}}}
    message = "topic {topic} has {n} partitions, more than {max}"
    # no Spark form: the audit runs check() on each snapshot

    def check(self, snapshot, ctx, options):
        for topic in snapshot.topics.values():
            if len(topic.partitions) > options["max"]:
                yield self.finding(
                    self.say(topic=topic.name, n=len(topic.partitions), **options),
                    at=topic.where("name"), topic=topic.name)
