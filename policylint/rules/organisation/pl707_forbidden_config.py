from ...rule import Reads, Rule


class ForbiddenConfig(Rule):
    """A topic sets a config key the policy forbids, or one outside its allowed list.

    ## What it does
    Off until the policy sets `forbidden` (keys no topic may set) or `allowed` (the only
    keys a topic may set). Reports the key itself, in manifests and snapshot topics.

    ## Why is this bad?
    Some keys belong to the platform team (`unclean.leader.election.enable`,
    `message.timestamp.type`, `preallocate`): a team setting them changes durability or
    semantics for everyone who reads the topic.

    ## Example
    ```yaml
    # policy: rules: {forbidden-config: {forbidden: [unclean.leader.election.enable]}}
    config:
      unclean.leader.election.enable: true
    ```

    ## Use instead
    Leave the key to the cluster's setting.

    ## Options
    - `forbidden` (list, default none), `allowed` (list, default none).
    """
    code = "PL707"
    name = "forbidden-config"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), partitions=False, spark_frame="configs")
    message = "topic {topic}: {key} {problem}"
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "forbidden": {"type": ["array", "null"], "items": {"type": "string", "minLength": 1},
                      "default": None},
        "allowed": {"type": ["array", "null"], "items": {"type": "string", "minLength": 1},
                    "default": None}}}

    def applies(self, options):
        return bool(options["forbidden"]) or options["allowed"] is not None

    def check(self, target, ctx, options):
        forbidden, allowed = set(options["forbidden"] or ()), options["allowed"]
        prefixes = tuple(ctx.policy.config_prefixes)
        for config in ctx.topic_configs(target):
            for key in config.config:
                if prefixes and key.startswith(prefixes):
                    continue
                if key in forbidden:
                    problem = "is forbidden by the policy"
                elif allowed is not None and key not in allowed:
                    problem = "is not among the keys the policy allows topics to set"
                else:
                    continue
                yield self.finding(self.say(topic=config.topic, key=key, problem=problem),
                                   at=config.key_at(key), topic=config.topic)
