"""The ``--current`` baseline: the current assignment ``kafka-reassign-partitions.sh`` prints
("Current partition replica assignment"), as a file of its own or the tool's whole output
saved as it was printed (``--generate`` or ``--execute``)."""

from __future__ import annotations

from . import InputError, detect, parse_context, reassignment
from .schemas import validator
from ..schema import format_path


def current_assignment(path: str, max_size: int) -> dict[tuple[str, int], list[int]]:
    """(topic, partition) -> replicas of the current assignment in ``path``."""
    docs = parse_context(path, max_size)
    found = [doc for doc in docs if doc.role == "current"] or \
        [doc for doc in docs if detect(doc.data) == "reassignment"]
    if len(found) != 1:
        raise InputError(f"--current {path}: expected the current assignment JSON printed by "
                         "kafka-reassign-partitions.sh (\"Current partition replica "
                         "assignment\")")
    errors = validator("reassignment").errors(found[0].data)
    if errors:
        where, message = errors[0]
        line, column = found[0].locate(where) or (1, 1)
        raise InputError(f"--current {path}:{line}:{column}: {format_path(where)}: {message}")
    return reassignment.assignment(reassignment.plan(found[0], set()))
