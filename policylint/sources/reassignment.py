"""Partition reassignment JSON, the ``kafka-reassign-partitions.sh`` format (version 1)."""

from __future__ import annotations

from msgspec import UNSET

from ..model import Move, Plan
from .document import Document
from . import schemas
from .schemas import validator


KINDS = {"reassignment": "plan"}
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
    """The plan's entries, less those that broke the schema (``bad`` indices): from the
    validated ``doc.typed``, else each good entry converted to the schema's type."""
    if doc.typed is not None:
        written = doc.typed.partitions
        entries = enumerate(written)
    else:
        written = doc.data["partitions"]
        schema = validator("reassignment")
        entry = schema.type_at("properties", "partitions", "items")
        entries = ((i, schema.convert(e, entry)) for i, e in enumerate(written) if i not in bad)
    new, unset = tuple.__new__, UNSET
    moves = [new(Move, (e.topic, e.partition, e.replicas,
                        None if e.log_dirs is unset else e.log_dirs, i)) for i, e in entries]
    return Plan(moves, doc, len(written))


def assignment(plan: Plan) -> dict[tuple[str, int], list[int]]:
    """A plan read as a current assignment (the ``--current`` baseline)."""
    return {(m.topic, m.partition): m.replicas for m in plan.moves}
