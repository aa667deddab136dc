from ... import kafka_configs
from ...rule import Reads, Rule
from .topics import every_topic


class RequiredConfig(Rule):
    """A config the policy requires is missing, or has a value the policy does not allow.

    ## What it does
    Off until the policy lists `values`: a mapping of config keys to their allowed values
    (an empty list: any value, but the key must be set). Reports each manifest or snapshot
    topic that does not set a listed key (at its config), or sets it to another value (at
    the value). Values compare as Kafka reads them (`2` and `"2"`, `true` and `"true"`).

    ## Why is this bad?
    Some settings are platform decisions: a mandated `compression.type` keeps disks and
    network affordable, a mandated `min.insync.replicas` keeps acknowledged writes safe.

    ## Example
    ```yaml
    # policy: rules: {required-config: {values: {compression.type: [zstd, lz4]}}}
    config:
      compression.type: gzip
    ```

    ## Use instead
    ```yaml
    config:
      compression.type: zstd
    ```

    ## Options
    - `values` (mapping of key to list of allowed values, default none).
    """
    code = "PL706"
    name = "required-config"
    severity = "error"
    reads = Reads(targets=("manifest", "snapshot"), partitions=False, spark_frame="configs")
    message = "topic {topic}: {problem}"
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "values": {"type": ["object", "null"], "default": None, "additionalProperties": {
            "type": "array", "items": {"type": ["string", "integer", "number", "boolean"]}}}}}

    def applies(self, options):
        return bool(options["values"])

    def check(self, target, ctx, options):
        required = options["values"]
        for config in every_topic(target):
            for key, allowed in required.items():
                if key not in config.config:
                    problem, at = f"{key} is required by the policy and not set", \
                        (config.doc, config.path)
                else:
                    value = kafka_configs.as_text(config.config[key]).strip()
                    texts = [kafka_configs.as_text(a) for a in allowed]
                    if not allowed or value in texts:
                        continue
                    problem = (f"{key}={value} is not allowed by the policy (allowed: "
                               f"{', '.join(texts)})")
                    at = config.value_at(key)
                yield self.finding(self.say(topic=config.topic, problem=problem), at=at,
                                   topic=config.topic)
