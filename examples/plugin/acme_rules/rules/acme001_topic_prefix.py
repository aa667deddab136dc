from policylint.rule import Reads, Rule


class TopicPrefix(Rule):
    """A topic name does not start with one of the team prefixes.

    ## What it does
    Reports a topic manifest whose Kafka topic name starts with none of the option
    `prefixes`.

    ## Why is this bad?
    ACME grants access by prefix: a topic outside the team prefixes has no owner, no
    ACLs and no alerting.

    ## Example
    ```yaml
    metadata:
      name: orders
    ```

    ## Use instead
    ```yaml
    metadata:
      name: payments.orders
    ```

    ## Options
    - `prefixes` (list of strings, default `["payments.", "shipping."]`).
    """
    code = "ACME001"
    name = "topic-prefix"
    severity = "error"
    reads = Reads(targets=("manifest",))
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "prefixes": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                     "default": ["payments.", "shipping."]}}}
    message = "topic {topic} starts with none of the team prefixes ({prefixes})"

    def check(self, topic, ctx, options):
        if not topic.name.startswith(tuple(options["prefixes"])):
            prefixes = ", ".join(options["prefixes"])
            yield self.finding(self.say(topic=topic.name, prefixes=prefixes),
                               at=topic.where("name"), topic=topic.name)
