"""JulieOps topologies: ``projects[].topics[]``, each topic named as JulieOps names it (the
topology's ``context`` and its other top-level values in order, the project's name, the
topic's name and its ``dataType``, joined by ``.``), its RF and partitions from its config's
``replication.factor`` and ``num.partitions``; when absent, the cluster's defaults
(``default.replication.factor``, ``num.partitions``), as JulieOps creates topics since 3.0
(its TopologyBuilder passes no count it is not given; before 3.0 it used 2 and 3)."""

from __future__ import annotations

from ..model import TopicSpec
from . import schemas
from .document import Document
from .formats import Fields, declared

KINDS = {"julieops-topology": "topics"}
#: top-level keys of a topology that are not part of its topics' names
_STRUCTURE = {"context", "projects", "platform", "special_topics", "plans"}


def detect(data: dict) -> str | None:
    return "julieops-topology" if "context" in data and isinstance(data.get("projects"), list) \
        and "kind" not in data else None


def schema(kind: str) -> dict:
    return schemas.schema(kind)


def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    fields = fields or Fields(doc)
    data = doc.data
    prefix = [str(data["context"])] + [str(value) for key, value in data.items()
                                        if key not in _STRUCTURE and isinstance(value, str)]
    found = []
    for i, project in enumerate(data["projects"]):
        for j, _ in enumerate(project.get("topics") or ()):
            at = ("projects", i, "topics", j)
            name, data_type = fields.get(at + ("name",)), fields.get(at + ("dataType",))
            if not isinstance(name, str):
                continue
            full = ".".join(prefix + [str(project["name"]), name] +
                            ([data_type] if isinstance(data_type, str) else []))
            config = fields.mapping(at + ("config",))
            rf, partitions = config.pop("replication.factor", None), \
                config.pop("num.partitions", None)
            paths = {"name": at + ("name",), "config": at + ("config",),
                     "rf": at + ("config", "replication.factor") if rf is not None else at,
                     "partitions": at + ("config", "num.partitions")
                     if partitions is not None else at}
            topic = declared(doc, kind="JulieOps topic", name=full, paths=paths,
                             rf=_count(fields, paths["rf"], rf),
                             partitions=_count(fields, paths["partitions"], partitions),
                             config=config, resource=("JulieOps", None, full))
            if topic is not None:
                found.append(topic)
    return found


def _count(fields: Fields, path: tuple, value: object) -> object:
    """A count the topic's config gives, else None: the cluster's default."""
    return None if value is None else fields.count(path, strings=True)
