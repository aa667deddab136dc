"""Partition reassignment JSON, the ``kafka-reassign-partitions.sh`` format (version 1)."""

from __future__ import annotations

from ..model import Move, Plan
from .document import Document
from . import schemas
from .formats import validator


KINDS = {"reassignment": "plan"}
MODELS = {"reassignment": {"entry": Move}}  # a plan's entries are decoded as moves
ORDER = 90  # any mapping with "partitions": asked last


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def detect(data: dict) -> str | None:
    """A plan by its shape: ``partitions`` a list of entries (mappings that name a
    ``topic``), as Kafka's tool writes it; a Helm or Jinja values file's top-level
    ``partitions: 12`` is none."""
    entries = data.get("partitions")
    if not isinstance(entries, list) or "kind" in data or "apiVersion" in data:
        return None
    if not entries:
        return "reassignment" if data.keys() <= {"version", "partitions"} else None
    return "reassignment" if all(isinstance(e, dict) and "topic" in e for e in entries) \
        else None


def plan(doc: Document, bad: set[int] = frozenset()) -> Plan:
    """The plan's entries, less those that broke the schema (``bad`` indices): the
    validated ``doc.typed``'s own, else each good entry converted to the schema's type."""
    if doc.typed is not None:
        return Plan(doc.typed.partitions, doc, len(doc.typed.partitions))
    written = doc.data["partitions"]
    schema = validator("reassignment")
    entry = schema.type_at("properties", "partitions", "items")
    good = [i for i in range(len(written)) if i not in bad]
    return Plan([schema.convert(written[i], entry) for i in good], doc, len(written),
                good if bad else None)


def assignment(plan: Plan) -> dict[tuple[str, int], list[int]]:
    """A plan read as a current assignment (the ``--current`` baseline)."""
    return {(m.topic, m.partition): m.replicas for m in plan.moves}
