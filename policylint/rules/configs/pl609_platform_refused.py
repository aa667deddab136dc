from ... import kafka_configs, platforms
from ...model import TopicSpec
from ...rule import Reads, Rule


class PlatformRefused(Rule):
    """A managed Kafka platform refuses what the topic declares, though Apache Kafka accepts it.

    ## What it does
    Judges a topic declaration by what its platform refuses: the policy's `platform`
    (`apache`, `msk-serverless`, `msk`, `confluent-cloud`, `aiven`, `inkless`), or the
    platform of its cluster (`platforms: {CLUSTER: NAME}`), or the one its format says
    (`confluent_kafka_topic`, `aiven_kafka_topic`). Each platform is a data file of
    `policylint/platforms/` whose every entry names the documentation it comes from: topic
    configs the platform does not let a topic set, values above its limits, a replication
    factor it does not take, a config it sets only at creation or a change of it it refuses
    (diff mode), a manual assignment it ignores. The finding names the platform and the page.

    ## Why is this bad?
    Apache Kafka would take it, so every other check passes, and the team learns at apply
    time, from the platform's API, that the change cannot be made.

    ## Example
    ```yaml
    # .policylint.yaml: platform: msk-serverless
    spec:
      config:
        segment.bytes: 104857600   # MSK Serverless lets a topic set only a few configs
    ```

    ## Use instead
    Leave out what the platform sets itself, or keep within its limits.
    """
    code = "PL609"
    name = "platform-refused"
    severity = "error"
    reads = Reads(targets=("manifest",))

    def check(self, target, ctx, options):
        if not isinstance(target, TopicSpec):
            return
        name = platforms.of(ctx.policy, target)
        if name is None or name == "apache":
            return
        platform = platforms.profile(name)
        before = ctx.base_manifest(target.name) if ctx.base is not None else None
        for entry in platform["refuses"]:
            if not platforms.applies(entry.get("when"), target.config):
                continue
            said = f"{platform['title']} {entry['why']} ({entry['source']})"
            for key, at in _refused(entry, target, before):
                yield self.finding(f"topic {target.name}: {key + ': ' if key else ''}{said}",
                                   at=at, topic=target.name)


def _refused(entry: dict, spec: TopicSpec, before: TopicSpec | None):
    """(key or "", where) of what ``entry`` refuses in ``spec`` (``before``: at the base)."""
    if "only_configs" in entry:
        for key in sorted(set(spec.config) - set(entry["only_configs"])):
            yield key, spec.config_at(key)
    key = entry.get("key")
    value = spec.config.get(key) if key else None
    if key and value is not None:
        number = kafka_configs.number(value)
        if "max" in entry and number is not None and number > entry["max"]:
            yield f"{key}={number}", spec.config_at(key)
        old = before.config.get(key) if before is not None else None
        if entry.get("at_creation_only") and before is not None and old is not None and \
                _text(old) != _text(value):
            yield f"{key} {_text(old)} -> {_text(value)}", spec.config_at(key)
        move = entry.get("transition")
        if move and old is not None and _text(old) == move["from"] and \
                _text(value) == move["to"]:
            yield f"{key} {move['from']} -> {move['to']}", spec.config_at(key)
    if "rf" in entry and spec.rf is not None and spec.rf not in entry["rf"]:
        yield f"replication factor {spec.rf}", spec.where("rf")
    if entry.get("no_assignment") and spec.assignment:
        yield "replica assignment", spec.where("assignment")


def _text(value) -> str:
    return ",".join(p.strip() for p in kafka_configs.as_text(value).split(","))
