"""The ``--current`` baseline: the current assignment ``kafka-reassign-partitions.sh`` prints
("Current partition replica assignment"), as a file of its own or the tool's whole output
saved as it was printed (``--generate`` or ``--execute``)."""

from __future__ import annotations

from . import (InputError, context_error, kind_of, parse_context, reassignment,
               topics_describe, validate)


def current_assignment(path: str, max_size: int) -> dict[tuple[str, int], list[int]]:
    """(topic, partition) -> replicas of the current assignment in ``path`` (also
    ``kafka-topics.sh --describe`` output saved as printed)."""
    docs = parse_context(path, max_size)
    if len(docs) == 1 and kind_of(docs[0]) == "topics-describe":
        return topics_describe.assignment(docs[0])
    found = [doc for doc in docs if doc.role == "current"] or \
        [doc for doc in docs if kind_of(doc) == "reassignment"]
    if len(found) != 1:
        raise InputError(f"--current {path}: expected the current assignment JSON printed by "
                         "kafka-reassign-partitions.sh (\"Current partition replica "
                         "assignment\") or kafka-topics.sh --describe output")
    errors = validate("reassignment", found[0])
    if errors:
        raise context_error(f"--current {path}", found[0], errors)
    return reassignment.assignment(reassignment.plan(found[0]))
