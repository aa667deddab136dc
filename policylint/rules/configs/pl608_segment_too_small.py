from ... import kafka_configs
from ...rule import Reads, Rule
from ...words import size

KEYS = {"segment.ms": "min_ms", "segment.bytes": "min_bytes"}  # key -> its option


class SegmentTooSmall(Rule):
    """A topic rolls its log segments so often that the broker drowns in files.

    ## What it does
    Reports a topic whose `segment.ms` is below the option `min_ms` (default 600000: ten
    minutes) or whose `segment.bytes` is below `min_bytes` (default 16777216: 16 MiB), at
    the value. Kafka accepts any `segment.ms` from 1, and `segment.bytes` from 14 bytes
    before 4.0 and from 1 MiB since (KIP-1030): a value Kafka refuses is PL603's alone.

    ## Why is this bad?
    Every partition then rolls a new segment, with its index files and memory maps, that
    often: thousands of files per partition, exhausted file handles and `vm.max_map_count`,
    slow restarts and log recovery. `segment.ms: 100` was meant as a test setting.

    ## Example
    ```yaml
    config:
      segment.ms: 100
    ```

    ## Use instead
    ```yaml
    config:
      segment.ms: 3600000
    ```

    ## Options
    - `min_ms` (integer, default 600000), `min_bytes` (integer, default 16777216).
    """
    code = "PL608"
    name = "segment-too-small"
    severity = "warning"
    reads = Reads(targets=("manifest", "snapshot"), config_keys=frozenset(KEYS), partitions=False,
                  spark_frame="configs")
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "min_ms": {"type": "integer", "minimum": 1, "default": 600000},
        "min_bytes": {"type": "integer", "minimum": 14, "default": 16777216}}}
    message = ("topic {topic}: {key}={value} rolls a new segment {how} on every partition "
               "(the policy's minimum is {minimum})")
    #: when Kafka rolls: on the first append past the age (not on a timer), past the size
    HOW = {"segment.ms": "at the first write after each {value} ms",
           "segment.bytes": "every {value} written"}

    def check(self, target, ctx, options):
        releases = ctx.kafka_window(target)
        for config in ctx.topic_configs(target):
            for key in KEYS.keys() & config.config.keys():
                option = KEYS[key]
                value = kafka_configs.number(config.config[key],
                                             "int" if key == "segment.bytes" else "long")
                if value is None or not 0 < value < options[option] or any(
                        kafka_configs.judge(r, key, config.config[key])[0] for r in releases):
                    continue  # none too small, or one Kafka refuses: PL603's finding
                how = self.HOW[key].format(value=size(value) if key == "segment.bytes"
                                           else value)
                yield self.finding(self.say(topic=config.topic, key=key, value=value,
                                            how=how, minimum=options[option]),
                                   at=config.value_at(key), topic=config.topic)
