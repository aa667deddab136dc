"""Terraform HCL (``*.tf``): the topic resources of five providers are topic declarations:
``kafka_topic`` (the Mongey/kafka provider: ``name``, ``partitions``,
``replication_factor``, ``config``), ``confluent_kafka_topic`` (``topic_name``,
``partitions_count``, ``config``; no RF), ``aiven_kafka_topic`` (``topic_name``,
``partitions``, ``replication``, a ``config`` block of Kafka's keys in snake_case),
``aws_msk_topic`` (``name``, ``partition_count``, ``replication_factor``, ``configs``: the
JSON of a ``jsonencode({...})``) and ``google_managed_kafka_topic`` (``topic_id``,
``partition_count``, ``replication_factor``, ``configs``). ``FIELDS`` says which is which.

HCL is read with python-hcl2 (imported only when a ``.tf`` file is read): its parse tree
gives every attribute's line and column, its serialisation the values. A ``for_each`` over
a literal map, over ``jsondecode(file("x.json"))``, over a local (``local.topics``, from
the ``locals`` blocks of the module's ``.tf`` files), over ``toset(...)`` or
``{ for t in ... : t.name => t }`` of those, or over a variable that a local module call
feeds that way, makes one topic per key, with ``each.key`` and ``each.value.x`` evaluated;
so is an attribute that is a local. Any other expression (a variable, a function, a local
that is itself an expression) is an unknown value.
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

import contextlib
import copy
import json
import os
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
_STEPS = r"((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[\"[^\"]*\"\])*)$"  # .x and ["x"], as _walk takes them
_EACH = re.compile(r"each\.(key|value)" + _STEPS)
_JSON_FILE = re.compile(r'(json|yaml)decode\(\s*file\(\s*"(?:\$\{path\.module\}/)?([^"$]+)"'
                        r'\s*\)\s*\)$')
_VAR = re.compile(r"var\.([A-Za-z_][A-Za-z0-9_-]*)$")
_INTERPOLATED = re.compile(r"\$\{([^{}]*)\}")
_LOCAL = re.compile(r"local\.([A-Za-z_][A-Za-z0-9_-]*)" + _STEPS)
_TOSET = re.compile(r"toset\((.*)\)$", re.S)
# { for t in LIST : t.name => t }
_FOR = re.compile(r"\{\s*for\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s+(.+?)\s*:\s*"
                  r"\1\.([A-Za-z_][A-Za-z0-9_-]*)\s*=>\s*\1\s*\}$", re.S)
MAX_JSON = 16 * 2**20  # a topics file read for for_each: no larger
_PROVIDER = re.compile(r"^\$\{kafka\.([A-Za-z_][A-Za-z0-9_-]*)\}$")
_CLUSTER_REF = re.compile(r"^\$\{confluent_kafka_cluster\.([A-Za-z_][A-Za-z0-9_-]*)\.id\}$")
_MSK_REF = re.compile(r"^\$\{aws_msk_cluster\.([A-Za-z_][A-Za-z0-9_-]*)\.arn\}$")
_MSK_ARN = re.compile(r"^arn:aws[a-z-]*:kafka:[^:]*:[^:]*:cluster/([^/]+)/")
_GOOGLE_REF = re.compile(r"^\$\{google_managed_kafka_cluster\.([A-Za-z_][A-Za-z0-9_-]*)\."
                         r"(?:cluster_id|id|name)\}$")
_JSONENCODE = re.compile(r"jsonencode\((.*)\)$", re.S)


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
        import hcl2
        from hcl2.utils import SerializationOptions
    except ImportError:  # pragma: no cover - a dependency of policylint
        raise ParseError("reading Terraform needs python-hcl2 (pip install python-hcl2)")
    tree = hcl2.parses_to_tree(text)
    data = hcl2.serialize(hcl2.transform(tree), serialization_options=SerializationOptions(
        strip_string_quotes=True, with_comments=False))
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
        found += _instances_of(doc, fields, folder, related, call)
    return found


def _instances_of(doc: Document, fields: Fields, folder: str, related: dict,
                  call: Document | None) -> list[TopicSpec]:
    """The topics a resource declares, for one call of its module (None: no call)."""
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
        topic = _topic(doc, fields, kind, prefix + address, instance, fed)
        if topic is not None:
            topic.placed_at = None if call is None else call.source.name
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
           each: tuple | None, fed: dict | None = None) -> TopicSpec | None:
    names = FIELDS[kind]
    paths = {field: ("values", attribute) for field, attribute in names.items()}
    paths.setdefault("rf", ("values",))
    folder = _folder(doc.source)

    def value(field: str) -> Any:
        if field not in names:
            return None
        raw = doc.get(paths[field])  # an expression is evaluated before it counts unknown
        if isinstance(raw, str) and "${" in raw:
            return _evaluate(raw, each, folder, fed)
        return fields.get(paths[field])

    config, config_paths = config_of(kind, value("config"), paths.get("config", ()))
    if config is UNKNOWN:
        config, unknown_config = {}, True
    else:
        unknown_config = False
        config = {k: ("true" if v is True else "false" if v is False else
                      _evaluate(v, each, folder)) for k, v in config.items()}
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


def _evaluate(value: Any, each: tuple | None, folder: str, fed: dict | None = None) -> Any:
    """A value as Terraform would have it: ``each.key`` and ``each.value.x`` of a known
    for_each, the module's literal locals, the variables a call of the module gives
    (``fed``), and strings that interpolate them; any other expression is unknown."""
    if value is UNKNOWN or not isinstance(value, str) or "${" not in value:
        return value
    match = _EXPRESSION.match(value)
    if match is None or "${" in match.group(1):  # "orders-${var.env}": each part in turn
        parts = [_evaluate(f"${{{part}}}", each, folder, fed)
                 for part in _INTERPOLATED.findall(value)]
        if any(p is UNKNOWN or type(p) not in (str, int, float) for p in parts):
            return UNKNOWN
        said = iter(parts)
        return _INTERPOLATED.sub(lambda _: str(next(said)), value)
    text = match.group(1).strip()
    found = _VAR.match(text)
    if found and fed is not None and found.group(1) in fed:
        given, caller = fed[found.group(1)]
        return _evaluate(given, None, caller)
    found = _EACH.match(text)
    if found and each is not None:
        return _walk(each[0] if found.group(1) == "key" else each[1], found.group(2))
    found = _LOCAL.match(text)
    if found:
        return _walk(_locals(folder).get(found.group(1), UNKNOWN), found.group(2))
    found = _JSONENCODE.match(text)
    if found:  # the value it encodes, evaluated in turn
        try:
            encoded = _load(f"v = {found.group(1)}\n", marked=False)[0].get("v", UNKNOWN)
        except Exception:  # not an HCL value on its own
            return UNKNOWN
        return _leaves(encoded, lambda v: _evaluate(v, each, folder))
    return UNKNOWN


def _walk(current: Any, steps: str) -> Any:
    """``current`` down ``.x`` and ``["x"]`` steps (UNKNOWN where one is missing)."""
    for step in re.findall(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\[\"([^\"]*)\"\]", steps):
        key = step[0] or step[1]
        if not isinstance(current, dict) or key not in current:
            return UNKNOWN
        current = current[key]
    return current  # a value of the wrong shape is refused where it is used


def _instances(for_each: Any, folder: str, related: dict, fed: dict | None = None
               ) -> list[tuple] | None | Any:
    """(key, value) of each instance of a ``for_each``; None without one, UNKNOWN when
    its keys cannot be known statically (a variable no call of the module feeds): never
    zero instances, which would say nothing of the resource's literal values."""
    if for_each is None:
        return None
    found = _VAR.match(_EXPRESSION.match(for_each).group(1).strip()) \
        if isinstance(for_each, str) and _EXPRESSION.match(for_each) else None
    collection = _collection(*fed[found.group(1)], related) \
        if found and fed is not None and found.group(1) in fed \
        else _collection(for_each, folder, related)
    if isinstance(collection, dict):
        return list(collection.items())
    if isinstance(collection, list) and all(isinstance(k, str) for k in collection):
        return [(k, k) for k in collection]  # a set of names
    return UNKNOWN


def _collection(value: Any, folder: str, related: dict, depth: int = 0) -> Any:
    """The map or list a value of the module in ``folder`` stands for; None (or UNKNOWN)
    where policylint cannot know it."""
    if isinstance(value, (dict, list)):
        return value
    match = _EXPRESSION.match(value) if isinstance(value, str) else None
    return _of_expression(match.group(1).strip(), folder, related, depth) if match else None


def _of_expression(text: str, folder: str, related: dict, depth: int) -> Any:
    """``_collection`` of an expression's text; None past a few module calls or functions
    deep (modules that call each other go round)."""
    if depth > 8:
        return None
    found = _TOSET.match(text)
    if found:
        return _of_expression(found.group(1).strip(), folder, related, depth + 1)
    found = _FOR.match(text)
    if found:  # { for t in LIST : t.name => t }
        items = _of_expression(found.group(2).strip(), folder, related, depth + 1)
        key = found.group(3)
        if isinstance(items, list) and all(isinstance(i, dict) and isinstance(i.get(key), str)
                                           for i in items):
            return {i[key]: i for i in items}
        return None
    found = _JSON_FILE.match(text)
    if found:
        return _json_file(folder, found.group(2), found.group(1))
    found = _LOCAL.match(text)
    if found:
        return _walk(_locals(folder).get(found.group(1), UNKNOWN), found.group(2))
    found = _VAR.match(text)
    if found:  # a module's variable, fed by a local module call
        for call in related.get("module", ()):
            source = call.data["values"].get("source")
            caller = _folder(call.source)
            if posixpath.normpath(posixpath.join(caller, source)) == posixpath.normpath(folder):
                fed = _collection(call.data["values"].get(found.group(1)), caller, related,
                                  depth + 1)
                if fed is not None:
                    return fed
    return None


_LOCALS: dict[tuple, dict] = {}  # (folder, its .tf files' names, sizes and times) -> locals


def _locals(folder: str) -> dict:
    """The locals of the module in ``folder``: every ``locals`` block of its ``.tf`` files,
    read when a topic refers to one. A string that is an expression is UNKNOWN."""
    entries = []
    try:
        for entry in os.scandir(folder or "."):
            with contextlib.suppress(OSError):  # a link to nowhere is no module file
                if entry.name.endswith(".tf") and entry.is_file():
                    info = entry.stat()
                    entries.append((entry.name, info.st_size, info.st_mtime_ns))
    except OSError:
        return {}
    entries.sort()
    key = (os.path.abspath(folder or "."), tuple(entries))
    if key not in _LOCALS:
        found: dict = {}
        for name, size, _ in entries:
            if size > MAX_JSON:
                continue
            try:
                with open(os.path.join(folder or ".", name), encoding="utf-8") as f:
                    text = f.read()
                if re.search(r"^[ \t]*locals\b", text, re.M):
                    for block in _load(text, marked=False)[0].get("locals") or ():
                        found.update({name: _local(value, folder)
                                      for name, value in block.items()})
            except Exception:  # not there, not UTF-8, not HCL: its own lint says so
                continue
        _LOCALS.clear()  # one module's at a time: a run reads its modules in turn
        _LOCALS[key] = found
    return _LOCALS[key]


def _local(value: Any, folder: str) -> Any:
    """A local's value: a file it decodes (``jsondecode(file(...))``, ``yamldecode``), else
    its literal scalars (an expression in them UNKNOWN)."""
    match = _EXPRESSION.match(value) if isinstance(value, str) else None
    found = _JSON_FILE.match(match.group(1).strip()) if match else None
    if found:
        decoded = _json_file(folder, found.group(2), found.group(1))
        return UNKNOWN if decoded is None else decoded
    return _leaves(value, _literal)


def _literal(value: Any) -> Any:
    """A scalar of a local: an expression in it is UNKNOWN."""
    return UNKNOWN if isinstance(value, str) and "${" in value else value


def _json_file(folder: str, name: str, decoder: str = "json") -> Any:
    """``jsondecode(file(name))`` or ``yamldecode(file(name))`` in the module in ``folder``;
    None where it cannot be read (its topics are not known)."""
    path = os.path.join(folder or ".", name)
    try:
        if os.path.getsize(path) > MAX_JSON:
            return None
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if decoder == "json":
            return json.loads(text)
        from .yamldoc import load_yaml  # bounded, as every YAML policylint reads
        docs = load_yaml(SourceFile(path, text, "yaml"))
        return docs[0].data if len(docs) == 1 else None
    except (OSError, ValueError, RecursionError, ParseError):
        return None
