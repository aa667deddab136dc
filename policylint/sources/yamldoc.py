"""YAML to plain data with a (line, column) for every value, safely.

libyaml (``CSafeLoader``) composes the node graph; this module turns nodes into values
itself, so that it can refuse duplicate keys and non-standard tags
(``!!python/object`` and friends), bound alias expansion (billion laughs) and nesting depth
(libyaml's composer recurses in C and crashes on very deep input, so depth is checked on the
event stream first whenever the text could possibly be that deep), and bound the nodes kept
(counted as libyaml composes them whenever the text could possibly hold that many).

A large file whose values rapidyaml reads exactly as PyYAML would (``yaml_json`` says when)
takes a shorter way: its values come from rapidyaml, and each document is composed, alone,
only when a finding in it is located.
"""

from __future__ import annotations

import re
import sys
from contextvars import ContextVar
from functools import lru_cache
from typing import Any, Iterator

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from ..model import KEY
from .document import Document, ParseError, SourceFile

try:  # libyaml is part of every PyYAML wheel; the pure loader is only a fallback
    # its parser and composer alone: nodes become values here, not in a constructor
    from yaml._yaml import CParser as _Base
except ImportError:  # pragma: no cover
    _Base = yaml.SafeLoader


_T = "tag:yaml.org,2002:"
_STR, _INT, _MAP, _SEQ, _MERGE = (_T + kind for kind in ("str", "int", "map", "seq", "merge"))


class _Loader(_Base):
    """libyaml's composer with a resolver that remembers the tag of each plain scalar (a
    repository of manifests repeats the same few values, and each tag is otherwise found
    by trying regular expressions) and without path resolvers, which safe loading has none
    of. libyaml calls the three methods below for every node; together they cost a quarter
    of composing as PyYAML defines them."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:  # a plain scalar's tag depends on its value alone
            return _plain_tag(value) if implicit[0] else _STR
        return _MAP if kind is MappingNode else _SEQ

    # Path resolvers are not used: a C callable that takes the arguments and does nothing
    # costs less than a Python method that does nothing.
    descend_resolver = {}.get  # (parent node, index) -> index, unused
    ascend_resolver = int  # () -> 0, unused


_RESOLVER = yaml.resolver.Resolver()


@lru_cache(maxsize=65536)  # shared by the files of a run: they repeat the same values
def _plain_tag(value: str) -> str:
    return _RESOLVER.resolve(ScalarNode, value, (True, False))

MAX_DEPTH = 200
FAST_FROM = 128 * 1024  # from this size, a file's values may be read by rapidyaml
# Every node is kept, with two marks, so that findings can be located: 500-700 bytes each.
# This bounds a file's nodes to about 1.3 GB; 10,000 KafkaTopic manifests are 270,000.
MAX_NODES = 2_000_000
#: the bound of this run (``--max-yaml-values``), MAX_NODES unless the call raises it
max_nodes: ContextVar[int] = ContextVar("max_nodes", default=MAX_NODES)
# Python prints no integer of more than 4,300 digits: refuse them where they are read
_MAX_DIGITS = 4_000
_MAX_INT_BITS = 13_000  # about 3,900 decimal digits
_SCALAR = SafeConstructor()
_CONSTRUCT = {
    _T + "int": _SCALAR.construct_yaml_int,
    _T + "float": _SCALAR.construct_yaml_float,
    _T + "bool": _SCALAR.construct_yaml_bool,
    _T + "null": lambda node: None,
    _T + "str": lambda node: node.value,
    _T + "timestamp": lambda node: node.value,  # kept as text: dates are compared as ISO strings
    _T + "binary": lambda node: node.value,
}


def load_yaml(source: SourceFile) -> list[Document]:
    """All documents of a YAML file; raises ParseError for anything that is not plain YAML.
    A large file whose values rapidyaml reads exactly as PyYAML would (``yaml_json``) is
    composed only where a finding is located."""
    _check_depth(source.text)
    if len(source.text) >= FAST_FROM and not _may_exceed_nodes(source.text):
        from . import yaml_json
        read = yaml_json.read(source.text)
        if read is not None:
            docs, starts = read
            whole: list[Document] = []
            return [Document(source, data, i, _Later(source, starts, i, data, whole).locate)
                    for i, data in enumerate(docs)]
    return _composed(source)


def _composed(source: SourceFile) -> list[Document]:
    """All documents of a YAML file, composed by libyaml, each located by its nodes."""
    text = source.text
    docs: list[Document] = []
    # Without an anchor no node is shared: no alias to expand or recurse into. The budget
    # bounds the values built in the whole file; only alias expansion can exceed it.
    builder = (_Builder if "&" in text else _TreeBuilder)(2 * len(text) + 100_000)
    loader = _Loader(text)
    if _may_exceed_nodes(text):  # libyaml calls its resolver for every node it composes
        loader.resolve = _counted(loader.resolve)
    try:
        while loader.check_node():
            node = loader.get_node()
            docs.append(Document(source, builder.build(node, 0), len(docs),
                                 _Locator(node).locate))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or str(exc)
        if mark is None:
            raise ParseError(f"invalid YAML: {problem}") from None
        raise ParseError(f"invalid YAML: {problem}", mark.line + 1, mark.column + 1) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    return docs


def _check_depth(text: str) -> None:
    """Refuses text nested deeper than MAX_DEPTH before libyaml composes it. The event scan
    that measures the depth costs a fifth of reading a file, so it only runs when a bound
    found at C speed allows that depth: a flow level costs a ``[`` or ``{``; a nested block
    collection starts to the right of its parent, or in the same column for a sequence in a
    mapping, so block levels are at most twice the longest line."""
    flow = text.count("[") + text.count("{")
    longest = (MAX_DEPTH - flow) // 2 - 1  # the longest line that keeps the bound
    if longest >= 0 and _lines_within(longest).fullmatch(text):
        return
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    raise ParseError(f"nesting is deeper than {MAX_DEPTH} levels",
                                     mark.line + 1, mark.column + 1)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        # libyaml >= 0.2.5 as PyYAML 6.0.3+ ships it stops at 1,000 levels on its own, ahead
        # of the events this scan counts: that too is nesting beyond MAX_DEPTH
        if "nesting depth" in str(exc.problem) and exc.problem_mark is not None:
            mark = exc.problem_mark
            raise ParseError(f"nesting is deeper than {MAX_DEPTH} levels",
                             mark.line + 1, mark.column + 1) from None
        return  # load_yaml reports the syntax error with its position
    except yaml.YAMLError:
        return


def _may_exceed_nodes(text: str) -> bool:
    """Whether ``text`` could compose to more than the run's bound of nodes (a short text
    cannot)."""
    bound = max_nodes.get()
    return 1 + 3 * len(text) > bound and node_bound(text) > bound


def node_bound(text: str) -> int:
    """At least as many as the nodes ``text`` composes to, found at C speed (a thirtieth
    of composing). Every node but the first document's needs one of these characters, and
    none pays for more than three: ``:`` (a key, its value, a new mapping), ``-`` (an item,
    a new sequence; ``---``), ``.`` (``...``), ``,`` ``[`` ``{`` ``?`` (flow items,
    explicit keys)."""
    return 1 + 3 * sum(map(text.count, ":-.,[{?"))


def _counted(resolve: Any) -> Any:
    """``resolve``, refusing the file once it has composed the run's bound of nodes: memory
    is bound however small the nodes are written (``[a,a,a,...]``, ``---`` lines)."""
    bound = left = max_nodes.get()

    def counted(kind: Any, value: Any, implicit: Any) -> str:
        nonlocal left
        left -= 1
        if left < 0:
            raise ParseError(f"more than {bound:,} YAML values in one file: too many to "
                             "read safely (split the file, or raise --max-yaml-values)")
        return resolve(kind, value, implicit)
    return counted


@lru_cache(maxsize=None)  # one per flow count below MAX_DEPTH, at most
def _lines_within(length: int) -> re.Pattern:
    """Matches text whose lines are at most ``length`` characters long, at C speed without
    making a string of each line. Lines are parted at newlines alone, so none is shorter
    than YAML's: the bound stays safe."""
    return re.compile(rf"(?:[^\n]{{0,{length}}}+\n)*+[^\n]{{0,{length}}}+")


class _Locator:
    """(line, column) of a path, found in the composed nodes when a finding asks (marking
    every value while building would cost a fifth of reading the file)."""

    def __init__(self, root: Any):
        self.root = root
        #: the keys of each large mapping found in, by the mapping's id: a mapping of
        #: thousands of keys is searched once, not once per finding in it
        self._keys: dict[int, dict] = {}

    def locate(self, path: tuple) -> tuple[int, int] | None:
        node = parent = self.root
        for i, key in enumerate(path):
            if key is KEY:  # the key node of the last step
                node = self._child(parent, path[i - 1], of_key=True) if i else None
            else:
                parent, node = node, self._child(node, key)
            if node is None:
                return None
        mark = node.start_mark
        return mark.line + 1, mark.column + 1

    def _child(self, node: Any, key: Any, of_key: bool = False) -> Any:
        if type(node) is not MappingNode or len(node.value) < _INDEXED:
            return _child(node, key, of_key)
        keys = self._keys.get(id(node))
        if keys is None:
            keys = self._keys[id(node)] = {}
            for key_node, value in reversed(node.value):  # the first of a key wins
                if key_node.tag != _MERGE and type(key_node) is ScalarNode:
                    keys[key_node.value] = (key_node, value)
        found = keys.get(key)
        if found is None:  # merged keys, or none
            return _child(node, key, of_key)
        return found[0] if of_key else found[1]


_NODE = {dict: MappingNode, list: SequenceNode}  # the node of each kind of value (else scalar)


class _Later:
    """Locates in one document of a file read without positions (``yaml_json``): composes
    the document's own text when a finding first asks (where ``yaml_json.spans`` says it
    is: tests hold each document's text to its value), or, should that not give one node
    of the value's kind, the whole file, once for all its documents (``whole``)."""

    def __init__(self, source: SourceFile, starts: list[tuple[int, int]], index: int,
                 data: Any, whole: list[Document]):
        self.source, self.starts, self.index, self.data, self.whole = \
            source, starts, index, data, whole
        self._locate: Any = None

    def locate(self, path: tuple) -> tuple[int, int] | None:
        if self._locate is None:
            self._locate = self._alone() or self._in_whole
        return self._locate(path)

    def _alone(self) -> Any:
        text, starts, i = self.source.text, self.starts, self.index
        (start, before), end = starts[i], starts[i + 1][0] if i + 1 < len(starts) else len(text)
        loader = _Loader(text[start:end])
        loader.resolve = "".format  # positions need no tags: a C call that answers ""
        try:
            nodes = []
            while loader.check_node():
                nodes.append(loader.get_node())
            if len(nodes) != 1 or type(nodes[0]) is not _NODE.get(type(self.data), ScalarNode):
                return None
        except (yaml.YAMLError, ParseError):
            return None
        finally:
            loader.dispose()
        locate = _Locator(nodes[0]).locate

        def shifted(path: tuple) -> tuple[int, int] | None:
            found = locate(path)
            return None if found is None else (found[0] + before, found[1])
        return shifted

    def _in_whole(self, path: tuple) -> tuple[int, int] | None:
        if not self.whole:
            bound = max_nodes.set(sys.maxsize)  # the file was within the run's when read
            try:
                self.whole.extend(_composed(self.source))
            except ParseError:  # pragma: no cover - what rapidyaml read, libyaml composes
                return None
            finally:
                max_nodes.reset(bound)
        return self.whole[self.index]._locate(path)


_INDEXED = 64  # mappings of this many keys or more are indexed when a finding is located


def _child(node: Any, key: Any, of_key: bool = False) -> Any:
    """The value node at ``key`` (or, ``of_key``, the key node itself)."""
    if type(node) is SequenceNode:
        return node.value[key] if type(key) is int and 0 <= key < len(node.value) else None
    if type(node) is not MappingNode:
        return None
    for key_node, value in node.value:  # explicit keys override merged ones
        if key_node.tag != _MERGE and key_node.value == key:
            return key_node if of_key else value
    for key_node, value in node.value:
        if key_node.tag == _MERGE:
            for source in (value.value if type(value) is SequenceNode else [value]):
                found = _child(source, key, of_key)
                if found is not None:
                    return found
    return None


class _Builder:
    def __init__(self, budget: int):
        self.count = 0
        self.budget = budget
        self.active: set[int] = set()

    def build(self, node: Any, depth: int) -> Any:
        self.count += 1
        if self.count > self.budget:
            raise _error("alias expansion is too large (a YAML alias bomb?)", node)
        if type(node) is ScalarNode:
            return _scalar(node)
        if id(node) in self.active:
            raise _error("recursive alias: the node contains itself", node)
        if depth >= MAX_DEPTH:
            raise _error(f"nesting is deeper than {MAX_DEPTH} levels", node)
        self.active.add(id(node))
        try:
            if type(node) is SequenceNode and node.tag == _SEQ:
                return [self.build(item, depth + 1) for item in node.value]
            if type(node) is MappingNode and node.tag == _MAP:
                return self._mapping(node, depth)
            raise _tag_error(node)
        finally:
            self.active.discard(id(node))

    def _mapping(self, node: MappingNode, depth: int) -> dict:
        merged = [v for k, v in node.value if k.tag == _MERGE]
        result: dict[str, Any] = {}
        # Merged values first, so explicit keys override them.
        for source in self._merge_sources(merged):
            for key, value in self.build(source, depth + 1).items():
                result.setdefault(key, value)
        explicit: set[str] = set()
        for key_node, value_node in node.value:
            if type(key_node) is not ScalarNode:
                raise _error("a mapping key must be a plain scalar", key_node)
            if key_node.tag == _MERGE:
                continue
            key = key_node.value
            if key in explicit:
                raise _error(f"duplicate key '{key}' (an earlier value would be silently "
                             "dropped)", key_node)
            explicit.add(key)
            result[key] = self.build(value_node, depth + 1)
        return result

    @staticmethod
    def _merge_sources(merged: list[Any]) -> Iterator[Any]:
        for value in merged:
            items = value.value if type(value) is SequenceNode else [value]
            for item in items:
                if type(item) is not MappingNode:
                    raise _error("a merge key (<<) must refer to a mapping", item)
                yield item


class _TreeBuilder(_Builder):
    """The builder for text without anchors, where every node is built once: nothing to
    count or to watch for recursion, and the common nodes (strings, plain mappings) take
    the shortest way. A merge key or a complex key takes the general one."""

    def build(self, node: Any, depth: int) -> Any:
        kind = type(node)
        if kind is ScalarNode:
            return node.value if node.tag == _STR else _scalar(node)
        if depth >= MAX_DEPTH:
            raise _error(f"nesting is deeper than {MAX_DEPTH} levels", node)
        if kind is MappingNode and node.tag == _MAP:
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if type(key_node) is not ScalarNode or key_node.tag == _MERGE:
                    return self._mapping(node, depth)
                key = key_node.value
                if key in result:
                    raise _error(f"duplicate key '{key}' (an earlier value would be silently "
                                 "dropped)", key_node)
                # a scalar, most values, without a call of its own
                result[key] = (value_node.value if value_node.tag == _STR
                               else _scalar(value_node)) \
                    if type(value_node) is ScalarNode else self.build(value_node, depth + 1)
            return result
        if kind is SequenceNode and node.tag == _SEQ:
            return [self.build(item, depth + 1) for item in node.value]
        raise _tag_error(node)


def _scalar(node: ScalarNode) -> Any:
    value, tag = node.value, node.tag
    if tag == _INT and value.isdecimal() and value[0] != "0" and len(value) < 19:
        return int(value)  # the usual decimal, without the YAML 1.1 forms (octal, 1_000, 1:30)
    construct = _CONSTRUCT.get(tag)
    if construct is None:
        raise _tag_error(node)
    if len(value) > _MAX_DIGITS and tag in (_INT, _T + "float"):
        raise _error(f"number with {len(value)} digits is too large", node)
    try:
        built = construct(node)
    except Exception:  # a value its tag refuses: !!bool maybe, !!int "", ...
        raise _error(f"{_short_tag(tag)} cannot read the value {value[:40]!r}", node) from None
    if type(built) is int and built.bit_length() > _MAX_INT_BITS:  # from hex, octal
        raise _error("integer is too large to read", node)
    return built


def _tag_error(node: Any) -> ParseError:
    return _error(f"tag {_short_tag(node.tag)} is not allowed: policylint reads plain YAML "
                  "only", node)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_T):] if tag.startswith(_T) else tag


def _error(message: str, node: Any) -> ParseError:
    mark = node.start_mark
    return ParseError(message, mark.line + 1, mark.column + 1)
