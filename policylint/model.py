"""The model every source produces and every rule reads.

Hot objects (one per partition or plan entry, a million of them in a large run) are what a
snapshot or plan is decoded into: its schema's types subclass ``PartitionState`` and
``Move``, which say what an absent value means (``schema.Schema``'s models), so that no
such object is made twice. Small ones are NamedTuples, cheap to create; the others msgspec
Structs, which cost nothing to define at each start of a hook (a dataclass costs a quarter
of a millisecond). Every model object knows the document it came from, so a rule can point
at a value (``where``) without knowing the file format."""

from __future__ import annotations

import re

from functools import cached_property
from itertools import count
from typing import Any, Iterable, NamedTuple, Sequence

from msgspec import Struct, field

#: a ``policylint.sources.document.Document``: the model names it without importing it
#: (sources build the model, not the other way round)
Document = Any


#: a token on its line: up to a comma, bracket, comment or a key's colon (": " or the
#: line's end)
_TOKEN = re.compile(r"(?:[^,\]}#:]|:(?=[^ ]))*")


class _Key:
    """The last element of a path that names a mapping's key itself, not its value
    (``("spec", "config", "retention.mss", KEY)``): an unknown key is reported where it
    is written."""

    def __repr__(self) -> str:
        return "KEY"


KEY = _Key()

Ref = tuple  # (Document, path): a value in a document, located only when reported

SEVERITIES = ("error", "warning", "note")
SEVERITY_RANK = {"error": 3, "warning": 2, "note": 1}


class ClusterProfile(Struct):
    """Brokers, broker defaults and version of one cluster.

    ``brokers`` maps broker id to rack (``None``: no rack); it is ``None`` itself when the
    source knows how many brokers there are but not their ids (Strimzi node pools).
    """
    name: str
    brokers: dict[int, str | None] | None
    broker_count: int | None
    config: dict[str, Any]
    kafka_version: str | None
    doc: Document | None = None
    brokers_path: tuple = ()
    namespace: str | None = None
    config_path: tuple = ("config",)  # of the broker settings in ``doc``
    #: whether ``config`` holds every setting that differs from Kafka's defaults (a Kafka
    #: resource's does; a snapshot may list only some)
    config_complete: bool = False
    #: broker settings whose value is unknown (a template placeholder): left out of ``config``
    unknown: frozenset = frozenset()
    #: broker id -> its log directories, and -> those cordoned (KIP-1066's
    #: ``cordoned.log.dirs``, "*" for all), where the source says (a snapshot)
    log_dirs: dict[int, list[str]] = field(default_factory=dict)
    cordoned: dict[int, list[str]] = field(default_factory=dict)
    #: prefixes of topic configs the cluster's distribution adds to Kafka's own (Confluent
    #: Server's ``confluent.``): known configs there, not PL601
    vendor_configs: tuple[str, ...] = ()
    #: the broker settings its topics inherit, with where each comes from, as asked
    #: (``kafka.cluster_setting``)
    settings: dict = field(default_factory=dict)
    #: finalized feature levels where the source says (a snapshot's ``features``)
    features: dict[str, int] = field(default_factory=dict)
    #: whether the source states every broker's rack, none included (a snapshot, a Strimzi
    #: ``Kafka`` without ``spec.kafka.rack``); else a broker without one may have one no
    #: input names (a ``topologyKey``, node labels), and the cluster's racks are unknown
    racks_known: bool = False

    @property
    def racks(self) -> set[str]:
        return {r for r in (self.brokers or {}).values() if r is not None}

    def fully_cordoned(self, broker: int) -> bool:
        """Whether no log directory of ``broker`` takes new replicas (KIP-1066: every one
        of them cordoned)."""
        cordoned = self.cordoned.get(broker)
        dirs = self.log_dirs.get(broker)
        return bool(cordoned) and ("*" in cordoned or bool(dirs) and set(dirs) <= set(cordoned))

    def where(self) -> Ref | None:
        return None if self.doc is None else (self.doc, self.brokers_path)

    def where_config(self) -> Ref | None:
        """Where its broker settings are written (their key), or would be."""
        return None if self.doc is None else (self.doc, self.config_path + (KEY,))


class TopicSpec(Struct):
    """A topic as a manifest declares it. ``rf``/``partitions`` None: the broker default."""
    name: str
    rf: int | None
    partitions: int | None
    config: dict[str, Any]
    doc: Document
    paths: dict[str, tuple]           # field ("name", "rf", "config", ...) -> document path
    assignment: list[list[int]] | None = None  # explicit replica assignment, if the format has one
    annotations: dict[str, Any] = field(default_factory=dict)
    resource: tuple | None = None  # the manifest's own identity (kind, namespace, name)
    cluster: str | None = None  # the cluster the manifest names (Strimzi's label)
    namespace: str | None = None  # the namespace of the cluster it names
    #: whether ``cluster`` is a reference that need not name a cluster of the run (a
    #: Terraform provider alias): then the topic is placed as one that names none
    cluster_by_reference: bool = False
    #: fields ("rf", "partitions") and config keys whose value is unknown (a template
    #: placeholder, a value that broke the format's schema): left out of the fields above
    unknown: frozenset = frozenset()
    #: config keys not written at ``paths["config"] + (key,)``: key -> (path of its value,
    #: path of its key) (Aiven's snake_case, topicctl's retentionMinutes, a Jikkou ConfigMap)
    config_paths: dict[str, tuple[tuple, tuple]] | None = None
    #: what declares it, for messages ("Strimzi KafkaTopic", "topicctl topic", ...)
    kind: str = "KafkaTopic"
    #: how the tool that declares it names it (a Terraform resource address), if not by
    #: its file and position alone: messages about it say it
    origin: str | None = None
    #: prefixes of topic configs the platform the format declares for accepts besides
    #: Kafka's own (Confluent Cloud's ``confluent.``)
    vendor_configs: tuple[str, ...] = ()
    #: the file whose directory places it among the clusters, when not its own (a Terraform
    #: module's topic: the module call's)
    placed_at: str | None = None
    #: fields written as the broker default that the tool applying them leaves as they are
    #: on an existing topic (the Terraform kafka provider's ``replication_factor = -1``)
    kept: frozenset = frozenset()
    #: whether its operator manages the topic (Strimzi's ``strimzi.io/managed: "false"``:
    #: changing or deleting the resource leaves the topic as it is)
    managed: bool = True

    def where(self, name: str, *rest: Any) -> Ref:
        return (self.doc, self.paths.get(name, ()) + rest)

    def config_at(self, key: str, of_key: bool = False) -> Ref:
        """Where a config key's value (or the key itself) is written."""
        moved = self.config_paths.get(key) if self.config_paths else None
        if moved is not None:
            return (self.doc, moved[of_key])
        return (self.doc, self.paths.get("config", ()) + ((key, KEY) if of_key else (key,)))


class Change(NamedTuple):
    """A topic as it was and as it will be, from a change set that says so itself (a
    Terraform plan's ``before`` and ``after``): either side None where there is none."""
    before: TopicSpec | None
    after: TopicSpec | None
    actions: tuple[str, ...]  # "create", "update", "delete", "no-op", ...
    replace_paths: tuple[tuple[str, ...], ...]  # the attributes that force a replacement
    address: str  # how the change set names the resource
    doc: Document
    path: tuple  # of the change in ``doc``

    @property
    def replaces(self) -> bool:
        return "delete" in self.actions and "create" in self.actions

    def where(self) -> Ref:
        return (self.doc, self.path)


class PartitionState(Struct, frozen=True, gc=False):
    """One partition of a snapshot, as the schema's ``partition`` is decoded. ``isr`` is
    None when the snapshot does not say; ``uncertain`` says why the capture could not read
    the partition consistently. Where it is written, its topic knows (``where_partition``).
    """
    partition: int
    replicas: list[int]
    isr: list[int] | None = None
    adding: Sequence[int] = ()
    removing: Sequence[int] = ()
    uncertain: str | None = None


def is_reassigning(p: PartitionState) -> bool:
    return bool(p.adding or p.removing)


def target_replicas(p: PartitionState) -> list[int]:
    """Replicas once an in-flight reassignment completes (replicas - removing)."""
    if not p.removing:
        return p.replicas
    removing = set(p.removing)
    return [r for r in p.replicas if r not in removing]


def original_replicas(p: PartitionState) -> list[int]:
    """Replicas before an in-flight reassignment started (replicas - adding)."""
    if not p.adding:
        return p.replicas
    adding = set(p.adding)
    return [r for r in p.replicas if r not in adding]


def current_rf(p: PartitionState) -> int:
    """KIP-860: the target size while reassigning, else the replica count."""
    return len(target_replicas(p)) if p.removing else len(p.replicas)


class TopicState(Struct, dict=True):
    name: str
    config: dict[str, Any]
    partitions: list[PartitionState]
    doc: Document
    path: tuple  # of the topic entry in the snapshot
    #: where each partition is written in the topic's list (None: as listed; a snapshot's
    #: invalid partitions are left out)
    written: list[int] | None = None

    def where(self, *rest: Any) -> Ref:
        return (self.doc, self.path + rest)

    def where_partition(self, p: PartitionState, *rest: Any) -> Ref:
        return (self.doc, self.path + ("partitions", self._positions[id(p)]) + rest)

    @cached_property
    def _positions(self) -> dict[int, int]:
        """``id`` of each partition -> where it is written: found when a finding first
        needs it (most topics of a large snapshot have none)."""
        return dict(zip(map(id, self.partitions), self.written or count()))


class Snapshot(Struct, dict=True):
    profile: ClusterProfile
    topics: dict[str, TopicState]
    doc: Document
    captured_at: str | None = None
    #: whether it lists the cluster's topics (a cluster profile is a snapshot without)
    lists_topics: bool = True

    @cached_property
    def by_metric_name(self) -> dict[str, list[str]]:
        """``by_metric_name`` of its topics, found when first asked and kept with it: an
        editor judges each edit of a manifest against the same snapshot."""
        return by_metric_name(self.topics)


def by_metric_name(names: Iterable[str]) -> dict[str, list[str]]:
    """Kafka's metric name of a topic (``.`` written ``_``) -> the topic names with it,
    sorted."""
    found: dict[str, list[str]] = {}
    for name in names:
        found.setdefault(name.replace(".", "_"), []).append(name)
    # most names share their metric name with no other: nothing to sort or de-duplicate
    return {metric: same if len(same) == 1 else sorted(set(same))
            for metric, same in found.items()}


class Move(Struct, frozen=True, gc=False):
    """One entry of a reassignment plan, as the schema's ``entry`` is decoded. Where it is
    written, its plan knows by its number (``where``)."""
    topic: str
    partition: int
    replicas: list[int]
    log_dirs: list[str] | None = None


class Plan(Struct, dict=True):
    moves: list[Move]
    doc: Document
    entries: int  # written in the file, valid or not
    #: where each move is written in the plan's list (None: as listed; invalid entries are
    #: left out)
    written: list[int] | None = None

    @cached_property
    def topics(self) -> frozenset[str]:
        """The topics its entries move (found when first asked, kept with it)."""
        return frozenset(move.topic for move in self.moves)

    def index(self, entry: int) -> int:
        """Where ``moves[entry]`` is written in the plan's ``partitions``."""
        return entry if self.written is None else self.written[entry]

    def where(self, entry: int | None = None, *rest: Any) -> Ref:
        """Where ``moves[entry]`` is written (None: the plan's ``partitions``)."""
        if entry is None:
            return (self.doc, ("partitions",))
        return (self.doc, ("partitions", self.index(entry)) + rest)


class Fix(NamedTuple):
    """What ``--fix`` changes to resolve a finding: at ``at`` (a document and the path of a
    mapping entry), ``set`` its value, ``delete`` the entry, or ``rename`` its key (and set
    its value)."""
    action: str  # "set", "delete", "rename"
    at: Ref
    value: Any = None
    key: str | None = None  # the new key of a rename


class LineFix(NamedTuple):
    """What ``--fix`` changes to resolve a finding about a comment: line ``line`` of
    ``source`` becomes ``text`` (``None``: the line goes, its line break with it)."""
    source: Any
    line: int
    text: str | None


class Finding(Struct):
    rule: str
    name: str
    severity: str
    message: str
    at: Ref | None = None
    topic: str | None = None
    partition: int | None = None
    file: str | None = None
    line: int | None = None
    column: int | None = None
    suppressed: bool = False
    justification: str | None = None
    suppression: str | None = None  # SARIF's kind: "inSource" (comment, annotation), "external"
    fix: Fix | LineFix | None = None  # what --fix changes to resolve it, where known
    #: the other values it compares: (what, where) each; located as ``related_at``
    related: list = field(default_factory=list)
    #: of a subject that inherits the value breaking the rule: what identifies that value
    #: (rule, cluster, id, key) and where it is written; the engine reports the subjects
    #: that share one cause as one finding there (``engine.one_per_cause``)
    cause: tuple | None = None
    cause_at: Ref | None = None
    #: of such a finding: (message, at, related) as the subject's own, reported so when only
    #: some of the subjects that inherit the value break the rule
    alone: tuple | None = None
    #: the subjects of a finding that stands for several (their topic, file, line, column)
    subjects: list = field(default_factory=list)
    #: of a plan entry's finding: whether repairing the plan can resolve it (not where what
    #: breaks the rule is a partition the plan does not name)
    repairable: bool = True

    def locate(self) -> None:
        """Turns ``at`` into file, line and column."""
        if self.at is None:
            return
        doc, path = self.at
        self.file = doc.source.name
        where = doc.locate(path)
        if where is not None:
            self.line, self.column = where

    def end(self) -> tuple[int, int] | None:
        """Where the token the finding points at ends (line, column just past it): a
        scalar, quoted string or key on its line, as an editor underlines it; None where
        it has no line."""
        if self.at is None or self.line is None or self.column is None:
            return None
        source = self.at[0].source
        span = source.span(self.line)  # a JSON file's line, read in place
        if span is None:
            text = source.line(self.line)
            if text is None:
                return None
            span = (0, len(text))
        else:
            text = source.text
        first, last = span
        start = first + self.column - 1
        if start < last and text[start] in "\"'":  # a quoted string: to its quote
            close = text.find(text[start], start + 1, last)
            return self.line, (close - first + 2 if close >= 0 else last - first + 1)
        end = _TOKEN.match(text, start, last).end()
        if end == start:
            return self.line, self.column + 1
        while end > start and text[end - 1].isspace():
            end -= 1
        return self.line, end - first + 1

    def related_at(self) -> list[dict]:
        """The other values it compares, located: what, file, line, column."""
        found = []
        for what, (doc, path) in self.related:
            where = doc.locate(path) or (None, None)
            found.append({"what": what, "file": doc.source.name, "line": where[0],
                          "column": where[1]})
        return found

    def sort_key(self) -> tuple:
        return (self.file or "", self.line or 0, self.column or 0, self.rule,
                self.topic or "", -1 if self.partition is None else self.partition,
                self.message)
