from collections import Counter
from operator import itemgetter

from ...kafka import final_lists
from ...model import Plan
from ...rule import Reads, Rule


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
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "leader-rack-skew"
    severity = "warning"
    reads = Reads(targets=("snapshot", "plan"), spark_frame="topics")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "max_skew": {"type": "integer", "minimum": 0, "default": 1}}}
    message = ("{prefix}preferred leaders of topic {topic} are skewed across racks ({shares}); "
               "difference {skew} > {max_skew}")
    share = "{rack}: {n}"

    def check(self, target, ctx, options):
        if isinstance(target, Plan):
            profile = ctx.profile
            if ctx.snapshot is None or profile is None:
                return
            subjects = [(name, lists, target.where(first), "after this plan, ")
                        for name, lists, first in ctx.plan_view(target).after]
        else:
            profile = target.profile
            subjects = [(t.name, final_lists(t.partitions), t.where("name"), "")
                        for t in target.topics.values()]
        racks = profile.racks if profile.brokers else set()
        if not racks:
            return
        for name, replica_lists, at, prefix in subjects:
            leaders = Counter(dict.fromkeys(racks, 0))
            leaders.update(map(profile.brokers.get, map(itemgetter(0), filter(None,
                                                                              replica_lists))))
            leaders.pop(None, None)  # placeholders, unknown brokers, brokers without a rack
            skew = max(leaders.values()) - min(leaders.values())
            if skew > options["max_skew"]:
                shares = ", ".join(self.share.format(rack=rack, n=n)
                                   for rack, n in sorted(leaders.items()))
                yield self.finding(self.say(prefix=prefix, topic=name, shares=shares, skew=skew,
                                            **options), at=at, topic=name)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import one, say
        counts = F.transform("leader_shares", lambda s: s["n"])
        skew = F.array_max(counts) - F.array_min(counts)
        shares = F.array_join(F.transform("leader_shares", lambda s: say(
            self.share, rack=s["rack"], n=s["n"])), ", ")
        return one((F.size("racks") > 0) & (skew > options["max_skew"]), say(
            self.message, prefix="", topic=F.col("topic"), shares=shares, skew=skew, **options))
