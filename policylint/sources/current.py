"""The ``--current`` baseline: the current assignment ``kafka-reassign-partitions.sh`` prints
("Current partition replica assignment"), as a file of its own or saved with the prose
around it."""

from __future__ import annotations

from pathlib import Path

from . import InputError, ParseError, SourceFile, detect, display_name, load_context, parse, \
    read, reassignment
from .document import Document
from .schemas import validator


def current_assignment(path: str, max_size: int) -> dict[tuple[str, int], list[int]]:
    """(topic, partition) -> replicas of the current assignment in ``path``."""
    try:
        plans = [doc for kind, doc in load_context(path, max_size) if kind == "reassignment"]
    except InputError:
        plans = []
    if len(plans) != 1:
        plans = [_json_line(Path(path), max_size)]
    return reassignment.assignment(reassignment.plan(plans[0], set()))


def _json_line(path: Path, max_size: int) -> Document:
    """The assignment JSON line of a file saved from the Kafka tool's output."""
    text = read(path, max_size).text
    for line in text.splitlines():
        if line.lstrip().startswith("{"):
            try:
                doc = parse(SourceFile(display_name(path), line, "json"))[0]
            except ParseError:
                break
            if detect(doc.data) == "reassignment" and \
                    not validator("reassignment").errors(doc.data):
                return doc
            break
    raise InputError(f"--current {path}: expected the current assignment JSON printed by "
                     "kafka-reassign-partitions.sh")
