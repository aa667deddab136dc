"""Where replicas go: the one function every goal of ``policylint plan`` (and ``--fix`` on
plans) goes through, ``place(lists, goal) -> Placement``.

A documented heuristic, in three passes over the partitions, each moving a replica only
where it must:

1. **Keep what is valid.** A replica stays where it is unless its broker is not one the
   result may use (removed, unknown, a placeholder), it names a broker twice, or it breaks
   the rack rule (PL401's mode: ``strict``, min(RF, racks) distinct racks; ``even``, no rack
   over ceil(RF / racks)). What goes leaves a hole in its slot; an RF asked for adds or
   drops slots.
2. **Fill the holes** with a broker below its share, among those the rack rule allows
   (racks the partition lacks first): of the first few below it, the one that holds
   fewest of the partition's topic.
3. **Balance** (``Goal.balance``): each broker above its share (the mean, floor or ceil,
   the ceil going to the brokers that hold most already) gives replicas to brokers below
   theirs, followers before leaders and small partitions before large ones, a replacement
   in its own rack first. A broker gives a topic of which it holds more than its share
   before one of which it holds its share, and a receiver (of those below their share, the
   one holding fewest of the topic) takes a topic of which it holds less than its share
   before one of which it holds its share: each topic's replicas stay spread. Every
   replica that arrives is one a balanced result needs, so the moves are the lower
   bound's (the replicas that must arrive on each broker) but where racks forbid it.

A balance goal on a cluster small enough is met exactly instead (``exact``: a
minimum-cost flow); the passes above are for the larger ones, and for the goals and
clusters the flow does not model. Leaders are ordered afterwards (``leaders.order``).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from typing import NamedTuple

from .shares import rack_shares


class Goal(NamedTuple):
    """What the result must be. Per partition (``lists``' order): whether it may change
    and its RF in the result."""
    brokers: dict[int, str | None]  # the brokers replicas may be on, and their racks
    movable: list[bool]
    rf: list[int]
    balance: bool = True  # also move replicas so that every broker holds its share
    rack_mode: str = "strict"  # PL401's
    sizes: list[int] | None = None  # bytes of each partition, where known
    closed: frozenset = frozenset()  # brokers that take no new replica (cordoned)
    #: per partition, brokers that hold it today (a repaired plan's): a hole goes to one of
    #: them first, where the rack rule allows, as that copies no data
    holders: list | None = None
    #: also even out the bytes each broker holds (``sizes`` needed), by swapping replicas
    #: of two partitions between two brokers of one rack: counts and racks stay as they are
    bytes_too: bool = False
    #: per partition, its topic: givers and receivers keep each topic's replicas spread
    #: (passes 2 and 3), so that no topic's traffic lands whole on the brokers that receive
    topics: list | None = None


class Placement(NamedTuple):
    lists: list[list[int]]  # every partition's replicas in the result
    stuck: dict[int, str]  # partitions that could not be placed: why


def place(lists: list[list[int]], goal: Goal) -> Placement:
    """The replicas of every partition once ``goal`` is met, with the fewest moves the
    passes above find (leaders not yet ordered: a kept replica keeps its slot). A balance
    goal on a cluster small enough is met exactly (``exact``) where a plan exists."""
    if goal.balance and goal.holders is None:
        from .exact import place_exactly
        out = place_exactly(lists, goal)
        if out is not None:
            if goal.bytes_too and goal.sizes:
                _even_bytes(out, goal, {})
            return Placement(out, {})
    state = _State(goal)
    out: list[list[int]] = []
    holes: list[int] = []
    for pid, replicas in enumerate(lists):
        if not goal.movable[pid]:
            out.append(replicas)
            state.count(replicas)
            continue
        slots = state.kept(replicas, goal.rf[pid])
        out.append(slots)
        state.count(slots)
        if None in slots:
            holes.append(pid)
    state.set_targets(sum(len(s) for s in out), goal.rf)
    stuck: dict[int, str] = {}
    held = _held(out, goal.topics)
    for pid in holes:
        topic = goal.topics[pid] if held is not None else None
        was = list(out[pid])
        why = state.fill(out[pid], goal.holders[pid] if goal.holders else (),
                         None if held is None else (lambda x, t=topic: held[(x, t)]))
        if held is not None:
            held.update((b, topic) for a, b in zip(was, out[pid]) if a is None and b is not None)
        if why:
            stuck[pid] = why
    if goal.balance:
        state.balance(out, goal, stuck, held)
        state.relay(out, goal, stuck)
        if goal.bytes_too and goal.sizes:
            _even_bytes(out, goal, stuck)
    return Placement(out, stuck)


def _even_bytes(out: list[list], goal: Goal, stuck: dict[int, str]) -> None:
    """Within each rack, while the broker holding most bytes and the one holding fewest
    differ, swap a larger replica of the first for a smaller one of the second, the pair
    whose difference comes closest to half of theirs (each swap moves both)."""
    import bisect
    sizes, rack = goal.sizes, goal.brokers
    held: dict[int, set[int]] = {b: set() for b in rack}
    data: Counter = Counter()
    for pid, slots in enumerate(out):
        for b in slots:
            if b in held:
                data[b] += sizes[pid]
                if goal.movable[pid] and pid not in stuck:
                    held[b].add(pid)
    groups: dict = {}
    for b in rack:
        if b not in goal.closed:
            groups.setdefault(rack[b], []).append(b)
    for members in groups.values():
        for _ in range(20 * len(members)):
            most = max(members, key=lambda b: (data[b], b))
            least = min(members, key=lambda b: (data[b], b))
            gap = data[most] - data[least]
            if gap <= 0:
                break
            theirs = sorted((sizes[q], q) for q in held[least] if most not in out[q])
            if not theirs:
                break
            best = None
            for p in held[most]:
                if least in out[p]:
                    continue
                # q with size(p) - size(q) nearest gap / 2, and 0 < difference < gap
                i = bisect.bisect_left(theirs, (sizes[p] - gap / 2, -1))
                for size_q, q in theirs[max(i - 1, 0):i + 1]:
                    moved = sizes[p] - size_q
                    if 0 < moved < gap and (best is None or abs(gap / 2 - moved) <
                                            abs(gap / 2 - best[0])):
                        best = (moved, p, q)
            if best is None:
                break
            moved, p, q = best
            out[p][out[p].index(most)] = least
            out[q][out[q].index(least)] = most
            held[most].discard(p)
            held[least].add(p)
            held[least].discard(q)
            held[most].add(q)
            data[most] -= moved
            data[least] += moved


class _State:
    """Loads, shares and the brokers below their share, rack by rack."""

    def __init__(self, goal: Goal):
        self.rack = goal.brokers
        self.racks = sorted({r for r in goal.brokers.values() if r is not None})
        self.even = goal.rack_mode == "even"
        self.closed = goal.closed
        self.load: Counter = Counter()
        self.target: dict[int, int] = {}
        self.heaps: dict[str | None, list] = {}

    def count(self, slots: list) -> None:
        load, rack = self.load, self.rack
        for b in slots:
            if b is not None and b in rack:
                load[b] += 1

    # -- pass 1 -----------------------------------------------------------------------------

    def kept(self, replicas: list[int], rf: int) -> list:
        """The partition's slots: its replicas where they may stay, None where one must
        arrive; ``rf`` slots."""
        rack, racks = self.rack, self.racks
        if len(replicas) == rf:  # the usual: every replica where it may stay
            on = [rack.get(b, _NONE) for b in replicas]
            if _NONE not in on and len(set(replicas)) == rf and (
                    not racks or len(set(on)) == min(rf, len(racks)) and
                    (rf <= len(racks) or not self.even)):
                return list(replicas)
        cap = math.ceil(rf / len(racks)) if racks and self.even else rf
        seen: set[int] = set()
        per_rack: Counter = Counter()
        slots: list = []
        for b in replicas:
            r = rack.get(b, _NONE)
            if r is _NONE or b in seen or (racks and per_rack[r] >= cap):
                slots.append(None)
                continue
            seen.add(b)
            per_rack[r] += 1
            slots.append(b)
        while len(slots) > rf:  # an RF lowered: holes go first, then the last followers
            slots.pop(slots.index(None) if None in slots else -1)
        slots += [None] * (rf - len(slots))
        if racks:  # strict: enough racks must stay reachable with the holes left
            per_rack = Counter(rack[b] for b in slots if b is not None)
            need = min(rf, len(racks))
            while need - len(per_rack) > slots.count(None):
                i = max(i for i, b in enumerate(slots) if b is not None and per_rack[rack[b]] > 1)
                per_rack[rack[slots[i]]] -= 1
                slots[i] = None
        return slots

    # -- shares ---------------------------------------------------------------------------------

    def set_targets(self, total: int, rfs: list[int]) -> None:
        """Each open broker's share of ``total`` replicas: the mean, but never less than its
        rack must hold (strict: every partition of RF >= racks has a replica in each
        rack), the remainder to those that hold most (fewest moves); a closed broker's
        share is what it holds."""
        open_ = [b for b in self.rack if b not in self.closed]
        if not open_:
            return
        left = total - sum(self.load[b] for b in self.rack if b in self.closed)
        groups: dict = {}
        for b in open_:
            groups.setdefault(self.rack[b] if self.racks else None, []).append(b)
        spread = sum(1 for rf in rfs if rf >= len(self.racks)) \
            if self.racks and not self.even else 0
        shares = rack_shares({r: len(m) for r, m in groups.items()}, spread, max(left, 0))
        _round(shares, max(left, 0), {r: sum(self.load[b] for b in m) for r, m in groups.items()})
        for r, members in groups.items():
            members.sort(key=lambda b: (-self.load[b], b))
            share, extra = divmod(shares[r], len(members))
            for i, b in enumerate(members):
                self.target[b] = share + (i < extra)
            heap = self.heaps[r] = [(self.load[b] - self.target[b], b) for b in members]
            heapq.heapify(heap)

    def _moved(self, b: int, by: int) -> None:
        self.load[b] += by
        if b in self.target:
            heapq.heappush(self.heaps[self.rack[b] if self.racks else None],
                           (self.load[b] - self.target[b], b))

    def _best(self, rack: str | None, slots: list, below: bool, holds=None) -> tuple | None:
        """The open broker of ``rack`` furthest below its share that the partition does
        not hold (``below``: only one below it); where ``holds`` is given, among the
        first few below their share (or as far below as the first), the one that holds
        fewest of the partition's topic: any of them takes it at no extra move."""
        heap = self.heaps.get(rack)
        if not heap:
            return None
        aside, found = [], []
        while heap and len(found) < (8 if holds else 1):
            key, b = heap[0]
            if key != self.load[b] - self.target[b]:
                heapq.heappop(heap)  # stale: a newer entry is in the heap
                continue
            if found and key != found[0][0] and key >= 0:
                break
            entry = heapq.heappop(heap)
            aside.append(entry)
            if b not in slots:
                found.append(entry)
        for entry in aside:
            heapq.heappush(heap, entry)
        if not found:
            return None
        best = min(found, key=lambda e: (holds(e[1]), e)) if holds and len(found) > 1 \
            else found[0]
        return best if not below or best[0] < 0 else None

    # -- pass 2 ---------------------------------------------------------------------------------

    def _open_racks(self, slots: list, leaving: int | None = None) -> list[list]:
        """The racks a replica arriving in ``slots`` may come from (``leaving``: the broker it
        replaces), as groups to try in turn: the partition's least-used racks first, then
        any the rack rule allows."""
        if not self.racks:
            return [[None], [None]]
        rf = len(slots)
        per_rack = Counter(self.rack[b] for b in slots if b is not None and b != leaving)
        if self.even:
            cap = math.ceil(rf / len(self.racks))
            allowed = [r for r in self.racks if per_rack[r] < cap]
        else:
            missing = min(rf, len(self.racks)) - len(per_rack)
            open_slots = sum(1 for b in slots if b is None or b == leaving)
            allowed = [r for r in self.racks if per_rack[r] == 0] if missing >= open_slots \
                else list(self.racks)
        fewest = min((per_rack[r] for r in allowed), default=0)
        return [[r for r in allowed if per_rack[r] == fewest], allowed]

    def _may_take(self, rack: str | None, slots: list, leaving: int) -> bool:
        """Whether ``rack`` is among the racks ``_open_racks(slots, leaving)`` allows, found
        without listing them (the balance pass asks it of every replica it moves)."""
        if not self.racks:
            return True
        others = [self.rack[b] for b in slots if b is not None and b != leaving]
        if self.even:
            return others.count(rack) < math.ceil(len(slots) / len(self.racks))
        missing = min(len(slots), len(self.racks)) - len(set(others))
        return rack not in others or missing < len(slots) - len(others)

    def _best_of(self, racks: list, slots: list, below: bool, holds=None) -> tuple | None:
        return min(filter(None, (self._best(r, slots, below, holds) for r in racks)),
                   default=None)

    def fill(self, slots: list, holders=(), holds=None) -> str | None:
        """Fills the partition's holes (from ``holders`` first; among brokers as far below
        their share, the one that ``holds`` fewest of its topic); why not, where it
        cannot."""
        for i, b in enumerate(slots):
            if b is not None:
                continue
            fewest, allowed = self._open_racks(slots)
            held = [h for h in holders if h in self.target and h not in slots and
                    (self.rack[h] if self.racks else None) in allowed]
            if held:
                slots[i] = held[0]
                self._moved(held[0], 1)
                continue
            best = self._best_of(fewest, slots, False, holds) or \
                self._best_of(allowed, slots, False, holds)
            if best is None:
                return self._why(slots)
            slots[i] = best[1]
            self._moved(best[1], 1)
        return None

    def _why(self, slots: list) -> str:
        open_ = [b for b in self.rack if b not in self.closed]
        if len(slots) > len(open_) + sum(1 for b in slots if b in self.closed):
            return f"RF {len(slots)} is larger than the {len(open_)} brokers it may use"
        return f"RF {len(slots)} cannot span the racks the rule asks for " \
               f"({len(self.racks)} racks)"

    # -- pass 3 ---------------------------------------------------------------------------------

    def balance(self, out: list[list], goal: Goal, stuck: dict[int, str],
                held: Counter | None) -> None:
        """Brokers above their share give replicas to brokers below theirs. A broker that
        leads more than its share of partitions gives led ones first (its replacement in
        the same rack leads them: no topic's leaders change rack), others followers;
        small partitions before large ones."""
        led: dict[int, list[int]] = {}
        followed: dict[int, list[int]] = {}
        leads: Counter = Counter()
        for pid, slots in enumerate(out):
            if slots:
                leads[slots[0]] += 1
            if goal.movable[pid] and pid not in stuck:
                for i, b in enumerate(slots):
                    (led if i == 0 else followed).setdefault(b, []).append(pid)
        mean = sum(leads[b] for b in self.target) / max(len(self.target), 1)
        by_topic = _by_topic(goal.topics)  # a topic's partitions: its share of a broker
        shares: dict = {}

        def fair(same: list) -> tuple[int, int]:
            """A broker's share of a topic's replicas, rounded down and up."""
            key = id(same)
            if key not in shares:
                floor, extra = divmod(sum(len(out[q]) for q in same), max(len(self.target), 1))
                shares[key] = floor, floor + (extra > 0)
            return shares[key]
        over = sorted((b for b in self.target if self.load[b] > self.target[b]),
                      key=lambda b: (self.target[b] - self.load[b], b))
        for b in over:
            if not any(h and h[0][0] < 0 for h in self.heaps.values()):
                return  # every broker holds its share
            lists = [_round_robin(x.get(b, ()), goal.sizes, goal.topics)
                     for x in (led, followed)]
            later: list = [[], []]  # partitions whose topic the receiver holds already
            while self.load[b] > self.target[b]:
                first = 0 if leads[b] > mean else 1
                pid = next(lists[first], None)
                if pid is None:
                    pid = next(lists[1 - first], None)
                    if pid is None:
                        if not any(later):
                            break
                        pid = (later[first] or later[1 - first]).pop(0)
                        first = -1  # taken from later: placed wherever it fits
                slots = out[pid]
                if b not in slots:
                    continue
                at = slots.index(b)
                own = self.rack[b] if self.racks else None
                topic = goal.topics[pid] if goal.topics is not None else None
                same = by_topic[topic] if topic is not None else None
                holds = None if same is None else (lambda x, t=topic: held[(x, t)])
                best = self._best(own, slots, True, holds) \
                    if self._may_take(own, slots, b) else None
                if best is None:
                    racks = self._open_racks(slots, leaving=b)[1]
                    best = self._best_of([r for r in racks if r != own], slots, True)
                if best is None:
                    continue
                if first >= 0 and same is not None and (
                        holds(best[1]) >= fair(same)[1] or holds(b) <= fair(same)[0]):
                    # the receiver holds its share of the topic, or the giver no more than
                    # its share: other topics first
                    later[at > 0].append(pid)
                    continue
                slots[at] = best[1]
                self._moved(b, -1)
                self._moved(best[1], 1)
                if held is not None:
                    held[(b, topic)] -= 1
                    held[(best[1], topic)] += 1
                if at == 0:
                    leads[b] -= 1
                    leads[best[1]] += 1


    def relay(self, out: list[list], goal: Goal, stuck: dict[int, str]) -> None:
        """Where a broker is still above its share because the rack rule lets none of its
        replicas go to a broker below its share (racks of unequal size, an RF below the
        racks), it gives one to a broker at its share that gives one of its own to a broker
        below: two moves where one cannot do. Bounded work: a large cluster the balance
        pass evens out never gets here."""
        below = [b for b in self.target if self.load[b] < self.target[b]]
        over = [b for b in self.target if self.load[b] > self.target[b]]
        if not below or not over:
            return
        held: dict[int, list[int]] = {}
        for pid, slots in enumerate(out):
            if goal.movable[pid] and pid not in stuck:
                for b in slots:
                    held.setdefault(b, []).append(pid)

        def fits(pid: int, leaving: int, to: int) -> bool:
            slots = out[pid]
            return to not in slots and \
                (self.rack[to] if self.racks else None) in self._open_racks(slots, leaving)[1]

        def move(pid: int, leaving: int, to: int) -> None:
            slots = out[pid]
            slots[slots.index(leaving)] = to
            held[leaving].remove(pid)
            held.setdefault(to, []).append(pid)
            self._moved(leaving, -1)
            self._moved(to, 1)
        work = 2_000_000  # fits() calls
        for b in over:
            while self.load[b] > self.target[b] and work > 0:
                below = [y for y in below if self.load[y] < self.target[y]]
                if not below:
                    return
                # brokers at their share with a replica that may go to one below: (q, y)
                onward = {}
                for x in self.target:
                    if x == b or self.load[x] != self.target[x]:
                        continue
                    for q in held.get(x, ()):
                        work -= len(below)
                        y = next((y for y in below if fits(q, x, y)), None)
                        if y is not None:
                            onward[x] = (q, y)
                            break
                found = None
                for pid in held.get(b, ()):
                    work -= len(onward)
                    x = next((x for x, (q, _) in onward.items()
                              if q != pid and fits(pid, b, x)), None)
                    if x is not None:
                        found = pid, x
                        break
                if found is None:
                    break
                pid, x = found
                q, y = onward[x]
                move(q, x, y)
                move(pid, b, x)


_NONE = object()


def _held(out: list[list], topics: list | None) -> Counter | None:
    """Per (broker, topic), how many of the topic's replicas the broker holds (None without
    ``topics``); kept up to date as replicas move."""
    if topics is None:
        return None
    return Counter((b, topics[pid]) for pid, slots in enumerate(out) for b in slots
                   if b is not None)


def _by_topic(topics: list | None) -> dict:
    """Each topic's partitions (none without ``topics``)."""
    found: dict = {}
    for pid, topic in enumerate(topics or ()):
        found.setdefault(topic, []).append(pid)
    return found


def _round_robin(pids: list[int], sizes: list[int] | None, topics: list | None):
    """The partitions a broker may give (``pids``, in partition order), small ones first,
    and among those of one size one of each topic in turn (each topic's first, then each
    topic's second...): the receivers get replicas of many topics, not whole topics.
    Without sizes, yielded lazily: a broker gives a few of its thousands."""
    if topics is None or sizes is not None:
        rank: Counter = Counter()
        keyed = []
        for p in pids:
            keyed.append(((sizes[p] if sizes else 0),
                          rank[topics[p]] if topics is not None else 0, p))
            if topics is not None:
                rank[topics[p]] += 1
        yield from (p for _, _, p in sorted(keyed))
        return
    by_topic: dict = {}
    for p in pids:
        by_topic.setdefault(topics[p], []).append(p)
    rounds = list(by_topic.values())
    for r in range(max(map(len, rounds), default=0)):
        for group in rounds:
            if r < len(group):
                yield group[r]


def _round(shares: dict, total: int, held: dict) -> None:
    """Whole replicas per rack summing to ``total``: floors, the rest to the racks that
    hold most."""
    for r in shares:
        shares[r] = int(shares[r])
    left = max(total - sum(shares.values()), 0)
    for r in sorted(shares, key=lambda r: (-held[r], str(r)))[:left]:
        shares[r] += 1
