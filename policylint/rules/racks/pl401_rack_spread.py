import math

from ...kafka import rack_counts
from ...model import Plan
from ...rule import Reads, Rule
from ...words import ids, plural


class RackSpread(Rule):
    """A partition's replicas do not spread over racks.

    ## What it does
    Checks the replicas of each reassignment entry, snapshot partition (its target
    replicas) and explicit manifest assignment against the racks of the cluster profile.
    Mode `strict` (default): the replicas must use min(RF, number of racks) distinct
    racks. Mode `even`: no rack may hold more than ceil(RF / number of racks) replicas.
    Placeholders, unknown brokers and brokers without a rack never count as a rack.
    Skipped when no broker has a rack, and for a list that names a broker twice (PL112)
    or, in a plan, a placeholder (PL505): those rules report it.

    ## Why is this bad?
    Replicas that share a rack (an availability zone) share its failures: losing one zone
    can take all in-sync copies of a partition, and with them availability or data.

    ## Example
    Brokers 1, 2 in rack a, broker 3 in rack b:
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 2]}
    ```

    ## Use instead
    ```json
    {"topic": "orders", "partition": 0, "replicas": [1, 3]}
    ```

    ## Options
    - `mode` (`strict` or `even`, default `strict`).
    """
    code = "PL401"
    fixable = plan_fix = True  # --fix repairs the plan (policylint.planner.repair)
    name = "rack-spread"
    severity = "error"
    reads = Reads(targets=("plan", "snapshot", "manifest"), replica_lists_only=True,
                  spark_frame="replica_sets")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "mode": {"enum": ["strict", "even"], "default": "strict"}}}
    message = "replicas {replicas} of {topic}-{partition} {problem}"
    problems = {
        "strict": "span {n} {racks} ({used}); RF {rf} with {n_racks} racks in the cluster needs "
                  "{wanted}",
        "even": "put {n} replicas in rack {rack}; with RF {rf} over {n_racks} racks no rack "
                "should hold more than {ceiling}",
    }

    def check(self, target, ctx, options):
        profile = ctx.profile_for(target)
        if profile is None or not profile.brokers or not profile.racks:
            return
        problem = self.problems[options["mode"]]
        strict = options["mode"] == "strict"
        racks, n_racks = profile.brokers, len(profile.racks)
        plan = isinstance(target, Plan)

        def spread(replicas: tuple[int, ...]) -> str | None:
            real = [r for r in replicas if r >= 0]
            if len(set(real)) != len(real) or (plan and len(real) != len(replicas)):
                return None  # PL112's or PL505's
            counts, rf = rack_counts(replicas, racks), len(replicas)
            if strict:
                wanted = min(rf, n_racks)
                return None if len(counts) >= wanted else problem.format(
                    n=len(counts), racks=plural(len(counts), "rack"),
                    used=", ".join(sorted(counts)) or "none", rf=rf, n_racks=n_racks,
                    wanted=wanted)
            ceiling = math.ceil(rf / n_racks)
            rack, most = max(counts.items(), key=lambda kv: (kv[1], kv[0]), default=(None, 0))
            return None if most <= ceiling else problem.format(
                n=most, rack=rack, rf=rf, n_racks=n_racks, ceiling=ceiling)

        for found in ctx.replica_lists(target, final=True).failing(spread):
            yield self.finding(self.say(replicas=ids(found.replicas), topic=found.topic,
                                        partition=found.partition, problem=found.verdict),
                               at=found.where(), topic=found.topic, partition=found.partition)

    def spark(self, options, policy):
        from pyspark.sql import functions as F

        from ...spark.expr import ids, one, plural, say
        problem = self.problems[options["mode"]]
        rf, n_racks = F.size("target"), F.size("racks")
        real = F.filter("target", lambda r: r >= 0)
        applies = (F.size("broker_ids") > 0) & (n_racks > 0) & \
            (F.size(F.array_distinct(real)) == F.size(real))
        if options["mode"] == "strict":
            distinct = F.array_distinct(F.expr(
                "filter(transform(target, r -> rack_of[r]), x -> x IS NOT NULL)"))
            spans, wanted = F.size(distinct), F.least(rf, n_racks)
            used = F.when(spans > 0, F.array_join(F.sort_array(distinct), ", ")).otherwise("none")
            broken = spans < wanted
            said = say(problem, n=spans, racks=plural(spans, "rack"), used=used, rf=rf,
                       n_racks=n_racks, wanted=wanted)
        else:
            fullest = F.expr("array_max(transform(array_distinct(filter(transform(target, "
                             "r -> rack_of[r]), x -> x IS NOT NULL)), x -> struct(size(filter("
                             "transform(target, r -> rack_of[r]), y -> y = x)) AS n, x AS rack)))")
            ceiling = F.ceil(rf / n_racks)
            broken = fullest.isNotNull() & (fullest["n"] > ceiling)
            said = say(problem, n=fullest["n"], rack=fullest["rack"], rf=rf, n_racks=n_racks,
                       ceiling=ceiling)
        return one(applies & broken, say(self.message, replicas=ids("target"),
                                         topic=F.col("topic"), partition=F.col("partition"),
                                         problem=said))
