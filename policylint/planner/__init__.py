"""``policylint plan``: reassignments written, not only judged.

From a snapshot and a goal (add, remove or replace brokers, rebalance, repair what the
rules find), ``make`` works out the replicas of every partition (``placement.place``) and
their leaders (``leaders.order``), and returns the plan in Kafka's own JSON with its
rollback and what it does. The CLI lints the plan against the same snapshot before it
writes it, splits it into batches (``batches``) and prints the report (``report``).
"""

from __future__ import annotations

import fnmatch
from typing import NamedTuple

from ..kafka import snapshot_topic_rf
from ..model import Snapshot, is_reassigning, original_replicas, target_replicas
from .budget import within
from .leaders import order, skewed, spread_by_moves
from .placement import Goal, Placement, place


class Request(NamedTuple):
    """What the operator asks for. Brokers are ids; a new broker's rack comes with it."""
    add: dict[int, str | None] = {}
    remove: frozenset = frozenset()
    replace: dict[int, int] = {}  # broker -> the broker that takes its replicas
    racks: dict[int, str | None] = {}  # racks of replacing brokers (else the replaced one's)
    balance: bool = True  # move replicas so every broker holds its share (else: repair)
    bytes_too: bool = False  # and even out the bytes each holds (sizes needed)
    topics: tuple[str, ...] = ()  # name patterns; none: every topic
    rf: dict[str, int] = {}  # RF changes asked for, by topic name
    rack_mode: str = "strict"  # PL401's, and PL403's max_skew, from the policy
    max_skew: int = 1
    sizes: dict[tuple[str, int], int] | None = None  # bytes of each partition
    in_flight: bool = False  # plan while reassignments are in flight (theirs stay as they are)
    under_replicated: bool = False  # move under-replicated partitions too
    leaders_only: bool = False  # reorder preferred leaders only: no replica moves
    max_moves: int | None = None  # the best plan of at most this many replica moves


class PlanError(Exception):
    """A plan that cannot be made as asked (exit 2, one line)."""


class Made(NamedTuple):
    keys: list[tuple[str, int]]
    before: list[list[int]]  # every partition's target replicas today
    after: list[list[int]]  # and once the plan is applied
    changed: list[int]  # indices of the partitions the plan names
    brokers: dict[int, str | None]  # the brokers of the result
    leaders_changed: int
    left: dict[str, int]  # partitions left as they are, by reason
    stuck: dict[int, str]  # partitions that could not be placed: why
    balance: bool = True  # a balance goal (else: a repair, moving only what must move)

    def plan(self, which: str = "after", only: list[int] | None = None,
             steps: dict[int, list[int]] | None = None) -> dict:
        """The plan (or ``which="before"``: its rollback) in Kafka's JSON; ``steps``: the
        lists a batch sets where they are not yet the plan's."""
        lists = self.after if which == "after" else self.before
        steps = steps or {}
        chosen = [(i, steps.get(i, lists[i])) for i in (self.changed if only is None else only)]
        return {"version": 1, "partitions": [
            {"topic": self.keys[i][0], "partition": self.keys[i][1], "replicas": replicas,
             "log_dirs": ["any"] * len(replicas)} for i, replicas in chosen]}


def _min_isr(snapshot: Snapshot, topic) -> int:
    """The topic's min.insync.replicas as the broker applies it (1 where nothing says)."""
    for config in (topic.config, snapshot.profile.config):
        try:
            return int((config or {})["min.insync.replicas"])
        except (KeyError, TypeError, ValueError):
            continue
    return 1


#: why a plan leaves a partition out whose replicas the snapshot cannot vouch for (PL204)
UNCERTAIN = ("read inconsistently by the capture (PL204): capture again once the "
             "reassignment completes")
INFLATED = ("holding more replicas than their topic's replication factor with no "
            "reassignment stated, probably read mid-reassignment (PL204): capture again once "
            "it completes")


def unvouched(p, topic_rf: int | None) -> str | None:
    """Why the snapshot cannot vouch for the replica set of ``p`` as its settled one, or
    None: a plan that copied it would make an in-flight union permanent (KIP-860)."""
    if p.uncertain:
        return UNCERTAIN
    if topic_rf is not None and len(p.replicas) > topic_rf and not is_reassigning(p):
        return INFLATED
    return None


def brokers_of(snapshot: Snapshot, request: Request) -> dict[int, str | None]:
    """The brokers the result may use, with their racks; PlanError (one line, before any
    work) for a request the cluster as it will be cannot meet."""
    known = dict(snapshot.profile.brokers or {})
    holding = {b for t in snapshot.topics.values() for p in t.partitions for b in p.replicas}
    for b in request.add:
        if b in request.remove or b in request.replace:
            raise PlanError(f"--add {b}: broker {b} is also removed or replaced")
        if b in holding:
            raise PlanError(f"--add {b}: broker {b} is already in the cluster and holds "
                            "replicas (--add is for brokers that join)")
    for old, new in request.replace.items():
        if new in request.add:
            raise PlanError(f"--replace {old}={new} and --add {new}: broker {new} is named "
                            f"twice (--replace {old}={new}:RACK brings it in)")
        if old not in known:
            raise PlanError(f"--replace {old}={new}: broker {old} is not in the snapshot")
        if new in known and new not in request.add and any(
                new == o for o in request.replace):
            raise PlanError(f"--replace: broker {new} is replaced and replaces")
        if new in holding:
            raise PlanError(f"--replace {old}={new}: broker {new} already holds replicas")
        known.setdefault(new, request.racks.get(new, known[old]))
    for b in request.remove:
        if b not in known:
            raise PlanError(f"--remove {b}: broker {b} is not in the snapshot")
    known.update(request.add)
    brokers = {b: r for b, r in known.items()
               if b not in request.remove and b not in request.replace}
    if not brokers:
        raise PlanError("no broker is left to hold the replicas")
    racked = [b for b, r in brokers.items() if r is not None]
    if racked and len(racked) != len(brokers):
        bare = sorted(b for b, r in brokers.items() if r is None)
        raise PlanError(f"brokers {', '.join(map(str, bare))} have no rack while others do "
                        "(PL402): give each a rack (--add ID:RACK, or in the snapshot)")
    gone = request.remove | set(request.replace)
    emptied = sorted({r for b, r in known.items() if r is not None and b in gone}
                     - {r for r in brokers.values()})
    if emptied:
        leaving = ", ".join(str(b) for b in sorted(gone) if known.get(b) in emptied)
        raise PlanError(f"removing {leaving} leaves rack {', '.join(emptied)} empty: add a "
                        f"broker there (--add ID:{emptied[0]}) or remove fewer")
    for name, topic in sorted(snapshot.topics.items()):
        settled = snapshot_topic_rf(topic, None)  # an inflated read is left out: not its RF
        rf = request.rf.get(name) or max((len(target_replicas(p)) for p in topic.partitions
                                          if unvouched(p, settled) is None), default=0)
        if rf > len(brokers) and (name in request.rf or gone):
            raise PlanError(f"topic {name}: replication factor {rf} is larger than the "
                            f"{len(brokers)} brokers the cluster will have")
    return brokers


def make(snapshot: Snapshot, request: Request) -> Made:
    """The plan that meets ``request`` from ``snapshot``, with the fewest moves."""
    brokers = brokers_of(snapshot, request)
    closed = frozenset(b for b in brokers if snapshot.profile.fully_cordoned(b))
    keys, before, movable, rf, first, topics = [], [], [], [], [], []
    left: dict[str, int] = {}
    for name in sorted(snapshot.topics):
        topic = snapshot.topics[name]
        chosen = not request.topics or any(fnmatch.fnmatchcase(name, p)
                                           for p in request.topics)
        settled_rf = snapshot_topic_rf(topic, None)
        for p in sorted(topic.partitions, key=lambda p: p.partition):
            replicas = target_replicas(p)
            why = None if chosen else "not among --topics"
            if why is None and (p.adding or p.removing):
                why = "reassigning now (PL306)"
            if why is None:
                why = unvouched(p, settled_rf)
            if why is None and p.isr is not None and len(p.isr) < _min_isr(snapshot, topic):
                why = "under min.insync.replicas (PL304): moving them adds to their load"
            if why is None and not request.under_replicated and p.isr is not None and \
                    len(original_replicas(p)) > len(p.isr):
                why = "under-replicated (PL305): --include-under-replicated moves them"
            if why:
                left[why] = left.get(why, 0) + 1
            keys.append((name, p.partition))
            before.append(replicas)
            movable.append(why is None)
            rf.append(request.rf.get(name, len(replicas)))
            first.append(replicas[0] if replicas and replicas[0] >= 0 else None)
            topics.append(name)
    if any(p.adding or p.removing for t in snapshot.topics.values() for p in t.partitions) \
            and not request.in_flight:
        raise PlanError("a reassignment is in flight in the snapshot (PL306): wait for it "
                        "to complete, or give --allow-in-flight to plan around it")
    sizes = [request.sizes.get(k, 0) for k in keys] if request.sizes else None
    goal = Goal(brokers, movable, rf, request.balance, request.rack_mode, sizes, closed,
                bytes_too=request.bytes_too, topics=topics)
    placed = Placement([list(r) for r in before], {}) if request.leaders_only else \
        place(before, goal)
    for pid in placed.stuck:  # left as it is, said why
        placed.lists[pid] = before[pid]
        movable[pid] = False
    if not request.balance:  # a repair: leaders move only in the topics it changes
        touched = {t for t, a, b in zip(topics, before, placed.lists) if a != b}
        movable = [ok and t in touched for ok, t in zip(movable, topics)]
    lists = order(placed.lists, topics, movable, brokers, first, request.balance)
    if not request.leaders_only:
        spread_by_moves(lists, before, topics, movable, brokers, request.max_skew, closed)
    stay = skewed(lists, before, topics, brokers, request.max_skew)
    if stay:  # a topic no plan spreads (what may not move leads it): left as it is
        why = "of topics whose leaders no plan can spread over racks (PL403)"
        for i, t in enumerate(topics):
            if t in stay:
                left[why] = left.get(why, 0) + (lists[i] != before[i])
                lists[i] = before[i]
    if request.max_moves is not None:
        try:
            lists, beyond = within(before, lists, [i for i, (a, b) in enumerate(
                zip(before, lists)) if a != b], brokers, request.max_moves)
        except ValueError as exc:
            raise PlanError(str(exc)) from None
        if beyond:
            left[f"beyond --max-moves {request.max_moves:,} (a later plan moves them)"] = beyond
    changed = [i for i, (a, b) in enumerate(zip(before, lists)) if a != b]
    leaders_changed = sum(1 for i in changed if lists[i][:1] != before[i][:1])
    return Made(keys, before, lists, changed, brokers, leaders_changed, left, placed.stuck,
                request.balance)


def read_snapshot(path: str, brokers: dict[int, str | None] | None = None,
                  max_size: int | None = None) -> Snapshot:
    """The one snapshot of the cluster in ``path`` (a ClusterSnapshot, or ``kafka-topics.sh
    --describe`` output with ``brokers`` given). InputError where it is none, or broken."""
    from ..sources import DEFAULT_MAX_FILE_SIZE, InputError
    from ..sources.loader import read_inputs
    inputs = read_inputs([path], max_size=max_size or DEFAULT_MAX_FILE_SIZE)
    broken = [f for f in inputs.findings if f.rule in ("PL100", "PL101")]
    if broken:  # as lint shows it (severities are the policy's, given later)
        f = broken[0]
        f.locate()
        raise InputError(f"{f.file}:{f.line or 1}:{f.column or 1}: {f.rule} {f.message}: a "
                         "plan is made only from a snapshot policylint reads whole")
    listing = [s for s in inputs.snapshots if s.lists_topics]
    if len(listing) != 1:
        raise InputError(f"{path}: {'no' if not listing else 'more than one'} snapshot of a "
                         "cluster's topics (give one ClusterSnapshot, or kafka-topics.sh "
                         "--describe output with --brokers)")
    snapshot = listing[0]
    if brokers:
        snapshot.profile.brokers = dict(brokers)
        snapshot.profile.broker_count = len(brokers)
    elif not snapshot.profile.brokers:
        raise InputError(f"{path} does not list the cluster's brokers: give them with "
                         "--brokers ID[:RACK],...")
    return snapshot
