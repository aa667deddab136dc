from ...rule import Reads, Rule


class RequiredMetadata(Rule):
    """A topic manifest lacks a label or annotation the policy requires.

    ## What it does
    Off until the policy lists `labels` or `annotations`. Then reports, at the manifest's
    metadata, each listed one the manifest does not carry (empty values count as missing).

    ## Why is this bad?
    Owner, team or data-classification labels are how a platform finds who to page about a
    topic, who pays for it and which retention rules apply to its data.

    ## Example
    ```yaml
    # policy: rules: {required-metadata: {labels: [owner]}}
    metadata:
      name: orders
    ```

    ## Use instead
    ```yaml
    metadata:
      name: orders
      labels:
        owner: team-orders
    ```

    ## Options
    - `labels` (list, default none), `annotations` (list, default none).
    """
    code = "PL705"
    name = "required-metadata"
    severity = "error"
    reads = Reads(targets=("manifest",))
    message = "topic {topic}: the {kind} {key} is required by the policy and missing"
    options_schema = {"type": "object", "additionalProperties": False, "properties": {
        "labels": {"type": ["array", "null"], "items": {"type": "string", "minLength": 1},
                   "default": None},
        "annotations": {"type": ["array", "null"],
                        "items": {"type": "string", "minLength": 1}, "default": None}}}

    def applies(self, options):
        return bool(options["labels"] or options["annotations"])

    def check(self, target, ctx, options):
        metadata = target.doc.data.get("metadata") or {}
        for kind, field in (("label", "labels"), ("annotation", "annotations")):
            have = metadata.get(field) if isinstance(metadata.get(field), dict) else {}
            for key in options[field] or ():
                if not have.get(key):
                    at = (target.doc, ("metadata", field) if field in metadata
                          else ("metadata",))
                    yield self.finding(self.say(topic=target.name, kind=kind, key=key),
                                       at=at, topic=target.name)
