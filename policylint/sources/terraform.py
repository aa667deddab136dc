"""Terraform HCL (``*.tf``): the topic resources of five providers are topic declarations:
``kafka_topic`` (the Mongey/kafka provider: ``name``, ``partitions``,
``replication_factor``, ``config``), ``confluent_kafka_topic`` (``topic_name``,
``partitions_count``, ``config``; no RF), ``aiven_kafka_topic`` (``topic_name``,
``partitions``, ``replication``, a ``config`` block of Kafka's keys in snake_case),
``aws_msk_topic`` (``name``, ``partition_count``, ``replication_factor``, ``configs``: the
JSON of a ``jsonencode({...})``) and ``google_managed_kafka_topic`` (``topic_id``,
``partition_count``, ``replication_factor``, ``configs``). ``FIELDS`` says which is which.

HCL is read with python-hcl2 (imported only when a ``.tf`` file is read): its parse tree
gives every attribute's line and column, its serialisation the values. Attributes and
``for_each`` are evaluated as Terraform evaluates them (``hcl_eval``): literals and
templates, ``each.key``/``each.value``, the module's ``locals``, its variables as a local
module call feeds them (or their ``default``), ``for`` expressions, indexing, splats and the
functions topic modules call (``yamldecode(file(...))``, ``merge``, ``flatten``,
``lookup``, ``toset``, ``keys``/``values``...). A ``for_each`` that evaluates makes one
topic per key. What cannot be known statically (another resource's attribute, a variable
nothing feeds) is an unknown value.
Each resource instance is one document, named by its address (``kafka_topic.orders["eu"]``).

A topic names its cluster by its provider's alias (``provider = kafka.prod``: cluster
``prod``), by its ``kafka_cluster`` block: a literal id (``lkc-abc123``), or the label of
the ``confluent_kafka_cluster`` resource it refers to (``confluent_kafka_cluster.basic.id``:
cluster ``basic``), by its Aiven ``service_name``, by its ``cluster_arn`` (the MSK
cluster's name in a literal ARN, or the label of the ``aws_msk_cluster`` it refers to), or
by its Google Cloud ``cluster`` (an id, or a ``google_managed_kafka_cluster``'s label). A
name that is none of the run's clusters places it as if it named none: in its module's own
cluster (``Placement.of_manifest``).

A ``kubernetes_manifest`` applies a Kubernetes document: its ``manifest`` (per instance of
its ``for_each``) is a document of its own, a Strimzi ``KafkaTopic`` read as any other; so
is the YAML of a ``kubectl_manifest``'s ``yaml_body`` heredoc.

A ``.tf`` file that names no ``kafka_topic``, calls no module and applies no Kafka kind is
not parsed: it declares no topic (and its HCL is Terraform's to check).
"""

from __future__ import annotations

import copy
import json
import posixpath
import re
from typing import Any, Iterator

from ..model import KEY, TopicSpec
from .document import Document, ParseError, SourceFile
from .formats import UNKNOWN, Fields, declared

RESOURCE, MODULE_CALL = "TerraformResource", "TerraformModuleCall"
_TYPES = {"kafka_topic": "terraform-kafka-topic",
          "confluent_kafka_topic": "terraform-confluent-topic",
          "aiven_kafka_topic": "terraform-aiven-topic", "aws_msk_topic": "terraform-msk-topic",
          "google_managed_kafka_topic": "terraform-google-topic"}
KINDS = {**dict.fromkeys(_TYPES.values(), "topics"), "terraform-module-call": "module"}
# where each provider keeps a topic's fields
FIELDS = {"kafka_topic": {"name": "name", "rf": "replication_factor",
                           "partitions": "partitions", "config": "config"},
           "confluent_kafka_topic": {"name": "topic_name", "partitions": "partitions_count",
                                     "config": "config"},
           "aiven_kafka_topic": {"name": "topic_name", "rf": "replication",
                                 "partitions": "partitions", "config": "config"},
           "aws_msk_topic": {"name": "name", "rf": "replication_factor",
                             "partitions": "partition_count", "config": "configs"},
           "google_managed_kafka_topic": {"name": "topic_id", "rf": "replication_factor",
                                          "partitions": "partition_count", "config": "configs"}}
_EXPRESSION = re.compile(r"^\$\{(.*)\}$", re.S)
_PROVIDER = re.compile(r"^\$\{kafka\.([A-Za-z_][A-Za-z0-9_-]*)\}$")
_CLUSTER_REF = re.compile(r"^\$\{confluent_kafka_cluster\.([A-Za-z_][A-Za-z0-9_-]*)\.id\}$")
_MSK_REF = re.compile(r"^\$\{aws_msk_cluster\.([A-Za-z_][A-Za-z0-9_-]*)\.arn\}$")
_MSK_ARN = re.compile(r"^arn:aws[a-z-]*:kafka:[^:]*:[^:]*:cluster/([^/]+)/")
_GOOGLE_REF = re.compile(r"^\$\{google_managed_kafka_cluster\.([A-Za-z_][A-Za-z0-9_-]*)\."
                         r"(?:cluster_id|id|name)\}$")
_JSONENCODE = re.compile(r"^\$\{jsonencode\((.*)\)\}$", re.S)


def detect(data: dict) -> str | None:
    if data.get("kind") == RESOURCE:
        return _TYPES.get(data.get("type"))
    return "terraform-module-call" if data.get("kind") == MODULE_CALL else None


def schema(kind: str) -> dict:
    from . import schemas
    return schemas.schema(kind if kind in ("terraform-module-call", "terraform-aiven-topic")
                          else "terraform-topic")


# what a file must name to hold a topic resource, a module call or a Kubernetes manifest of
# Kafka: a Terraform repository's other files (networks, clusters, IAM) are not parsed at all
_WORTH_PARSING = re.compile(r'kafka_topic\b|msk_topic\b|^[ \t]*module\b|\bkind"?\s*[=:]\s*"?Kafka',
                            re.M)  # (google_managed_kafka_topic ends in kafka_topic)


def parse(source: SourceFile) -> list[Document]:
    """One document per topic resource block and per local module call of a ``.tf`` file,
    the manifest of each ``kubernetes_manifest`` (per instance of its ``for_each``) and the
    documents of each ``kubectl_manifest``'s heredoc."""
    if not _WORTH_PARSING.search(source.text):
        return []
    try:
        data, marks = _load(source.text)
    except ParseError:  # pragma: no cover - python-hcl2 is a dependency of policylint
        raise
    except RecursionError:
        raise ParseError("invalid HCL: nested too deeply") from None
    except Exception as exc:  # lark's and python-hcl2's errors: the file is no valid HCL
        line, column = getattr(exc, "line", 1), getattr(exc, "column", 1)
        first = (str(exc).strip().splitlines() or ["cannot be parsed"])[0]
        raise ParseError(f"invalid HCL: {first}", line if isinstance(line, int) and line > 0
                         else 1, column if isinstance(column, int) and column > 0 else 1
                         ) from None
    docs: list[Document] = []
    for block, labels, values in _blocks(data):
        where = (block, *labels)
        if block == "resource" and labels[0] == "kubernetes_manifest":
            docs += _manifests(source, values, marks, where + ("manifest",), len(docs))
        elif block == "resource" and labels[0] == "kubectl_manifest":
            docs += _yaml_body(source, values.get("yaml_body"),
                               marks.get(where + ("yaml_body",)), len(docs))
        elif block == "resource" and labels[0] in _TYPES:
            docs.append(Document(source, {"kind": RESOURCE, "type": labels[0],
                                          "name": labels[1], "values": values},
                                 len(docs), _locator(marks, where)))
        elif block == "module" and isinstance(values.get("source"), str):
            docs.append(Document(source, {"kind": MODULE_CALL, "name": labels[0],
                                          "values": values}, len(docs), _locator(marks, where)))
    return docs


def _load(text: str, marked: bool = True) -> tuple[dict, dict]:
    """The values of a ``.tf`` file and (if ``marked``) where each is written; lark's and
    python-hcl2's errors raised."""
    try:
        import hcl2  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency of policylint
        raise ParseError("reading Terraform needs python-hcl2 (pip install python-hcl2)")
    from . import hcl_eval  # its expressions: only where a .tf file is read
    data, tree = hcl_eval.values_of(text)
    return data, _marks(tree) if marked else {}


def _blocks(data: dict) -> Iterator[tuple[str, tuple, dict]]:
    """(block type, labels, attributes) of each resource and module block."""
    for block in ("resource", "module"):
        for entry in data.get(block) or ():
            for first, inner in entry.items():
                if block == "module":
                    yield block, (first,), _attributes(inner)
                    continue
                for second, values in (inner or {}).items():
                    yield block, (first, second), _attributes(values)


def _attributes(values: Any) -> dict:
    return _leaves(values, lambda v: v) if isinstance(values, dict) else {}


def _manifests(source: SourceFile, values: dict, marks: dict, where: tuple,
               index: int) -> list[Document]:
    """The Kubernetes document a ``kubernetes_manifest`` applies (a Strimzi ``KafkaTopic``
    is read as any other), written at ``where``, once per instance of its ``for_each``. A
    value policylint cannot evaluate stays the expression it is written as, which the
    formats read as unknown."""
    manifest = values.get("manifest")
    if not isinstance(manifest, dict):
        return []

    def locate(path: tuple) -> tuple[int, int] | None:  # Document.locate walks up from here
        return marks.get(where + path)
    folder = _folder(source)
    each = _instances(values.get("for_each"), folder, {})
    each = [None] if each is None else [(UNKNOWN, UNKNOWN)] if each is UNKNOWN else each
    return [Document(source, _resolved(manifest, instance, folder), index + i, locate)
            for i, instance in enumerate(each)]


def _yaml_body(source: SourceFile, body: Any, at: tuple[int, int] | None,
               index: int) -> list[Document]:
    """The documents of a ``kubectl_manifest``'s ``yaml_body`` written as a heredoc, read as
    YAML where they stand (indented as written, which YAML allows), so each value is located
    at its own line and column. Another expression, or YAML that does not read (a template
    directive), is not read."""
    if not isinstance(body, str) or at is None or not body.startswith("<<"):
        return []
    from .yamldoc import load_yaml
    lines = body.split("\n")[1:-1]  # between the heredoc's markers
    try:
        docs = load_yaml(SourceFile(source.name, "\n".join(lines) + "\n", "yaml"))
    except ParseError:
        return []

    def shifted(doc: Document) -> Any:
        def locate(path: tuple) -> tuple[int, int] | None:
            found = doc.locate(path)
            return None if found is None else (found[0] + at[0], found[1])
        return locate
    return [Document(source, doc.data, index + i, shifted(doc)) for i, doc in enumerate(docs)]


def _leaves(value: Any, leaf: Any) -> Any:
    """``value`` (python-hcl2's data) with ``leaf`` applied to each scalar in it; its
    ``__`` markers left out."""
    if isinstance(value, dict):
        return {k: _leaves(v, leaf) for k, v in value.items() if not k.startswith("__")}
    if isinstance(value, list):
        return [_leaves(v, leaf) for v in value]
    return leaf(value)


def _resolved(value: Any, each: tuple | None, folder: str) -> Any:
    """``value`` with what policylint can evaluate evaluated, as plain data: an expression
    it cannot stays as written, and an unknown part of a local is a placeholder."""
    def leaf(written: Any) -> Any:
        found = _evaluate(written, each, folder)
        return written if found is UNKNOWN else _leaves(
            found, lambda v: "${unknown}" if v is UNKNOWN else v)
    return _leaves(value, leaf)


def _locator(marks: dict, prefix: tuple):
    def locate(path: tuple) -> tuple[int, int] | None:
        if path[:1] != ("values",):
            return marks.get(prefix)
        return marks.get(prefix + path[1:])
    return locate


def _marks(tree: Any) -> dict[tuple, tuple[int, int]]:
    """(line, column) of each block, attribute value and object element of the parse tree,
    by path: ``("resource", type, name, attribute, key...)``; the name itself with ``KEY``."""
    marks: dict[tuple, tuple[int, int]] = {}
    body = next((c for c in tree.children if getattr(c, "data", None) == "body"), None)
    for block in _children(body, "block"):
        parts = [c for c in block.children if getattr(c, "data", None) in ("identifier",
                                                                             "string")]
        path = tuple(_text(p) for p in parts)
        marks[path] = _first(block)
        _mark_body(block, path, marks)
    return marks


def _mark_body(block: Any, path: tuple, marks: dict) -> None:
    """The marks of a block's attributes, and of its inner blocks' (``config { ... }``) at
    ``(name, i)``: python-hcl2 makes a list of the blocks of each name."""
    inner = next((c for c in block.children if getattr(c, "data", None) == "body"), None)
    for attribute in _children(inner, "attribute"):
        name, value = attribute.children[0], attribute.children[-1]
        here = path + (_text(name),)
        marks[here + (KEY,)] = _first(name)
        _mark_value(value, here, marks)
    seen: dict[str, int] = {}
    for nested in _children(inner, "block"):
        name = _text(nested.children[0])
        here = path + (name, seen.setdefault(name, 0))
        seen[name] += 1
        marks[here] = marks[here + (KEY,)] = _first(nested)
        marks.setdefault(here[:-1], marks[here])  # the list of them: at the first
        if len(here) < 12:  # blocks in blocks: deep enough for any topic's
            _mark_body(nested, here, marks)


def _mark_value(node: Any, path: tuple, marks: dict, depth: int = 0) -> None:
    marks[path] = _first(node)
    if depth > 20:
        return
    for obj in _find(node, "object", 3):
        for elem in _children(obj, "object_elem"):
            key = next((c for c in elem.children if getattr(c, "data", None) ==
                        "object_elem_key"), None)
            if key is None:
                continue
            here = path + (_text(key),)
            marks[here + (KEY,)] = _first(key)
            _mark_value(elem.children[-1], here, marks, depth + 1)


def _children(node: Any, name: str) -> list:
    return [c for c in getattr(node, "children", ()) if getattr(c, "data", None) == name]


def _find(node: Any, name: str, depth: int) -> list:
    """The first ``name`` nodes under ``node`` (itself included), at most ``depth`` down."""
    if getattr(node, "data", None) == name:
        return [node]
    if depth == 0:
        return []
    return [found for c in getattr(node, "children", ()) for found in _find(c, name, depth - 1)]


def _first(node: Any) -> tuple[int, int]:
    for token in node.scan_values(lambda v: hasattr(v, "line")) if hasattr(
            node, "scan_values") else (node,):
        if getattr(token, "line", None):
            return token.line, token.column
    return 1, 1


def _text(node: Any) -> str:
    tokens = [str(t) for t in node.scan_values(lambda v: hasattr(v, "type"))] \
        if hasattr(node, "scan_values") else [str(node)]
    return "".join(t for t in tokens if t != '"')


# --- topics --------------------------------------------------------------------------------

def topics(doc: Document, fields: Fields | None, related: dict) -> list[TopicSpec]:
    if doc.data.get("kind") != RESOURCE:
        return []
    fields = fields or Fields(doc)
    folder = _folder(doc.source)
    calls = _calls(folder, related)
    found = []
    # a module called N times declares its topics N times, each in the scope of its call;
    # one nobody among the inputs calls, once, as it is written
    for call in calls or [None]:
        found += _instances_of(doc, fields, folder, related, call, calls)
    return found


def _instances_of(doc: Document, fields: Fields, folder: str, related: dict,
                  call: Document | None, calls: list[Document]) -> list[TopicSpec]:
    """The topics a resource declares, for one call of its module (None: no call; every
    call: ``calls``, each named where there are several)."""
    values = doc.data["values"]
    kind, name = doc.data["type"], doc.data["name"]
    if call is not None:  # each call's topics are told apart by their document
        doc = copy.copy(doc)
    fed = None if call is None else _arguments(call)
    prefix = "" if call is None else f"module.{call.data['name']}."
    each = _instances(values.get("for_each"), folder, related, fed)
    if each is None:  # no for_each: the one instance
        instances = [(f"{kind}.{name}", None)]
    elif each is UNKNOWN:  # instances nobody can list: one, judged on its literal values
        instances = [(f"{kind}.{name}[*]", (UNKNOWN, UNKNOWN))]
    else:
        instances = [(f'{kind}.{name}["{key}"]', (key, value)) for key, value in each]
    found = []
    for address, instance in instances:
        topic = _topic(doc, fields, kind, prefix + address, instance, fed, related)
        if topic is not None:
            topic.placed_at = None if call is None else call.source.name
            if len(calls) > 1:  # root modules in several folders call it by one name
                topic.origin = f"{prefix + address}, called from {call.source.name}"
                topic.resource = ("terraform", call.source.name, prefix + address)
            found.append(topic)
    return found


def _calls(folder: str, related: dict) -> list[Document]:
    """The module calls among the inputs whose source is the module in ``folder``."""
    return [call for call in related.get("module", ())
            if isinstance(call.data["values"].get("source"), str) and posixpath.normpath(
                posixpath.join(_folder(call.source), call.data["values"]["source"]))
            == posixpath.normpath(folder)]


def _arguments(call: Document) -> dict:
    """What a module call gives its module's variables: each as written, with the folder
    it is evaluated in (the caller's)."""
    caller = _folder(call.source)
    return {name: (value, caller) for name, value in call.data["values"].items()
            if name != "source"}


def _topic(doc: Document, fields: Fields, kind: str, address: str,
           each: tuple | None, fed: dict | None = None, related: dict | None = None
           ) -> TopicSpec | None:
    names = FIELDS[kind]
    paths = {field: ("values", attribute) for field, attribute in names.items()}
    paths.setdefault("rf", ("values",))
    folder = _folder(doc.source)

    def value(field: str) -> Any:
        if field not in names:
            return None
        raw = doc.get(paths[field])  # an expression is evaluated before it counts unknown
        if isinstance(raw, str) and "${" in raw:
            encoded = _JSONENCODE.match(raw) if field == "config" else None
            if encoded:  # MSK's configs: the object it encodes, each key known or not
                raw = "${" + encoded.group(1) + "}"
            return _evaluate(raw, each, folder, fed, related)
        return fields.get(paths[field])

    config, config_paths = config_of(kind, value("config"), paths.get("config", ()))
    if config is UNKNOWN:
        config, unknown_config = {}, True
    else:
        unknown_config = False
        config = {k: ("true" if v is True else "false" if v is False else
                      _evaluate(v, each, folder, fed, related)) for k, v in config.items()}
        config = {k: v if v is UNKNOWN or type(v) in (str, int, float) or v is None
                  else UNKNOWN for k, v in config.items()}
    spec = declared(doc, kind=f"Terraform {kind}", name=value("name"), paths=paths,
                    rf=_count(value("rf")), partitions=_count(value("partitions")),
                    config=config, config_paths=config_paths,
                    resource=("terraform", None, address), origin=address,
                    cluster=cluster_named(doc.data["values"]), cluster_by_reference=True)
    if spec is not None and unknown_config:
        spec.unknown = spec.unknown | {"config"}
    if spec is not None and kind == "confluent_kafka_topic":
        spec.vendor_configs = ("confluent.",)  # Confluent Cloud runs Confluent Server
    if spec is not None and value("rf") == -1:
        spec.kept = frozenset({"rf"})  # the provider leaves an existing topic's RF as it is
    return spec


def config_of(kind: str, written: Any, at: tuple) -> tuple[Any, dict | None]:
    """A topic resource's config (written at ``at``) by Kafka's keys, UNKNOWN where it is
    an expression; and where each key is written when not at ``at + (key,)``: Aiven's
    ``config`` block (a list of one, in snake_case) at its own keys, MSK's ``configs`` (JSON
    text, or the object of a ``jsonencode``) at ``configs``."""
    if kind == "aws_msk_topic" and isinstance(written, str) and "${" not in written:
        try:
            written = json.loads(written)
        except (ValueError, RecursionError):
            return UNKNOWN, None
    if written is UNKNOWN:
        return UNKNOWN, None
    if kind == "aiven_kafka_topic":
        if isinstance(written, list):  # the block, as python-hcl2 and plans give it
            written, at = (written[0], at + (0,)) if len(written) == 1 else ({}, at)
        block = {k: v for k, v in written.items() if v is not None} \
            if isinstance(written, dict) else {}  # a plan lists the keys not set as null
        return {k.replace("_", "."): v for k, v in block.items()}, {
            k.replace("_", "."): (at + (k,), at + (k, KEY)) for k in block}
    config = written if isinstance(written, dict) else {}  # JSON's and HCL's keys: strings
    return config, {k: (at, at + (KEY,)) for k in config} if kind == "aws_msk_topic" else None


def cluster_named(values: dict) -> str | None:
    """The cluster a topic resource's attributes name: its kafka provider's alias, its
    Aiven service, its MSK cluster (the name in a literal ARN, or the label of the cluster
    resource it refers to), its Google Cloud cluster or its Confluent ``kafka_cluster``
    (a literal id, or the label of the cluster resource it refers to)."""
    provider = values.get("provider")
    found = _PROVIDER.match(provider) if isinstance(provider, str) else None
    if found:
        return found.group(1)
    block = values.get("kafka_cluster")
    block = block[0] if isinstance(block, list) and block else block
    for value, reference, literal in (
            (values.get("service_name"), None, None),
            (values.get("cluster_arn"), _MSK_REF, _MSK_ARN),
            (values.get("cluster"), _GOOGLE_REF, None),
            (block.get("id") if isinstance(block, dict) else None, _CLUSTER_REF, None)):
        if isinstance(value, str) and value:  # each provider has one of them
            found = reference.match(value) if reference else None
            if found or "${" in value:  # another expression names no cluster we know
                return found.group(1) if found else None
            if literal is None:
                return value
            found = literal.match(value)
            return found.group(1) if found else None
    return None


def _count(value: Any) -> Any:
    """A count as written: -1 is the broker default (the kafka provider's
    ``replication_factor``), None."""
    if value == -1:
        return None
    if value is None or value is UNKNOWN:
        return value
    return value if type(value) is int and value > 0 else UNKNOWN


def _folder(source: SourceFile) -> str:
    """The module (directory) of a file, as its name is shown."""
    return posixpath.dirname(source.name)


def _evaluate(value: Any, each: tuple | None, folder: str, fed: dict | None = None,
              related: dict | None = None) -> Any:
    """A value as Terraform would have it in the module in ``folder``, for one instance of
    its ``for_each`` (``each``) and one call of it (``fed``): ``hcl_eval``; UNKNOWN where it
    cannot be known."""
    from . import hcl_eval
    return hcl_eval.evaluate(value, hcl_eval.Scope(folder, each, fed, related or {}))


def _instances(for_each: Any, folder: str, related: dict, fed: dict | None = None
               ) -> list[tuple] | None | Any:
    """(key, value) of each instance of a ``for_each``; None without one, UNKNOWN when
    its keys cannot be known statically (a variable no call of the module feeds): never
    zero instances, which would say nothing of the resource's literal values."""
    if for_each is None:
        return None
    collection = _evaluate(_leaves(for_each, lambda v: v), None, folder, fed, related)
    if isinstance(collection, dict) and collection:
        return list(collection.items())
    if isinstance(collection, list) and collection and \
            all(isinstance(k, str) for k in collection):
        return [(k, k) for k in collection]  # a set of names
    return UNKNOWN
