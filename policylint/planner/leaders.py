"""Preferred leaders: which replica goes first in each partition's list.

Moving leadership moves no data, but each change is a leader election the operator sees.
Two goals: every topic's leaders spread over the racks (PL403: the most and least loaded
rack differ by at most one), and every broker leads its share of the partitions. Each
topic in turn is a minimum-cost flow that OR-Tools solves (``SimpleMinCostFlow``): each
partition sends one unit (its leadership) to the rack of one of its replicas; the arc's
price is what one more leader costs that broker given what the other topics put on it
(the slope of its squared distance from its share) plus one unit for a change; each
rack's way to the sink has bands (up to the topic's floor free, one more at a price,
beyond at a prohibitive one), so every topic is spread first, then brokers are evened
out, then changes are few. Topics are solved one after another (a broker's price follows
what the topics before chose), in two passes; a last flow over the brokers evens out
what is left between brokers of one rack.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from .flow import solved

#: prices: a change of leader; in the flow over brokers, a unit above a broker's floor and
#: beyond its ceiling (a topic's flow prices its racks' bands by its own size, these where
#: that would overflow)
_CHANGE, _ABOVE, _BEYOND = 10, 10**7, 10**9
#: what a price times the nodes may reach in the solver's 64-bit costs
_COST_LIMIT = 2 ** 62
_PASSES = 2


def order(lists: list[list[int]], topics: list[str], movable: list[bool],
          brokers: dict[int, str | None], first: list[int | None],
          balance: bool = True) -> list[list[int]]:
    """Each partition's replicas, the leader of each movable one first: ``first`` (today's
    leader) where the goals allow, else the replica the flows choose. Without
    ``balance`` (a repair), brokers' loads do not count: only the racks of topics."""
    leader = [f if f is not None and ok and f in reps else (reps[0] if reps else None)
              for reps, f, ok in zip(lists, first, movable)]
    by_topic: dict[str, list[int]] = defaultdict(list)
    for pid, (t, ok) in enumerate(zip(topics, movable)):
        by_topic[t].append(pid)
    chosen = [t for t in sorted(by_topic) if any(movable[p] for p in by_topic[t])]
    # where each partition's leadership may go: its replicas, or the leader it keeps
    options = [[b for b in dict.fromkeys(reps if ok else [lead]) if b in brokers]
               for reps, lead, ok in zip(lists, leader, movable)]
    leads = Counter(b for b in leader if b in brokers)
    mean = sum(leads.values()) / len(brokers)
    racks = sorted({r for r in brokers.values() if r is not None})
    # first each topic over racks alone (fewest changes), then brokers evened out
    for weighed in [False] + [True] * (_PASSES if balance else 0):
        changed = 0
        for t in chosen:
            changed += _topic(by_topic[t], options, brokers, racks, leader, first, leads,
                              mean if weighed else None)
        if weighed and not changed:
            break
    if balance:
        _within_racks(lists, movable, brokers, leader)
    return [[lead] + [b for b in reps if b != lead] if ok and reps and reps[0] != lead
            else reps for reps, lead, ok in zip(lists, leader, movable)]


def _within_racks(lists, movable, brokers, leader) -> None:
    """What the topic by topic passes leave uneven between brokers of one rack, evened out
    by one flow over the brokers: leadership moves from a broker to another of its rack
    that holds the partition (no topic's racks change), a unit one change, each broker's
    way to the sink in bands around the mean. Exact for such moves; none where every
    partition has one replica per rack."""
    index = {b: i for i, b in enumerate(sorted(brokers))}
    via: dict[tuple[int, int], list[int]] = defaultdict(list)
    for p, (reps, lead) in enumerate(zip(lists, leader)):
        if movable[p] and lead in index:
            for other in reps:
                if other != lead and other in index and brokers[other] == brokers[lead]:
                    via[index[lead], index[other]].append(p)
    if not via:
        return
    n = len(index)
    supply = [0] * n
    for lead in leader:
        if lead in index:
            supply[index[lead]] += 1
    total = sum(supply)
    floor = total // n
    arcs = sorted(via)
    tails = [a for a, _ in arcs] + list(range(n)) * 3
    heads = [b for _, b in arcs] + [n] * (3 * n)
    caps = [len(via[a]) for a in arcs] + [floor] * n + [1] * n + [total] * n
    costs = [1] * len(arcs) + [0] * n + [_ABOVE] * n + [_BEYOND] * n
    flows = solved(tails, heads, caps, costs, supply + [-total], len(arcs))
    if flows is None:
        return
    members = sorted(brokers)
    moved: set[int] = set()
    for (a, b), units in zip(arcs, flows):
        for p in via[a, b]:
            if units <= 0:
                break
            if p not in moved and leader[p] == members[a]:
                leader[p] = members[b]
                moved.add(p)
                units -= 1


def _topic(pids, options_of, brokers, racks, leader, first, leads, mean) -> int:
    """One topic's leaders, chosen by a flow: partition -> broker (a change costs) ->
    its rack (the broker's j-th leader of this topic costs the slope of its squared
    distance from ``mean`` there: convex, so a topic does not pile onto one broker) ->
    sink (the rack's bands); how many leaders differ from before. A broker only one
    partition can reach is no node of its own: that partition's arc goes to the rack."""
    members = [p for p in pids if leader[p] in brokers]  # others lead nowhere counted
    options = [options_of[p] for p in members]
    if _settled(members, options, brokers, racks, leader, leads, mean):
        return 0
    for p in members:
        leads[leader[p]] -= 1
    n = len(members)
    can = Counter(b for bs in options for b in bs)
    shared = [b for b in can if can[b] > 1]
    node = {b: n + i for i, b in enumerate(shared)}
    rack_node = {r: n + len(node) + i for i, r in enumerate(racks or [None])}
    sink = n + len(node) + len(rack_node)
    rack_of = (lambda b: rack_node[brokers[b]]) if racks else (lambda b: rack_node[None])
    # the price of a broker's j-th leader of the topic, relative to the cheapest: none
    # negative, and all alike where brokers' loads do not count
    low = 0 if mean is None else 20 * min(leads[b] for b in can)

    def price(b: int, j: int) -> int:
        return 0 if mean is None else 20 * (leads[b] + j) - low
    # partition -> broker, or straight to its rack
    tails, heads, costs, chose = [], [], [], []
    for i, (p, bs) in enumerate(zip(members, options)):
        for b in bs:
            tails.append(i)
            chose.append(b)
            change = 0 if b == first[p] else _CHANGE
            if b in node:
                heads.append(node[b])
                costs.append(change)
            else:
                heads.append(rack_of(b))
                costs.append(change + price(b, 0))
    arcs = len(tails)
    for b in shared:  # a shared broker -> its rack, its j-th leader at its price
        tails += [node[b]] * can[b]
        heads += [rack_of(b)] * can[b]
        costs += [price(b, j) for j in range(can[b])]
    # rack -> sink, in bands priced so that fewer units above a rack's floor always win
    # over any brokers' prices and changes, and fewer beyond its ceiling over both (at
    # most one unit a rack is above); the fixed prices where those would overflow the
    # solver's 64-bit costs (a topic of hundreds of thousands of partitions)
    above = n * (max(costs) + _CHANGE) + 1
    beyond = (len(rack_node) + 1) * above
    if beyond * (sink + 1) >= _COST_LIMIT:
        above, beyond = _ABOVE, _BEYOND
    floor = n // len(rack_node)
    caps = [1] * len(tails)
    for cap, cost in ((floor, 0), (1, above), (n, beyond)):
        tails += rack_node.values()
        heads += [sink] * len(rack_node)
        costs += [cost] * len(rack_node)
        caps += [cap] * len(rack_node)
    changed = 0
    flows = solved(tails, heads, caps, costs, [1] * n + [0] * (sink - n) + [-n], arcs) \
        if n else None
    if flows is not None:
        for a, used in enumerate(flows):
            if used:
                p, b = members[tails[a]], chose[a]
                changed += leader[p] != b
                leader[p] = b
    for p in members:
        leads[leader[p]] += 1
    return changed


def _settled(members, options, brokers, racks, leader, leads, mean) -> bool:
    """Whether no flow would change the topic: its racks within one of each other, and
    (weighing brokers) no leader on a broker two above another it could move to."""
    counts = Counter(brokers[leader[p]] for p in members) if racks else Counter()
    if racks and (len(counts) < min(len(racks), len(members)) or
                  max(counts.values(), default=0) - min(counts.values(), default=0) > 1):
        return False
    if mean is None:
        return True
    most = max((leads[leader[p]] for p in members), default=0)
    return all(leads[b] >= most - 1 for bs in options for b in bs)


def spread_by_moves(lists: list[list[int]], before: list[list[int]], topics: list[str],
                    movable: list[bool], brokers: dict[int, str | None], max_skew: int,
                    closed: frozenset = frozenset()) -> None:
    """Where no order of a topic's replicas spreads its leaders over racks (its replicas sit
    in too few racks: RF 1, say), a changed topic's leader replicas move to a broker of the
    rack that leads fewest, one partition at a time, the rack rule kept."""
    racks = sorted({r for r in brokers.values() if r is not None})
    if not racks:
        return
    load = Counter(b for reps in lists for b in reps)
    by_topic: dict[str, list[int]] = defaultdict(list)
    for p, t in enumerate(topics):
        by_topic[t].append(p)
    for t, pids in by_topic.items():
        if all(lists[p] == before[p] for p in pids):
            continue  # a topic the plan leaves as it is: not judged after it
        for _ in range(len(pids)):
            led = Counter(dict.fromkeys(racks, 0))
            led.update(brokers.get(lists[p][0]) for p in pids if lists[p])
            led.pop(None, None)
            most = max(racks, key=lambda r: (led[r], r))
            fewest = min(racks, key=lambda r: (led[r], r))
            if led[most] - led[fewest] <= max_skew:
                break
            # from the rack that leads most and has a partition that may change
            mine = next(filter(None, ([p for p in pids if movable[p] and lists[p]
                                       and brokers.get(lists[p][0]) == r]
                                      for r in sorted(racks, key=lambda r: (-led[r], r))
                                      if led[r] - led[fewest] >= 2)), [])
            there = [(p, b) for p in mine for b in lists[p] if brokers.get(b) == fewest]
            if there:  # a replica in that rack already: it leads
                p, u = there[0]
                lists[p] = [u] + [b for b in lists[p] if b != u]
                continue
            candidates = [(load[u], u, p) for p in mine for u in brokers
                          if brokers[u] == fewest and u not in closed]
            if not candidates:
                break
            _, u, p = min(candidates)
            load[lists[p][0]] -= 1
            load[u] += 1
            lists[p] = [u] + lists[p][1:]


def skewed(lists: list[list[int]], before: list[list[int]], topics: list[str],
           brokers: dict[int, str | None], max_skew: int) -> set[str]:
    """The topics the plan changes whose leaders still differ by more than ``max_skew``
    between racks (PL403 on the state after it)."""
    racks = sorted({r for r in brokers.values() if r is not None})
    if not racks:
        return set()
    led: dict[str, Counter] = defaultdict(lambda: Counter(dict.fromkeys(racks, 0)))
    changed = set()
    for t, reps, was in zip(topics, lists, before):
        counts = led[t]  # every rack counts, led or not
        if reps and brokers.get(reps[0]) is not None:
            counts[brokers[reps[0]]] += 1
        if reps != was:
            changed.add(t)
    return {t for t in changed if max(led[t].values()) - min(led[t].values()) > max_skew}
