"""Partition reassignment JSON, the ``kafka-reassign-partitions.sh`` format (version 1)."""

from __future__ import annotations

from ..model import Move, Plan
from .document import Document


def detect(data: dict) -> str | None:
    if "partitions" in data and "kind" not in data and "apiVersion" not in data:
        return "reassignment"
    return None


def plan(doc: Document, bad: set[int]) -> Plan:
    """The plan's entries, less those that broke the schema (``bad`` indices)."""
    new = tuple.__new__
    moves = [new(Move, (e["topic"], e["partition"], e["replicas"], e.get("log_dirs"), i))
             for i, e in enumerate(doc.data["partitions"]) if i not in bad]
    return Plan(moves, doc)


def assignment(plan: Plan) -> dict[tuple[str, int], list[int]]:
    """A plan read as a current assignment (the ``--current`` baseline)."""
    return {(m.topic, m.partition): m.replicas for m in plan.moves}
