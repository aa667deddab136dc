"""What a CEL rule reads, one record each: the variables (``Variable``: its fields, each of
its type, the fields that name a subject, its documentation) and the kinds of subject a
rule ``applies_to`` (``Kind``: its spellings, the variables it binds, the rule targets it
reads, how its subjects are made and where each is written). The environment, the field
regexes, the load-time type check and the README's table are made from them."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, NamedTuple

from ..model import Plan, Snapshot, TopicSpec
from . import subjects


class Variable(NamedTuple):
    name: str
    #: every field, with a value of its type: an expression is type-checked at load by what
    #: it gives for them (to CEL's checker a field of a map is of no declared type)
    sample: dict | None
    #: the README's row: its fields, as users read them
    doc: str
    #: the fields that name a subject: a verdict that reads one is that subject's own
    identity: tuple[str, ...] = ()
    #: null where there is none (as Kubernetes' ``object`` and ``oldObject``): its fields
    #: are not checked at load
    nullable: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.sample or ())


_TOPIC_SAMPLE = dict(zip(subjects.TOPIC, (
    "orders", 3, 3, ["rf", "partitions"], {}, {}, {}, {}, "KafkaTopic", "topics.yaml", True,
    [[1, 2, 3]])))

VARIABLES: dict[str, Variable] = {v.name: v for v in (
    Variable("topic", _TOPIC_SAMPLE,
             "`name`, `partitions`, `rf`, `stated` (which of `rf`, `partitions` the declaration "
             "writes; the others are its cluster's), `config` (effective, typed as Kafka parses "
             "each key: numbers, booleans, lists), `configs` (per key `value`, `stated`, "
             "`source`: the topic, the cluster, or Kafka's default), `labels`, `annotations`, "
             "`format` (`Strimzi KafkaTopic`, `Terraform kafka_topic`, `ClusterSnapshot`...), "
             "`file`, `managed`, `assignment`",
             identity=("name", "file", "assignment")),
    Variable("partition",
             {"topic": "orders", "partition": 0, "replicas": [1, 2, 3], "isr": [1, 2, 3],
              "adding": [], "removing": [], "leader": 1, "reassigning": False},
             "`topic`, `partition`, `replicas`, `isr`, `adding`, `removing`, `leader`, "
             "`reassigning` (snapshots)",
             identity=("partition", "topic")),
    Variable("entry",
             {"topic": "orders", "partition": 0, "replicas": [1, 2, 3], "before": [1, 2, 3],
              "log_dirs": ["any", "any", "any"]},
             "`topic`, `partition`, `replicas`, `before` (today's replicas, from the snapshot "
             "or `--current`), `log_dirs` (plan entries; `topic` is the entry's topic)",
             identity=("partition", "topic")),
    Variable("cluster",
             {"name": "prod", "brokers": [{"id": 1, "rack": "a"}], "racks": ["a"],
              "broker_count": 3, "kafka_version": "4.1", "config": {}},
             "`name`, `brokers` (`id`, `rack`), `racks`, `broker_count`, `kafka_version`, "
             "`config`"),
    Variable("change", {"before": _TOPIC_SAMPLE, "after": _TOPIC_SAMPLE, "actions": ["update"]},
             "`before`, `after` (topics), `actions` (diff mode against `--base`, Terraform "
             "plans); `object` and `oldObject` are the same `after` and `before`, `null` where "
             "there is none, as a ValidatingAdmissionPolicy names them"),
    Variable("object", _TOPIC_SAMPLE, "", nullable=True),
    Variable("oldObject", _TOPIC_SAMPLE, "", nullable=True),
    Variable("variables", None,
             "a rule's `variables` (`[{name, expression}]`), each evaluated once per subject, "
             "in order: a later one and every validation and `messageExpression` read "
             "`variables.NAME`"),
    Variable("params", None,
             "a rule's `params` (a map), with its `cluster_params: {CLUSTER: {...}}` of the "
             "subject's cluster over them: one rule, per-cluster limits"),
)}
#: the variables whose fields an expression is checked against at load
CHECKED = tuple(v.name for v in VARIABLES.values() if v.sample and not v.nullable)
#: a field read of one of them: ``topic.rf``, ``topic.?rf``
FIELD = re.compile(rf"(?<![.\w])({'|'.join(CHECKED)})\s*\.\s*\??\s*([A-Za-z_]\w*)")
#: ``ROOT.FIELD.matches(``: a pattern Python may answer for CEL (``reading.hoisted``)
CALL = re.compile(rf"(?<![.\w])({'|'.join(CHECKED)})\s*\.\s*([A-Za-z_]\w*)\s*\.\s*"
                  r"matches\s*\(")
#: the variable a batch lists the subjects it judges at once under (``batch._Batch``)
LISTED = "subjects__"


def table() -> str:
    """The README's table of what a rule sees."""
    return "\n".join(["| name | fields |", "|---|---|"] + [
        f"| `{v.name}` | {v.doc} |" for v in VARIABLES.values() if v.doc])


# -- subjects ----------------------------------------------------------------------------
# A kind makes, per target, each subject's maps by variable and its place, (describe,
# *args): where its fields are written and its label, made for a subject a rule reports.

class Kind(NamedTuple):
    name: str  # as ``applies_to`` says it
    aliases: tuple[str, ...]  # its other spellings, as Kubernetes users and RULES.md write it
    binds: tuple[str, ...]  # the variables it binds, the subject's own first
    targets: tuple[str, ...]  # the rule targets whose subjects it judges
    #: (target, ctx, fields) -> (maps, place) of each subject; ``fields``: of a topic's own
    #: map, those alone, where a pass reads a few (None: the whole map, made once per run)
    subjects: Callable[..., Iterator[tuple[dict, tuple]]]


def _topics(target: Any, ctx: Any, fields: tuple[str, ...] | None):
    if isinstance(target, TopicSpec):
        yield ({"topic": _memo(ctx, subjects.topic_of_spec, target, ctx) if fields is None
                else subjects.topic_of_spec(target, ctx, fields),
                "cluster": _memo(ctx, subjects.cluster, ctx.profile)}, (_spec, target))
    elif isinstance(target, Snapshot):
        cluster = _memo(ctx, subjects.cluster, target.profile)
        for topic in target.topics.values():
            yield ({"topic": _memo(ctx, subjects.topic_of_state, topic, target, ctx)
                    if fields is None else subjects.topic_of_state(topic, target, ctx, fields),
                    "cluster": cluster}, (_state, topic))


def _partitions(target: Any, ctx: Any, fields: tuple[str, ...] | None):
    if isinstance(target, Snapshot):
        cluster = _memo(ctx, subjects.cluster, target.profile)
        for topic in target.topics.values():
            topic_map = _memo(ctx, subjects.topic_of_state, topic, target, ctx)
            for p in topic.partitions:
                yield ({"partition": subjects.partition(topic, p), "topic": topic_map,
                        "cluster": cluster}, (_partition, topic, p))


def _plan_entries(target: Any, ctx: Any, fields: tuple[str, ...] | None):
    if isinstance(target, Plan):
        cluster = _memo(ctx, subjects.cluster, ctx.profile)
        for i, move in enumerate(target.moves):
            yield ({"entry": subjects.entry(target, i, ctx),
                    "topic": _plan_topic(ctx, move.topic), "cluster": cluster},
                   (_entry, target, i))


def _clusters(target: Any, ctx: Any, fields: tuple[str, ...] | None):
    profile = target.profile if isinstance(target, Snapshot) else target
    yield {"cluster": _memo(ctx, subjects.cluster, profile)}, (_cluster, profile)


def _changes(target: Any, ctx: Any, fields: tuple[str, ...] | None):
    cluster = _memo(ctx, subjects.cluster, ctx.profile)
    for change in ctx.changes or ():
        yield (_objects(subjects.change(change, ctx), cluster),
               (_spec, change.after or change.before))
    for spec in ctx.manifests if ctx.base is not None else ():
        before = ctx.base_manifest(spec.name)
        if before is not None:
            yield _objects(subjects.base_change(spec, before, ctx), cluster), (_spec, spec)


KINDS: dict[str, Kind] = {k.name: k for k in (
    Kind("topics", ("topic",), ("topic", "cluster"), ("manifest", "snapshot"), _topics),
    Kind("partitions", ("partition",), ("partition", "topic", "cluster"), ("snapshot",),
         _partitions),
    Kind("plan_entries", ("plan entries", "planEntries", "plan_entry", "entries"),
         ("entry", "topic", "cluster"), ("plan",), _plan_entries),
    Kind("clusters", ("cluster",), ("cluster",), ("profile",), _clusters),
    Kind("changes", ("change",), ("change", "object", "oldObject", "cluster"), ("run",),
         _changes),
)}
#: ``applies_to`` as a policy may spell it -> its one name
ALIASES = {alias: kind.name for kind in KINDS.values() for alias in kind.aliases}


def _spec(spec: TopicSpec) -> tuple:
    def at(field: str | None):
        if field and field.startswith("config."):
            return spec.config_at(field.split(".", 1)[1])
        return spec.where(field or "name") if (field or "name") in spec.paths else \
            spec.where("name")
    return at, (spec.name, None, f"topic {spec.name}")


def _state(topic) -> tuple:
    def at(field: str | None):
        if field and field.startswith("config."):
            return topic.where("config", field.split(".", 1)[1])
        return topic.where("partitions" if field == "partitions" else "name")
    return at, (topic.name, None, f"topic {topic.name}")


def _partition(topic, p) -> tuple:
    return (lambda field: topic.where_partition(p, field or "replicas"),
            (topic.name, p.partition, f"{topic.name}-{p.partition}"))


def _entry(plan: Plan, i: int) -> tuple:
    move = plan.moves[i]
    return (lambda field: plan.where(i, field or "replicas"),
            (move.topic, move.partition, f"{move.topic}-{move.partition}"))


def _cluster(profile) -> tuple:
    return (lambda field: (profile.doc, profile.config_path + (field.split(".", 1)[1],))
            if field and field.startswith("config.") and profile.doc is not None
            else profile.where(), (None, None, f"cluster {profile.name}"))


def _objects(change: dict, cluster: dict) -> dict:
    return {"change": change, "object": change.get("after"),
            "oldObject": change.get("before"), "cluster": cluster}


def _memo(ctx: Any, build: Any, *args: Any) -> Any:
    """``build(*args)`` once per run; the one empty map for no cluster (a verdict kept by
    shape tells clusters apart by the identity of their maps)."""
    return ctx.view(build, *args) if args[0] is not None else _NO_CLUSTER


_NO_CLUSTER: dict = {}


def _plan_topic(ctx: Any, name: str) -> dict:
    """What a plan entry's topic is known by: the snapshot's topic, else its declaration."""
    if ctx.snapshot is not None and name in ctx.snapshot.topics:
        return _memo(ctx, subjects.topic_of_state, ctx.snapshot.topics[name], ctx.snapshot, ctx)
    spec = ctx.manifest(name)
    return _memo(ctx, subjects.topic_of_spec, spec, ctx) if spec is not None else {"name": name}


class Subject:
    """What a rule judges: its maps by variable (``bindings``), where its fields are
    written (``at(field)``), its label (topic, partition, name), and the activation of its
    maps, made when a rule first evaluates them whole (most subjects are judged by a
    batch's own activation)."""

    __slots__ = ("kind", "bindings", "at", "label", "_activation")

    def __init__(self, kind: str, bindings: dict, at: Any, label: tuple):
        self.kind, self.bindings, self.at, self.label = kind, bindings, at, label
        self._activation = None

    def activation(self) -> Any:
        if self._activation is None:
            self._activation = environment(KINDS[self.kind].binds).Activation(self.bindings)
        return self._activation


def subjects_of(kind: str, target: Any, ctx: Any) -> list[Subject]:
    """The subjects of a target for the rules of one ``applies_to``, built once per run and
    target for all those rules."""
    cache = ctx.memo(subjects_of)
    found = cache.get((kind, id(target)))
    if found is None:  # the target is kept with them: its id stays its own
        found = cache[(kind, id(target))] = (target, [
            Subject(kind, maps, *place[0](*place[1:]))
            for maps, place in KINDS[kind].subjects(target, ctx, None)])
    return found[1]


# -- the environment ---------------------------------------------------------------------

_ENVS: dict[tuple[str, ...], Any] = {}  # per tuple of variables bound


def environment(binds: tuple[str, ...]) -> Any:
    """CEL's environment binding ``binds``: each a map (a nullable one of any type; the
    batch's list of subjects, a list of maps)."""
    if binds not in _ENVS:
        from cel_expr_python import cel
        from cel_expr_python.ext import ext_optional, ext_strings
        dyn = cel.Type.Map(cel.Type.STRING, cel.Type.DYN)
        nullable = {v.name for v in VARIABLES.values() if v.nullable}
        _ENVS[binds] = cel.NewEnv(variables={b: cel.Type.DYN if b in nullable else
                                             cel.Type.List(dyn) if b == LISTED else dyn
                                             for b in binds},
                                  extensions=[ext_optional.ExtOptional(),
                                              ext_strings.ExtStrings()])
    return _ENVS[binds]
