import re
from ...model import Snapshot
from ...rule import Reads, Rule
from .topics import topic_names

LEGAL = re.compile(r"[a-zA-Z0-9._-]+")


def metric_name(topic: str) -> str:
    """The name Kafka's metrics give a topic: "." written "_"."""
    return topic.replace(".", "_")


class InvalidTopicName(Rule):
    """A topic name Kafka refuses, or two names Kafka's metrics cannot tell apart.

    ## What it does
    Reports, at the name: a name with characters outside `[a-zA-Z0-9._-]`, longer than 249
    characters, or `.` or `..` (Kafka refuses them); and two topics of one cluster (among
    its manifests and its snapshot) whose names differ only by `.` against `_`, at the
    second one.

    ## Why is this bad?
    Kafka refuses an illegal name, and with it the change. Kafka's metric names replace
    `.` by `_`, so `orders.v1` and `orders_v1` collide: Kafka warns and creating the
    second may fail; when both exist their metrics are mixed up.

    ## Example
    ```yaml
    metadata:
      name: orders_v1     # beside a topic orders.v1
    ```

    ## Use instead
    Pick one separator for the whole cluster.
    """
    code = "PL702"
    name = "invalid-topic-name"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), needs=frozenset({"name"}), partitions=False,
                  spark_frame="names", names_alike=metric_name)
    message = "topic {topic}: {problem}"

    def check(self, target, ctx, options):
        own = ctx.metric_twins(target)
        live = ctx.snapshot.by_metric_name \
            if ctx.snapshot is not None and not isinstance(target, Snapshot) else {}
        for name, at in topic_names(target):
            problem = _illegal(name)
            metric = metric_name(name)
            if problem is None and (metric in own or metric in live):
                problem = _collision(name, own.get(metric, ()), live.get(metric, ()))
            if problem:
                yield self.finding(self.say(topic=name, problem=problem), at=at, topic=name)

    def spark(self, options, policy):
        """The topics this rule may report, a superset: a character outside the legal
        ones, a length outside 1-249, . or .., or a twin (its metric name shared)."""
        from pyspark.sql import functions as F
        name = F.col("topic")
        return (name.rlike("[^a-zA-Z0-9._-]") | ~F.length(name).between(1, 249)
                | name.isin(".", "..") | (F.col("twins") > 1))


def _collision(name: str, same: list[str], live: list[str]) -> str | None:
    """A name that Kafka's metrics cannot tell from ``name``: among a manifest's, any topic
    of the cluster's snapshot (``live``) and the manifests before it (each pair reported
    once); among a snapshot's, the topics before it."""
    clash = sorted({n for n in same if n < name} | set(live) - {name})
    return f"collides with {clash[0]}: Kafka's metric names replace '.' by '_'" \
        if clash else None


def _illegal(name: str) -> str | None:
    if name in (".", ".."):
        return f"'{name}' is not a legal topic name"
    if len(name) > 249:
        return f"the name is {len(name)} characters long; Kafka allows 249"
    if not LEGAL.fullmatch(name):
        bad = sorted({c for c in name if not LEGAL.fullmatch(c)})
        return f"the name has characters Kafka refuses: {' '.join(map(repr, bad))}"
    return None
