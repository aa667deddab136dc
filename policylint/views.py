"""The run's questions (``Questions``, which ``engine.Context`` answers from its inputs) and
the views of the model they build once per run and hand to rules. A plan of a million
entries is read at C speed here, once, so that each rule reads like its documentation;
rules never build these themselves."""

from __future__ import annotations

from collections import Counter
from functools import cached_property, lru_cache
from itertools import compress, count, groupby, repeat
from operator import attrgetter, gt, lt, ne
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from msgspec import Struct

from . import kafka_configs, platforms
from .kafka import (REMOVING, REPLICAS, Stated, as_int, cluster_setting, effective_min_isr,
                    isr_sizes, manifest_min_isr, manifest_rf, manifest_rf_stated,
                    min_isr_is_default, most_common, replica_counts, smallest_rf,
                    snapshot_topic_rf)
from .model import (KEY, Change, ClusterProfile, PartitionState, Plan, Ref, Snapshot,
                    TopicSpec, TopicState, by_metric_name, current_rf, target_replicas)
from .schema import memo_key

_TOPIC, _PARTITION, _LOG_DIRS = attrgetter("topic"), attrgetter("partition"), \
    attrgetter("log_dirs")
_ABSENT = PartitionState(-1, [])  # stands in for a partition not found


def where_replicas(owner: Any, item: Any) -> Ref:
    """Where the replica list of ``item`` (a plan entry's number, a snapshot partition, or
    the index of a manifest's explicit assignment) is written."""
    if isinstance(owner, Plan):
        return owner.where(item, "replicas")
    if isinstance(owner, TopicState):
        return owner.where_partition(item, "replicas")
    return owner.where("assignment", item)


class ReplicaList:
    """One replica list of a target and where it is."""
    __slots__ = ("topic", "partition", "replicas", "owner", "item", "verdict")

    def __init__(self, topic: str, partition: int, replicas: list[int], owner: Any,
                 item: Any, verdict: Any):
        self.topic, self.partition, self.replicas = topic, partition, replicas
        self.owner, self.item, self.verdict = owner, item, verdict

    def where(self, *rest: Any) -> Ref:
        doc, path = where_replicas(self.owner, self.item)
        return doc, path + rest


class ReplicaLists:
    """Every replica list of a target (plan entries, snapshot partitions, or a manifest's
    explicit assignment), for the rules that judge a list by itself.

    A plan of a million entries over thirty brokers holds a few thousand distinct lists:
    ``failing`` asks its verdict once per distinct list and finds the entries that hold a
    failing one at C speed.
    """

    def __init__(self, target: Any, final: bool = False):
        self.owners: list[Any] | Any = target
        if isinstance(target, Plan):
            self.items: Any = target.moves
            self.lists = list(map(REPLICAS, target.moves))
        elif isinstance(target, Snapshot):
            self.items, self.owners = [], []
            for topic in target.topics.values():
                self.items.extend(topic.partitions)
                self.owners.extend(repeat(topic, len(topic.partitions)))
            self.lists = list(map(target_replicas, self.items)) \
                if final and any(map(REMOVING, self.items)) else list(map(REPLICAS, self.items))
        elif isinstance(target, TopicSpec) and target.assignment:
            self.items, self.lists = range(len(target.assignment)), target.assignment
        else:
            self.items, self.lists = (), []
        #: each distinct list, numbered (by its first entry); and the number of each entry's
        #: list, so that each rule finds its failing entries by ints, not by tupling every
        #: list again (each tuple hashed once)
        self.distinct: dict[tuple[int, ...], int] = {}
        self._numbers = list(map(self.distinct.setdefault, map(tuple, self.lists), count()))

    def _entry(self, i: int, verdict: Any) -> ReplicaList:
        item, replicas = self.items[i], self.lists[i]
        if isinstance(self.owners, Plan):
            return ReplicaList(item.topic, item.partition, replicas, self.owners, i, verdict)
        if isinstance(self.owners, TopicSpec):
            return ReplicaList(self.owners.name, item, replicas, self.owners, item, verdict)
        owner = self.owners[i]
        return ReplicaList(owner.name, item.partition, replicas, owner, item, verdict)

    def failing(self, verdict: Callable[[tuple[int, ...]], Any]) -> Iterable[ReplicaList]:
        """Each list whose ``verdict(tuple of ids)`` is truthy, with that verdict."""
        if not self.distinct:
            return ()
        failing = {number: found for key, number in self.distinct.items()
                   if (found := verdict(key))}
        if not failing:
            return ()
        return (self._entry(i, failing[self._numbers[i]]) for i in compress(
            count(), map(failing.__contains__, self._numbers)))


class PlanView:
    """A plan's entries as columns, joined to the snapshot's partitions.

    ``states[i]`` is the snapshot's state of entry ``i``'s partition (None: not in the
    snapshot); the other columns are computed on first use.
    """

    def __init__(self, plan: Plan, snapshot: Snapshot | None):
        self.plan, self.snapshot = plan, snapshot
        moves = plan.moves
        self.topics: list[str] = list(map(_TOPIC, moves))
        self.partitions: list[int] = list(map(_PARTITION, moves))
        self.sizes: list[int] = list(map(len, map(REPLICAS, moves)))
        #: (topic, start, stop) of each run of entries of one topic (a plan lists a topic's
        #: entries together, so there are as many runs as topics)
        self.runs: list[tuple[str, int, int]] = []
        start = 0
        for name, group in groupby(self.topics):
            self.runs.append((name, start, start + len(list(group))))
            start = self.runs[-1][2]

    @cached_property
    def topic_sizes(self) -> set[tuple[str, int]]:
        """Every (topic, replica count) of an entry, and maybe pairs of no entry: each topic
        with the most common count, and the entries of other counts."""
        common = Counter(self.sizes).most_common(1)[0][0] if self.sizes else 0
        return {(topic, common) for topic in set(self.topics)}.union(
            (self.topics[i], self.sizes[i])
            for i in compress(count(), map(ne, self.sizes, repeat(common))))

    @cached_property
    def states(self) -> list[PartitionState | None]:
        if self.snapshot is None:
            return [None] * len(self.topics)
        indexes: dict[str, tuple[list[PartitionState], dict | None]] = {}
        states: list[PartitionState | None] = []
        for name, start, stop in self.runs:
            if name not in indexes:
                topic = self.snapshot.topics.get(name)
                parts = topic.partitions if topic is not None else []
                numbers = list(map(_PARTITION, parts))
                # partitions numbered 0..n-1 in order (the usual) are their own index
                indexes[name] = parts, (None if numbers == list(range(len(parts)))
                                        else dict(zip(numbers, parts)))
            parts, index = indexes[name]
            wanted = self.partitions[start:stop]
            if index is None and 0 <= min(wanted) and max(wanted) < len(parts):
                states.extend(map(parts.__getitem__, wanted))
            else:
                states.extend(map((index or dict(enumerate(parts))).get, wanted))
        return states

    @cached_property
    def _present(self) -> list[PartitionState]:
        """``states`` with a stand-in for partitions the snapshot lacks."""
        states = self.states
        return states if None not in states else [_ABSENT if s is None else s for s in states]

    @cached_property
    def isr_sizes(self) -> list[float]:
        """|ISR| of each entry's partition; infinite where unknown, never too small."""
        return isr_sizes(self._present)

    @cached_property
    def reassigning(self) -> list[int]:
        """Entries whose partition is reassigning."""
        states = self._present
        return sorted(set(compress(count(), map(attrgetter("adding"), states))).union(
            compress(count(), map(REMOVING, states))))

    @cached_property
    def uncertain(self) -> list[int]:
        """Entries whose partition the snapshot's capture could not read consistently."""
        return list(compress(count(), map(attrgetter("uncertain"), self._present)))

    def inflated(self, topic_rf: Callable[[str], int | None]) -> list[int]:
        """Entries whose partition holds more replicas than its topic's replication factor
        and is not reassigning: a read the snapshot cannot vouch for (PL204). A run of
        entries that is its whole topic, partition by partition (the usual), gives the RF
        itself (``kafka.snapshot_topic_rf``'s, from the same partitions); of the others it
        is ``topic_rf(topic)``."""
        reassigning, found = set(self.reassigning), []
        counts = list(replica_counts(self._present))
        for name, start, stop in self.runs:
            sizes = counts[start:stop]
            if self._whole(name, start, stop):
                if sizes.count(sizes[0]) == len(sizes):
                    continue  # one count: none more than the RF
                rf = most_common(sizes if reassigning.isdisjoint(range(start, stop)) else
                                 [n for i, n in enumerate(sizes, start) if i not in reassigning])
            else:
                rf = topic_rf(name)
            if rf is not None:
                found += [i for i in compress(range(start, stop), map(gt, sizes, repeat(rf)))
                          if i not in reassigning]
        return sorted(found)

    def _whole(self, name: str, start: int, stop: int) -> bool:
        """Whether entries ``start:stop`` plan every partition of topic ``name``, once and
        in the snapshot's order."""
        topic = self.snapshot.topics.get(name) if self.snapshot is not None else None
        return topic is not None and self.states[start:stop] == topic.partitions

    @cached_property
    def lagging(self) -> list[int]:
        """Entries whose partition has fewer in-sync replicas than replicas."""
        return list(compress(count(), map(gt, replica_counts(self._present), self.isr_sizes)))

    @cached_property
    def current_rfs(self) -> list[int | None]:
        """KIP-860 current RF of each entry's partition; None where the snapshot lacks it."""
        rfs: list[int | None] = list(replica_counts(self._present))
        for i in self.reassigning:
            rfs[i] = current_rf(self._present[i])
        if self._present is not self.states:
            for i, state in enumerate(self.states):
                if state is None:
                    rfs[i] = None
        return rfs

    def resized(self) -> Iterator[int]:
        """Entries whose replica count differs from the partition's current RF, or whose
        partition the snapshot lacks."""
        return compress(count(), map(ne, self.sizes, self.current_rfs))

    def below_min_isr(self, min_isr: Callable[[str], int]) -> Iterator[tuple[int, int]]:
        """(entry, the topic's min.insync.replicas) for each entry whose partition has fewer
        in-sync replicas than that; ``min_isr(topic)`` is asked once per topic."""
        floors = {topic: min_isr(topic) for topic in set(self.topics)}
        below = map(lt, self.isr_sizes, map(floors.__getitem__, self.topics))
        return ((i, floors[self.topics[i]]) for i in compress(count(), below))

    def log_dirs_mismatched(self) -> Iterator[int]:
        """Entries whose ``log_dirs`` are given and not as many as their replicas."""
        given = list(map(_LOG_DIRS, self.plan.moves))
        absent = given.count(None)
        if absent == len(given):
            return iter(())
        lengths = map(len, given) if not absent else \
            (n if dirs is None else len(dirs) for dirs, n in zip(given, self.sizes))
        return compress(count(), map(ne, lengths, self.sizes))

    @cached_property
    def after(self) -> list[tuple[str, list[list[int]], int]]:
        """(topic, replica list of each partition, its first plan entry's number) for every
        snapshot topic the plan touches, with the plan applied: a planned partition gets the
        plan's replicas, the others their target replicas."""
        if self.snapshot is None:
            return []
        moves = self.plan.moves
        runs: dict[str, list[tuple[int, int]]] = {}  # topic -> its runs of entries
        for name, start, stop in self.runs:
            runs.setdefault(name, []).append((start, stop))
        after = []
        for name, spans in runs.items():
            topic = self.snapshot.topics.get(name)
            if topic is None:
                continue
            start, stop = spans[0]
            if len(spans) == 1 and self._whole(name, start, stop):
                # the usual: every partition planned once, in order
                after.append((name, list(map(REPLICAS, moves[start:stop])), start))
                continue
            planned = {move.partition: move.replicas
                       for start, stop in spans for move in moves[start:stop]}
            after.append((name, [planned[p.partition] if p.partition in planned
                                 else target_replicas(p) for p in topic.partitions], start))
        return after


# -- the run's questions ------------------------------------------------------------------

class Questions:
    """What rules ask of a run besides their target, answered from its inputs (``Context``'s
    fields) once per run: each answer is kept in the run's memo (``memo``, ``view``), which
    CEL's subjects and batches use too."""

    __slots__ = ()

    def manifest(self, topic: str) -> TopicSpec | None:
        """The (first) linted manifest of a topic."""
        return self.view(_first_by_name, self.manifests).get(topic)

    def change_of(self, before: TopicSpec) -> Change | None:
        """The change set's change whose earlier side is ``before`` (None: not a change
        set's)."""
        return self.view(_by_before, self.changes).get(id(before))

    def base_manifest(self, topic: str) -> TopicSpec | None:
        """The (first) manifest of a topic at the base ref, in diff mode."""
        return self.view(_first_by_name, self.base).get(topic) if self.base else None

    def allows_rf_change(self, topic: str) -> bool:
        return self.allow_rf_change or self.policy.allows_rf_change(topic)

    def topic_config(self, topic: str) -> dict[str, Any]:
        """A topic's config: from the snapshot, else from its manifest."""
        if self.snapshot is not None and topic in self.snapshot.topics:
            return self.snapshot.topics[topic].config
        spec = self.manifest(topic)
        return spec.config if spec is not None else {}

    def min_isr(self, topic: str) -> int:
        return effective_min_isr(self.topic_config(topic), self.profile)

    def profile_for(self, target: Any) -> ClusterProfile | None:
        """The cluster a target is judged against: a snapshot its own, others the run's."""
        return target.profile if isinstance(target, Snapshot) else self.profile

    def kafka_version(self, target: Any) -> str | None:
        """The Kafka version an input states for a target's cluster, as written: its
        cluster's, else the one ``--kafka-version`` or the policy's ``kafka_version`` says;
        None when none does."""
        profile = self.profile_for(target)
        for version in (profile.kafka_version if profile is not None else None,
                        self.policy.kafka_version):
            if kafka_configs.has_version(version):
                return str(version)
        return None

    def kafka_window(self, target: Any) -> tuple[str, ...]:
        """The known Kafka releases a target is judged by: the one of its stated version
        (``kafka_version``), else every release of the policy's ``kafka_versions`` window
        (3.0 to the newest by default)."""
        profile = self.profile_for(target)  # the window is its cluster's: once per run
        made = self.memo(Questions.kafka_window)  # id(profile) -> its window
        found = made.get(id(profile))
        if found is None:
            version = self.kafka_version(target)
            found = made[id(profile)] = (kafka_configs.resolve(version),) \
                if version is not None else kafka_configs.window(self.policy.kafka_versions)
        return found

    def kafka_release(self, target: Any) -> str:
        """The release a target's topic configs are judged by where one release is asked
        for: the cluster's, else the newest of its window."""
        return self.kafka_window(target)[-1]

    def topic_rf(self, snapshot: Snapshot, topic: Any) -> int | None:
        """A snapshot topic's replication factor as the cluster holds it
        (``kafka.snapshot_topic_rf``: the most common current RF of its partitions), once
        per topic: several rules ask for it. A manifest that declares another RF is drift
        between the declaration and the cluster (PL202 on the manifest), not the snapshot's
        to answer for."""
        made = self.memo(Questions.topic_rf)  # id(topic) -> its RF
        if id(topic) not in made:
            made[id(topic)] = snapshot_topic_rf(topic, None)
        return made[id(topic)]

    def topic_configs(self, target: Any) -> list[TopicConfig]:
        """The config of a manifest, or of each topic of a snapshot, with where it is
        (those that set something; built once per target)."""
        made = self.memo(Questions.topic_configs)  # id(target) -> its configs
        found = made.get(id(target))
        if found is None:
            found = made[id(target)] = _topic_configs(target)
        return found

    def config_issues(self, target: Any) -> list[ConfigEntry]:
        """The config keys of a manifest, or of the topics of a snapshot, that a topic
        config rule may report: judged by the Kafka release of their cluster, those that
        are no topic config of it (unknown, broker-level, removed), deprecated, or with a
        value Kafka refuses. Keys with a vendor prefix that the policy
        (``configs.allow_prefixes``), the cluster (Confluent Server) or the topic's platform
        (Confluent Cloud) allows are left out. Built once per target, from a judgement
        made once per distinct config: a repository repeats the same few."""
        made = self.memo(Questions.config_issues)  # id(target) -> its issues
        found = made.get(id(target))
        if found is None:
            configs = self.topic_configs(target)
            releases = self.kafka_window(target) if configs else ()
            profile = self.profile_for(target)
            prefixes = tuple(self.policy.config_prefixes) + \
                (profile.vendor_configs if profile is not None else ()) + \
                (target.vendor_configs + platforms.config_prefixes(
                    platforms.of(self.policy, target)) if isinstance(target, TopicSpec)
                 else ())
            found = made[id(target)] = [
                tuple.__new__(ConfigEntry, (config, *issue)) for config in configs
                for issue in _judged_config(releases, prefixes, config.config)]
        return found

    def metric_twins(self, target: Any) -> dict[str, list[str]]:
        """``model.by_metric_name`` of the metric names two topics or more share: of a
        snapshot's topics, or (any other target) of the run's manifests."""
        if not isinstance(target, Snapshot):
            return self.view(_metric_twins, self.manifests) if self.name_clashes()[1] else {}
        return self.view(_metric_twins, target.topics)

    @property
    def judged_manifests(self) -> list[TopicSpec]:
        """The manifests whose findings are this run's: all, unless it judges some files'
        alone."""
        return self.manifests if self.judged is None else self.judged

    def name_clashes(self) -> tuple[bool, bool]:
        """(one name given twice, two names sharing a metric name) among the run's
        manifests (most runs: neither): ``clashes``, found when the run was not told."""
        if self.clashes is None:
            names = names_of(self.manifests)
            self.clashes = names.repeated, names.twinned
        return self.clashes

    def plan_view(self, plan: Plan) -> PlanView:
        """The plan's entries as columns, joined to the snapshot (built once per run)."""
        return self.view(PlanView, plan, self.snapshot)

    def replica_lists(self, target: Any, final: bool = False) -> ReplicaLists:
        """Every replica list of a plan, snapshot or manifest, judged once per distinct list
        (``.failing(verdict)``). ``final``: a snapshot's target replicas (replicas -
        removing) rather than its replicas."""
        return self.view(ReplicaLists, target, final and isinstance(target, Snapshot))

    def min_isr_subjects(self, snapshot: Snapshot, breaks: Callable[[int, int], Any]
                         ) -> Iterator[MinIsrSubject]:
        """The topics of a snapshot for which ``breaks(smallest current RF, effective
        minISR)`` holds, topic-level."""
        for topic, rf, min_isr in self._min_isr_topics(snapshot):
            if breaks(rf, min_isr):
                own = "min.insync.replicas" in topic.config
                at = topic.where("config", "min.insync.replicas") if own \
                    else topic.where("name")
                yield MinIsrSubject(topic.name, rf, min_isr, at,
                                    _default(topic.config, snapshot.profile),
                                    not own and as_int(snapshot.profile.config.get(
                                        "min.insync.replicas")) is not None)

    def _min_isr_topics(self, snapshot: Snapshot) -> list[tuple]:
        """(topic, smallest current RF, effective minISR) of each topic of a snapshot with
        a known RF, once per snapshot: three rules ask."""
        made = self.memo(Questions._min_isr_topics)  # id(snapshot) -> its topics
        found = made.get(id(snapshot))
        if found is None:
            profile = snapshot.profile
            found = made[id(snapshot)] = [
                (t, rf, effective_min_isr(t.config, profile))
                for t in snapshot.topics.values() if (rf := smallest_rf(t)) is not None]
        return found

    def declared(self, spec: TopicSpec) -> tuple[Stated, Stated]:
        """A declaration's RF and effective minISR, with where each comes from, once per
        declaration: the min ISR rules (and PL209, PL203) ask for the same."""
        made = self.memo(Questions.declared)  # id(manifest) -> its values
        found = made.get(id(spec))
        if found is None:
            found = made[id(spec)] = (manifest_rf_stated(spec, self.profile),
                                      manifest_min_isr(spec, self.profile))
        return found

    def topic_min_isr(self, topic: str) -> Stated:
        """A topic's effective min.insync.replicas, where a plan entry finds it: the
        snapshot's topic, else its declaration, else its cluster (``kafka.Stated``)."""
        if self.snapshot is not None and topic in self.snapshot.topics:
            config, source = self.snapshot.topics[topic].config, \
                f"the snapshot {self.snapshot.doc.source.name}"
            at = self.snapshot.topics[topic].where("config", "min.insync.replicas")
        else:
            spec = self.manifest(topic)
            config, source = (spec.config, f"the manifest of {topic}") \
                if spec is not None else ({}, "")
            at = spec.config_at("min.insync.replicas") if spec is not None else None
        if "min.insync.replicas" in config:
            return Stated(as_int(config["min.insync.replicas"]), at, source)
        return cluster_setting(self.profile, "min.insync.replicas")

    def entry_rf(self, plan: Plan, i: int) -> tuple[int | None, str]:
        """(current RF, where it comes from) of plan entry ``i``'s partition: the
        snapshot's (KIP-860), else the current assignment's (``--current``), else the RF
        its topic's declaration states (at the base ref in diff mode); None: unknown."""
        view = self.plan_view(plan)
        move = plan.moves[i]
        if view.states[i] is not None:
            return view.current_rfs[i], "the snapshot"
        if self.current and (move.topic, move.partition) in self.current:
            return len(self.current[move.topic, move.partition]), "the current assignment"
        spec = self.base_manifest(move.topic)
        if spec is not None:
            return manifest_rf(spec, self.profile), \
                f"the manifest of {move.topic} at {self.base_ref}"
        spec = self.manifest(move.topic)
        return (None if spec is None else manifest_rf(spec, self.profile),
                f"the manifest of {move.topic}")

    def memo(self, owner: Any) -> dict:
        """A dict kept for this run under ``owner`` (the function or object that fills it):
        what a caller remembers across the run's targets (CEL's subjects and verdicts)."""
        found = self._views.get(owner)
        if found is None:
            found = self._views[owner] = {}
        return found

    def view(self, build: Callable[..., Any], *args: Any) -> Any:
        """``build(*args)``, once per run: the arguments are objects of this run, told
        apart by identity."""
        views = self.memo(build)
        key = id(args[0]) if len(args) == 1 else tuple(map(id, args))
        view = views.get(key)
        if view is None:
            view = views[key] = build(*args)
        return view


class MinIsrSubject(Struct, frozen=True):
    """A snapshot topic the min ISR rules judge."""
    topic: str
    rf: int
    min_isr: int
    at: Ref
    #: the minISR is Kafka's built-in 1, nothing sets it: the cluster that does not ("" when
    #: the run has none for it); None when something sets it
    default: str | None = None
    #: the minISR is the cluster's broker default
    inherited: bool = False


class TopicConfig(NamedTuple):
    """One topic's config as written: ``key_at(key)`` and ``value_at(key)`` locate it."""
    topic: str
    config: dict[str, Any]
    doc: Any
    path: tuple
    moved: dict | None  # a manifest's ``config_paths``

    def key_at(self, key: str) -> Ref:
        if self.moved and key in self.moved:
            return (self.doc, self.moved[key][1])
        return (self.doc, self.path + (key, KEY))

    def value_at(self, key: str) -> Ref:
        if self.moved and key in self.moved:
            return (self.doc, self.moved[key][0])
        return (self.doc, self.path + (key,))


class ConfigEntry(NamedTuple):
    """One key of a topic's config, judged by its Kafka ``release``: ``status`` as
    ``kafka_configs.status`` says it, ``problem`` why Kafka refuses its value (or None).
    When no input says the cluster's release, it is judged on every release of the window
    (``kafka_configs.window``): ``release`` is the newest with that verdict, and ``only``
    is (the releases with it, those without) where they differ, else None."""
    config: TopicConfig
    key: str
    value: Any
    release: str
    status: str
    problem: str | None
    only: tuple[tuple[str, ...], tuple[str, ...]] | None = None


def _default(config: dict, profile: ClusterProfile | None) -> str | None:
    """(see ``MinIsrSubject.default``)"""
    if not min_isr_is_default(config, profile):
        return None
    return profile.name if profile is not None else ""


def _judged_config(releases: tuple[str, ...], prefixes: tuple, config: dict
                   ) -> tuple[tuple, ...]:
    key = memo_key(config)
    try:
        return _window_issues(releases, prefixes, key)
    except TypeError:  # a value that is no scalar (the schema refused it): judged anew
        return _window_issues.__wrapped__(releases, prefixes, key)


@lru_cache(maxsize=4096)
def _window_issues(releases: tuple[str, ...], prefixes: tuple, config: tuple
                   ) -> tuple[tuple, ...]:
    """(key, value, release, status, problem, only) of the keys of one config worth
    reporting on some release of ``releases`` (see ``ConfigEntry``). A key no release
    knows has one verdict on all of them, said once (a hostile config of 20,000 such keys
    is not judged 20,000 times per release)."""
    ever = kafka_configs.ever_known()
    never = {key for key, _ in config[0] if key not in ever and not (
        prefixes and key.startswith(prefixes))}
    alien = tuple((key, value, releases[-1], kafka_configs.status(key, releases[-1]), None,
                   None) for key, value in config[0] if key in never)
    if len(releases) == 1:
        return tuple(issue + (None,) for issue in _config_issues(
            releases[0], prefixes, config, never)) + alien
    verdicts: dict[str, dict[str, tuple]] = {}  # key -> release -> its issue
    for release in releases:
        for issue in _config_issues(release, prefixes, config, never):
            verdicts.setdefault(issue[0], {})[release] = issue
    found = list(alien)
    for by_release in verdicts.values():
        newest = by_release[max(by_release, key=releases.index)]
        # the releases with the newest one's verdict (its status, and a refusal or none)
        alike = tuple(r for r in releases if r in by_release and by_release[r][3] == newest[3]
                      and bool(by_release[r][4]) == bool(newest[4]))
        found.append(newest + (None if len(alike) == len(releases) else
                               (alike, tuple(r for r in releases if r not in alike)),))
    return tuple(found)


def _config_issues(release: str, prefixes: tuple, config: tuple, never: set = frozenset()
                   ) -> tuple[tuple, ...]:
    """(key, value, release, status, problem) of the keys of one config worth reporting
    (but those in ``never``); ``config``: its ``memo_key`` (its items, and their values'
    types)."""
    found = []
    for key, value in config[0]:
        if prefixes and key.startswith(prefixes) or key in never:
            continue
        status = kafka_configs.status(key, release)
        problem = kafka_configs.judge(release, key, value)[0]
        if status != "known" or problem:
            found.append((key, value, release, status, problem))
    return tuple(found)


def topic_config(item: Any) -> TopicConfig:
    """A manifest's or a snapshot topic's config, with where it is written."""
    if isinstance(item, TopicSpec):
        path, moved = item.paths["config"], item.config_paths
    else:
        path, moved = item.path + ("config",), None
    # NamedTuple's own __new__ is a Python call: a snapshot has many topics
    return tuple.__new__(TopicConfig, (item.name, item.config, item.doc, path, moved))


def _topic_configs(target: Any) -> list[TopicConfig]:
    items = target.topics.values() if isinstance(target, Snapshot) else (target,)
    return [topic_config(item) for item in items if item.config]


class Names(NamedTuple):
    """The distinct names of some topics and their metric names, and whether one name is
    given twice among them or two share a metric name: what a run that judges other topics
    beside them is told (``engine.weigh``), so that it asks nothing of these again
    (``Context.clashes``)."""
    names: set[str]
    metrics: set[str]
    repeated: bool
    twinned: bool


def names_of(specs: list[TopicSpec]) -> Names:
    listed = [spec.name for spec in specs]
    names = set(listed)
    metrics = {name.replace(".", "_") for name in names}
    return Names(names, metrics, len(names) < len(listed), len(metrics) < len(names))


def clashes(besides: Names, specs: list[TopicSpec]) -> tuple[bool, bool]:
    """(one name given twice, two names sharing a metric name) among the topics of
    ``besides`` and ``specs``, in the time of ``specs``."""
    listed = [spec.name for spec in specs]
    names = set(listed)
    new = names - besides.names
    metrics = {name.replace(".", "_") for name in new}
    return (besides.repeated or len(names) < len(listed) or len(new) < len(names),
            besides.twinned or len(metrics) < len(new) or not besides.metrics.isdisjoint(metrics))


def _metric_twins(source: dict | list) -> dict[str, list[str]]:
    """(see ``Context.metric_twins``) ``source``: a snapshot's topics, or manifests."""
    # a name given twice is one topic (PL117's)
    distinct = set(source) if isinstance(source, dict) else {spec.name for spec in source}
    if len({name.replace(".", "_") for name in distinct}) == len(distinct):
        return {}  # most runs: no two names alike, nothing to group
    return {metric: same for metric, same in by_metric_name(distinct).items()
            if len(same) > 1}


def _first_by_name(specs: list[TopicSpec]) -> dict[str, TopicSpec]:
    found: dict[str, TopicSpec] = {}
    for spec in specs:
        found.setdefault(spec.name, spec)
    return found


def _by_before(changes: list[Change]) -> dict[int, Change]:
    return {id(c.before): c for c in changes if c.before is not None}
