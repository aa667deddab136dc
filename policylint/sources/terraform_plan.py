"""A Terraform plan as ``terraform show -json PLANFILE`` prints it: each ``resource_changes``
entry of a topic resource (``terraform.FIELDS``: ``kafka_topic``, ``confluent_kafka_topic``,
``aiven_kafka_topic``, ``aws_msk_topic``, ``google_managed_kafka_topic``) is a change of a
topic, ``change.before`` and ``change.after`` with its ``actions``. The topics as they will
be (``after``) are judged like any declaration; the changes by the diff-mode rules, with no
``--base``. ``planned_values`` and ``configuration`` repeat the same topics and are not
read. A value the plan knows only after apply (``after_unknown``) is unknown. (A format with
``changes`` declares its topics through them: their ``after`` sides.)
"""

from __future__ import annotations

from typing import Any

from ..model import Change, TopicSpec
from . import schemas
from .document import Document
from .formats import SCALARS, UNKNOWN, Fields, declared
from .terraform import FIELDS, cluster_named, config_of

KINDS = {"terraform-plan": "topics"}
ORDER = 30


def detect(data: dict) -> str | None:
    # by its keys, whatever their values: a plan whose resource_changes is not a list
    # breaks its schema (PL101), it is not "none of policylint's kinds"
    return "terraform-plan" if "format_version" in data and "resource_changes" in data \
        else None


def schema(kind: str) -> dict:
    return schemas.schema("terraform-plan")


def judges(doc: Document, path: tuple) -> bool:
    """Whether a schema violation at ``path`` is about what policylint reads: an entry of
    another resource type is Terraform's (a Google secret's ``replication`` block is no
    topic's replication factor)."""
    if len(path) < 2 or path[0] != "resource_changes" or type(path[1]) is not int:
        return True
    entries = doc.data["resource_changes"]
    entry = entries[path[1]] if isinstance(entries, list) else None
    return not isinstance(entry, dict) or entry.get("type") in FIELDS


def _entries(doc: Document) -> list[tuple[int, dict]]:
    """(index, entry) of the topic resources' changes (data sources left out)."""
    entries = doc.data["resource_changes"]
    return [(i, entry) for i, entry in enumerate(entries if isinstance(entries, list) else ())
            if isinstance(entry, dict) and entry.get("type") in FIELDS
            and entry.get("mode", "managed") == "managed"
            and isinstance(entry.get("change"), dict)]


def changes(doc: Document, fields: Fields | None, related: dict) -> list[Change]:
    """Each topic resource's change; the ``after`` sides are the plan's declarations."""
    fields = fields or Fields(doc)
    found = []
    for i, entry in _entries(doc):
        change = entry["change"]
        actions = tuple(a for a in change.get("actions") or () if isinstance(a, str))
        paths = tuple(tuple(str(p) for p in path) for path in change.get("replace_paths") or ()
                      if isinstance(path, list))
        before, after = _side(doc, fields, i, entry, "before"), \
            _side(doc, fields, i, entry, "after")
        if before is not None or after is not None:  # else no topic to speak of
            found.append(Change(before, after, actions, paths, _address(entry), doc,
                                ("resource_changes", i, "change", "actions")))
    return found


def _address(entry: dict) -> str:
    address = entry.get("address")
    return address if isinstance(address, str) else f"{entry.get('type')}.{entry.get('name')}"


def _side(doc: Document, fields: Fields, i: int, entry: dict, side: str) -> TopicSpec | None:
    """The topic before or after the change (None where there is none)."""
    values = entry["change"].get(side)
    if not isinstance(values, dict):
        return None
    names = FIELDS[entry["type"]]
    at = ("resource_changes", i, "change", side)
    later = entry["change"].get("after_unknown") if side == "after" else None
    later = later if isinstance(later, dict) else {}

    def value(field: str) -> Any:
        if field not in names:
            return None
        if later.get(names[field]) is True:
            return UNKNOWN  # known after apply
        # read straight from the entry unless a value broke the schema (10,000 changes)
        return fields.get(at + (names[field],)) if fields.bad else values.get(names[field])

    paths = {field: at + (attribute,) for field, attribute in names.items()}
    paths.setdefault("rf", at)
    config, config_paths = config_of(entry["type"], value("config"), at + (names["config"],))
    if config is UNKNOWN:
        config = {}
    elif config_paths:  # Aiven's block, MSK's JSON: read here, not where Fields would look
        config = {k: v if type(v) in SCALARS else UNKNOWN for k, v in config.items()}
    elif fields.bad or any(type(v) not in SCALARS for v in config.values()):
        config = fields.mapping(at + (names["config"],))
    rf, partitions = value("rf"), value("partitions")
    address = _address(entry)
    return declared(doc, kind=f"Terraform {entry['type']}", name=value("name"),
                    paths=paths, rf=rf if rf is UNKNOWN or type(rf) is int else None,
                    partitions=partitions if partitions is UNKNOWN or type(partitions) is int
                    else None, config=config, config_paths=config_paths,
                    resource=("terraform", None, address),
                    origin=address, cluster=cluster_named(values), cluster_by_reference=True)
