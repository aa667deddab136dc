"""ACME's in-house topic CRD, ``topics.acme.io/v1`` ``ManagedTopic``, as a policylint input
format (see ``policylint.sources.formats``)::

    apiVersion: topics.acme.io/v1
    kind: ManagedTopic
    metadata: {name: payments-orders}
    spec:
      kafkaName: payments.orders     # the Kafka topic name (default: metadata.name)
      cluster: prod-eu-1
      shape: {partitions: 12, replication: 3}
      settings: {min.insync.replicas: "2"}

Every rule judges its topics; a finding on ``shape.replication`` points at that key.
"""

from policylint.sources.formats import Fields, declared

KINDS = {"acme-managed-topic": "topics"}
API_KINDS = {("topics.acme.io", "ManagedTopic"): "acme-managed-topic"}
_COUNT = {"type": "integer", "minimum": 1, "maximum": 32767}
_SCHEMA = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "topics.acme.io/v1"},
        "kind": {"const": "ManagedTopic"},
        "metadata": {"type": "object", "required": ["name"],
                     "properties": {"name": {"type": "string", "minLength": 1}}},
        "spec": {"type": "object", "additionalProperties": False, "properties": {
            "kafkaName": {"type": "string", "minLength": 1},
            "cluster": {"type": "string"},
            "shape": {"type": "object", "additionalProperties": False,
                      "properties": {"partitions": _COUNT, "replication": _COUNT}},
            "settings": {"type": "object"}}},
    },
}


def schema(kind):
    return _SCHEMA


def topics(doc, fields, related):
    fields = fields or Fields(doc)
    named = fields.get(("spec", "kafkaName")) is not None
    paths = {"name": ("spec", "kafkaName") if named else ("metadata", "name"),
             "rf": ("spec", "shape", "replication"), "partitions": ("spec", "shape", "partitions"),
             "config": ("spec", "settings"), "cluster": ("spec", "cluster")}
    topic = declared(doc, kind="ACME ManagedTopic", name=fields.get(paths["name"]),
                     paths=paths, rf=fields.count(paths["rf"], ()),
                     partitions=fields.count(paths["partitions"], ()),
                     config=fields.mapping(paths["config"]),
                     cluster=fields.get(paths["cluster"]))
    return [topic] if topic is not None else []
