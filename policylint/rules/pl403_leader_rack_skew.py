from collections import Counter
from operator import itemgetter

from ..model import Plan
from ..rule import Rule
from .kafka import after_plan, final_lists

_FIRST = itemgetter(0)


class LeaderRackSkew(Rule):
    """Preferred leaders of a topic are skewed across racks.

    ## What it does
    For each topic of a snapshot, and for each topic a plan touches (the snapshot with
    the plan applied), counts the preferred leaders (first replica) per rack of the
    cluster profile, counting 0 for racks without a leader. Reports the topic when the
    most and the least loaded rack differ by more than `max_skew` (default 1).
    Placeholders, unknown brokers and brokers without a rack are ignored.

    ## Why is this bad?
    Leaders serve all produce and most consume traffic: a rack that leads most
    partitions of a busy topic becomes its bottleneck, and losing that rack moves all
    that leadership at once.

    ## Example
    Racks a, b, c and 6 partitions all led from rack a.

    ## Use instead
    Rotate the first replica so each rack leads 2 partitions.

    ## Options
    - `max_skew` (integer, default 1): the largest accepted difference.
    """
    code = "PL403"
    name = "leader-rack-skew"
    severity = "warning"
    targets = ("snapshot", "plan")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "max_skew": {"type": "integer", "minimum": 0, "default": 1}}}

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            snapshot, profile = ctx.snapshot, ctx.profile
            if snapshot is None or profile is None:
                return
            subjects = [(name, lists, target.where(first), "after this plan, ")
                        for name, lists, first in after_plan(target, ctx)]
        else:
            profile = target.profile
            subjects = [(t.name, final_lists(t.partitions), t.where("name"),
                         "") for t in target.topics.values()]
        racks = profile.racks if profile and profile.brokers else set()
        if not racks:
            return
        for name, replica_lists, at, prefix in subjects:
            heads = map(_FIRST, filter(None, replica_lists))
            leaders = Counter(dict.fromkeys(racks, 0))
            leaders.update(map(profile.brokers.get, heads))
            leaders.pop(None, None)  # placeholders, unknown brokers, brokers without a rack
            most, least = max(leaders.values()), min(leaders.values())
            if most - least > options["max_skew"]:
                shares = ", ".join(f"{rack}: {n}" for rack, n in sorted(leaders.items()))
                yield self.finding(f"{prefix}preferred leaders of topic {name} are skewed "
                                   f"across racks ({shares}); difference {most - least} > "
                                   f"{options['max_skew']}", at=at, topic=name)
