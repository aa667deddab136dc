"""Terraform expressions evaluated as Terraform evaluates them, for the subset topic
modules are written in: literals and templates, ``var.``/``local.``/``each.``/
``path.module``, attribute and index steps, splats, ``for`` expressions (with ``if`` and
grouping), conditionals and operators, and the functions such modules call (``file``,
``jsondecode``/``yamldecode``, ``merge``, ``flatten``, ``lookup``, ``toset``, ``keys``,
``values``, ``concat``, ``try``...). What cannot be known statically (another resource's
attribute, a variable no call feeds and no default gives, a function outside the subset)
is ``UNKNOWN``, and so is everything computed from it.

The expression's text is parsed by python-hcl2's grammar; the tree is walked here.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
from functools import lru_cache
from typing import Any, Callable, NamedTuple

from .formats import UNKNOWN

#: a file ``file()`` reads: no larger
MAX_FILE = 16 * 2**20
#: the longest string or collection a function may make
MAX_MADE = 2**20
#: how many module calls, locals and variables deep an evaluation follows (they go round)
MAX_DEPTH = 12


class Scope(NamedTuple):
    """What names mean where an expression is written: the module in ``folder``, the
    instance of a ``for_each`` (``each``: key, value), the variables a call of the module
    gives (``fed``: name -> (value as written, the caller's folder)), the run's module calls
    (``related``), the names a ``for`` expression binds."""
    folder: str
    each: tuple | None = None
    fed: dict | None = None
    related: dict | None = None
    bound: dict | None = None
    depth: int = 0

    def inner(self, **changes: Any) -> "Scope":
        return self._replace(depth=self.depth + 1, **changes)


class _Unknown(Exception):
    """An operand or name is UNKNOWN: the whole expression is."""


def evaluate(written: Any, scope: Scope) -> Any:
    """A value as python-hcl2 gives it (strings holding ``${...}`` expressions, maps and
    lists of them) as Terraform would have it; UNKNOWN where it cannot be known."""
    if scope.depth > MAX_DEPTH:
        return UNKNOWN
    if isinstance(written, dict):
        return {k: evaluate(v, scope) for k, v in written.items()}
    if isinstance(written, list):
        return [evaluate(v, scope) for v in written]
    if not isinstance(written, str) or "${" not in written:
        return written
    whole = re.fullmatch(r"\$\{(.*)\}", written, re.S)
    if whole and _parsed(whole.group(1)) is not None:  # not "${a}-${b}": one expression
        return expression(whole.group(1), scope)
    return expression(f'"{written}"', scope)  # a template: "orders-${var.env}"


def expression(text: str, scope: Scope) -> Any:
    """The value of an HCL expression's text in ``scope``."""
    tree = _parsed(text)
    if tree is None:
        return UNKNOWN
    try:
        return _value(tree, scope)
    except _Unknown:
        return UNKNOWN
    except Exception:  # a file that is not there, YAML that does not read, a wrong type:
        return UNKNOWN  # what Terraform itself would refuse is known to be nothing


def values_of(text: str) -> tuple[dict, Any]:
    """The values of a ``.tf`` file as python-hcl2 serialises them (an expression as its
    ``${...}`` text), and its parse tree; lark's and python-hcl2's errors raised."""
    import hcl2
    from hcl2.utils import SerializationOptions
    tree = hcl2.parses_to_tree(text)
    return hcl2.serialize(hcl2.transform(tree), serialization_options=SerializationOptions(
        strip_string_quotes=True, with_comments=False)), tree


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Any:
    import hcl2
    try:
        tree = hcl2.parses_to_tree(f"v = {text}\n")
    except Exception:  # not an expression python-hcl2's grammar reads
        return None
    attribute = next(tree.find_data("attribute"), None)
    return None if attribute is None else _trees(attribute)[-1]


def _trees(node: Any) -> list:
    from lark import Tree
    return [c for c in node.children if isinstance(c, Tree) and c.data != "new_line_or_comment"]


def _token(node: Any) -> str:
    return str(node.children[0])


def _known(value: Any) -> Any:
    if value is UNKNOWN:
        raise _Unknown()
    return value


def _value(node: Any, scope: Scope) -> Any:
    kind = node.data
    handler = _NODES.get(kind)
    if handler is None:  # heredocs, and whatever the subset leaves out
        raise _Unknown()
    return handler(node, scope)


def _expr_term(node: Any, scope: Scope) -> Any:
    return _value(_trees(node)[0], scope)


def _literal(node: Any, scope: Scope) -> Any:
    return {"true": True, "false": False, "null": None}[_token(node)]


def _string(node: Any, scope: Scope) -> Any:
    parts = []
    for part in _trees(node):
        inner = _trees(part)
        if not inner:  # text
            parts.append(_unescaped(_token(part)))
            continue
        value = _known(_value(_trees(inner[0])[0], scope))  # ${ expr }
        if isinstance(value, bool):
            value = "true" if value else "false"
        if not isinstance(value, (str, int, float)):
            raise _Unknown()
        parts.append(_number_text(value) if not isinstance(value, str) else value)
    return "".join(parts)


def _unescaped(text: str) -> str:
    return json.loads(f'"{text}"') if "\\" in text else text


def _number_text(value: int | float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _identifier(node: Any, scope: Scope) -> Any:
    name = _token(node)
    if scope.bound and name in scope.bound:
        return scope.bound[name]
    return _Namespace(name)


class _Namespace(NamedTuple):
    """``var``, ``local``, ``each``, ``path``...: a name read through an attribute step."""
    name: str


def _attribute(node: Any, scope: Scope) -> Any:
    base_node, step = _trees(node)
    base = _value(base_node, scope)
    return _step(base, _token(_trees(step)[0]), scope)


def _step(base: Any, name: str, scope: Scope) -> Any:
    if isinstance(base, _Namespace):
        return _known(_named(base.name, name, scope))
    base = _known(base)
    if isinstance(base, dict) and name in base:
        return _known(base[name])
    raise _Unknown()


def _named(namespace: str, name: str, scope: Scope) -> Any:
    if namespace == "var":
        return variable(name, scope)
    if namespace == "local":
        return local(name, scope)
    if namespace == "each" and scope.each is not None and name in ("key", "value"):
        return scope.each[0] if name == "key" else scope.each[1]
    if namespace == "path" and name in ("module", "root", "cwd"):
        # as Terraform has them where it runs: in the root module (the module's caller),
        # path.module relative to it; file() reads relative to it too (_file)
        root = _root(scope)
        return posixpath.relpath(scope.folder or ".", root) if name == "module" else \
            "." if name == "root" else root
    return UNKNOWN  # another resource's attribute, a data source, a module output


def _index(node: Any, scope: Scope) -> Any:
    base_node, index = _trees(node)
    base = _known(_value(base_node, scope))
    key = _known(_value(_trees(index)[0], scope))
    if isinstance(base, dict) and isinstance(key, str) and key in base:
        return _known(base[key])
    if isinstance(base, list) and isinstance(key, (int, float)) and not isinstance(key, bool) \
            and 0 <= int(key) < len(base):
        return _known(base[int(key)])
    raise _Unknown()


def _splat(node: Any, scope: Scope) -> Any:
    base_node, splat = _trees(node)
    base = _known(_value(base_node, scope))
    items = base if isinstance(base, list) else [] if base is None else [base]
    steps = _trees(splat)
    out = []
    for item in items:
        for step in steps:
            if step.data == "get_attr":
                item = _step(item, _token(_trees(step)[0]), scope)
            else:
                raise _Unknown()
        out.append(item)
    return out


def _member(node: Any, scope: Scope) -> Any:
    """A member of a tuple or object: unknown alone, the others still known (as Terraform
    holds unknown values inside known collections)."""
    try:
        return _value(node, scope)
    except _Unknown:
        return UNKNOWN


def _tuple(node: Any, scope: Scope) -> Any:
    return [_member(child, scope) for child in _trees(node)]


def _object(node: Any, scope: Scope) -> Any:
    out = {}
    for element in _trees(node):
        key_node, value_node = _trees(element)
        key_term = _trees(key_node)[0]
        inner = _trees(key_term)
        if key_term.data == "expr_term" and inner and inner[0].data == "identifier" and \
                len(key_term.children) == 1:
            key = _token(inner[0])  # a bare name is the key itself
        else:
            key = _known(_value(key_term, scope))
        if not isinstance(key, (str, int, float)) or isinstance(key, bool):
            raise _Unknown()
        out[key if isinstance(key, str) else _number_text(key)] = \
            _member(value_node, scope)
    return out


def _for(node: Any, scope: Scope) -> Any:
    """``[for x in C : v if c]`` and ``{for k, v in C : key => v... if c}``."""
    children = _trees(node)
    intro, rest = children[0], children[1:]
    names = [_token(n) for n in _trees(intro) if n.data == "identifier"]
    collection = _known(_value(_trees(intro)[-1], scope))
    condition = rest.pop() if rest and rest[-1].data == "for_cond" else None
    grouping = any(str(t) == "..." for t in node.children if not hasattr(t, "data"))
    if isinstance(collection, dict):
        pairs = sorted(collection.items())
    elif isinstance(collection, list):
        pairs = list(enumerate(collection))
    else:
        raise _Unknown()
    is_object = node.data == "for_object_expr"
    out: Any = {} if is_object else []
    for key, item in pairs:
        bound = dict(scope.bound or {})
        if len(names) == 2:
            bound[names[0]], bound[names[1]] = key, item
        else:
            bound[names[0]] = item
        inner = scope._replace(bound=bound)
        if condition is not None and _known(_value(_trees(condition)[0], inner)) is not True:
            continue
        if not is_object:
            out.append(_known(_value(rest[0], inner)))
            continue
        name = _known(_value(rest[0], inner))
        if isinstance(name, (int, float)) and not isinstance(name, bool):
            name = _number_text(name)  # Terraform's map keys are strings
        if not isinstance(name, str):
            raise _Unknown()
        value = _known(_value(rest[1], inner))
        if grouping:
            out.setdefault(name, []).append(value)
        elif name in out:
            raise _Unknown()  # Terraform refuses a duplicate key without ...
        else:
            out[name] = value
    return out


def _conditional(node: Any, scope: Scope) -> Any:
    condition, then, otherwise = _trees(node)
    chosen = _known(_value(condition, scope))
    if not isinstance(chosen, bool):
        raise _Unknown()
    return _known(_value(then if chosen else otherwise, scope))


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b, "%": lambda a, b: a % b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    ">": lambda a, b: a > b, "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b,
    "&&": lambda a, b: a and b, "||": lambda a, b: a or b}


def _binary(node: Any, scope: Scope) -> Any:
    left_node, term = _trees(node)
    operator_node, right_node = _trees(term)
    operator = _token(operator_node)
    left = _known(_value(left_node, scope))
    right = _known(_value(right_node, scope))
    numeric = operator in "+-*/%<><=>="
    if numeric and not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           for v in (left, right)):
        raise _Unknown()
    if operator in ("&&", "||") and not all(isinstance(v, bool) for v in (left, right)):
        raise _Unknown()
    return _BINARY[operator](left, right)


def _unary(node: Any, scope: Scope) -> Any:
    operand = _known(_value(_trees(node)[0], scope))
    sign = str(node.children[0])
    if sign == "!" and isinstance(operand, bool):
        return not operand
    if sign == "-" and isinstance(operand, (int, float)) and not isinstance(operand, bool):
        return -operand
    raise _Unknown()


def _number(node: Any, scope: Scope) -> Any:
    text = _token(node)
    number = float(text)
    return int(number) if node.data == "int_lit" or number.is_integer() and "." not in text \
        else number


def _call(node: Any, scope: Scope) -> Any:
    children = _trees(node)
    name = _token(children[0])
    arguments = _trees(children[1]) if len(children) > 1 else []
    if name == "try":  # the first argument that evaluates
        for argument in arguments:
            try:
                value = _value(argument, scope)
            except Exception:  # try() takes the first argument that evaluates
                continue
            if value is not UNKNOWN:
                return value
        raise _Unknown()
    function = _FUNCTIONS.get(name.split("::")[-1])
    if function is None:
        raise _Unknown()
    values = [_known(_value(a, scope)) for a in arguments]
    expanded = any(str(t) == "..." for t in children[1].children
                   if not hasattr(t, "data")) if len(children) > 1 else False
    if expanded and values and isinstance(values[-1], list):
        values = values[:-1] + values[-1]
    made = function(scope, *values)
    if isinstance(made, (str, list, dict)) and len(made) > MAX_MADE:
        raise _Unknown()  # jsonencode(jsonencode(...)) doubles at each step: no further
    return made


def _root(scope: Scope) -> str:
    """The folder of the root module Terraform runs in for ``scope``: the caller of the
    module where a call feeds it, else the module itself."""
    for _, caller in (scope.fed or {}).values():
        return caller or "."
    return scope.folder or "."


def _file(scope: Scope, name: str) -> str:
    path = name if os.path.isabs(name) else os.path.join(_root(scope), name)
    if os.path.getsize(path) > MAX_FILE:
        raise _Unknown()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _yamldecode(scope: Scope, text: str) -> Any:
    from .document import SourceFile
    from .yamldoc import load_yaml  # bounded, as every YAML policylint reads
    docs = load_yaml(SourceFile("<yamldecode>", text, "yaml"))
    if len(docs) != 1:
        raise _Unknown()
    return docs[0].data


def _set(scope: Scope, items: Any) -> list:
    if not isinstance(items, list):
        raise _Unknown()
    unique = list(dict.fromkeys(json.dumps(i, sort_keys=True) for i in items))
    return sorted(json.loads(i) for i in unique) if all(
        isinstance(i, str) for i in items) else [json.loads(i) for i in unique]


def _flatten(scope: Scope, items: Any) -> list:
    if not isinstance(items, list):
        raise _Unknown()
    out: list = []
    for item in items:
        out += _flatten(scope, item) if isinstance(item, list) else [item]
    return out


def _merge(scope: Scope, *maps: Any) -> dict:
    out: dict = {}
    for m in maps:
        if m is None:
            continue
        if not isinstance(m, dict):
            raise _Unknown()
        out.update(m)
    return out


def _lookup(scope: Scope, m: Any, key: Any, *default: Any) -> Any:
    if isinstance(m, dict) and key in m:
        return m[key]
    if default:
        return default[0]
    raise _Unknown()


def _coalesce(scope: Scope, *values: Any) -> Any:
    return next(v for v in values if v is not None and v != "")


def _map(scope: Scope, m: Any) -> dict:
    if not isinstance(m, dict):
        raise _Unknown()
    return m


_FUNCTIONS: dict[str, Callable] = {
    "file": _file, "jsondecode": lambda scope, text: json.loads(text),
    "yamldecode": _yamldecode, "jsonencode": lambda scope, v: json.dumps(v),
    "merge": _merge, "flatten": _flatten, "lookup": _lookup, "toset": _set,
    "tolist": lambda scope, v: list(v) if isinstance(v, list) else _known(UNKNOWN),
    "tomap": _map, "keys": lambda scope, m: sorted(_map(scope, m)),
    "values": lambda scope, m: [m[k] for k in sorted(_map(scope, m))],
    "concat": lambda scope, *ls: [i for lst in ls for i in lst],
    "length": lambda scope, v: len(v), "lower": lambda scope, s: s.lower(),
    "upper": lambda scope, s: s.upper(), "tostring": lambda scope, v: str(v),
    "tonumber": lambda scope, v: json.loads(str(v)), "distinct": _set,
    "contains": lambda scope, lst, v: v in lst, "coalesce": _coalesce,
    "join": lambda scope, sep, lst: sep.join(lst), "split": lambda scope, sep, s: s.split(sep),
    "zipmap": lambda scope, ks, vs: dict(zip(ks, vs)), "element": lambda scope, lst, i:
        lst[int(i) % len(lst)], "replace": lambda scope, s, a, b: s.replace(a, b),
    "format": lambda scope, f, *args: re.sub(r"%[sd]", lambda _, a=iter(args): str(next(a)), f),
    "abspath": lambda scope, p: p, "basename": lambda scope, p: posixpath.basename(p),
    "trimspace": lambda scope, s: s.strip(), "can": lambda scope, v: True,
}

_NODES: dict[str, Callable[[Any, Scope], Any]] = {
    "expr_term": _expr_term, "literal_value": _literal, "string": _string,
    "identifier": _identifier, "get_attr_expr_term": _attribute, "index_expr_term": _index,
    "full_splat_expr_term": _splat, "attr_splat_expr_term": _splat, "tuple": _tuple,
    "object": _object, "for_tuple_expr": _for, "for_object_expr": _for,
    "conditional": _conditional, "binary_op": _binary, "unary_op": _unary,
    "int_lit": _number, "float_lit": _number, "function_call": _call,
}


# -- what var. and local. name ---------------------------------------------------------------

def variable(name: str, scope: Scope) -> Any:
    """``var.NAME``: what the module's call gives it (evaluated where the call is written),
    else what a local call among the run's inputs gives it, else its ``default``."""
    if scope.fed is not None and name in scope.fed:
        given, caller = scope.fed[name]
        return evaluate(given, Scope(caller, related=scope.related, depth=scope.depth + 1))
    for call in (scope.related or {}).get("module", ()) if scope.fed is None else ():
        values = call.data["values"]
        source, caller = values.get("source"), posixpath.dirname(call.source.name)
        if isinstance(source, str) and name in values and posixpath.normpath(
                posixpath.join(caller, source)) == posixpath.normpath(scope.folder):
            found = evaluate(values[name], Scope(caller, related=scope.related,
                                                 depth=scope.depth + 1))
            if found is not UNKNOWN:
                return found
    declared = _declarations(scope.folder)[1].get(name)
    if isinstance(declared, dict) and "default" in declared:
        return evaluate(declared["default"], Scope(scope.folder, depth=scope.depth + 1))
    return UNKNOWN


def local(name: str, scope: Scope) -> Any:
    """``local.NAME``: its expression in the module's ``locals`` blocks, evaluated in the
    module (with the variables the same call gives)."""
    written = _declarations(scope.folder)[0]
    if name not in written:
        return UNKNOWN
    return evaluate(written[name], scope.inner(each=None, bound=None))


_DECLARED: dict[tuple, tuple[dict, dict]] = {}


def _declarations(folder: str) -> tuple[dict, dict]:
    """(locals, variables) as written in the ``.tf`` files of the module in ``folder``;
    read again when one of them changes."""
    entries = []
    try:
        for entry in os.scandir(folder or "."):
            if entry.name.endswith(".tf"):
                try:
                    if entry.is_file():
                        info = entry.stat()
                        entries.append((entry.name, info.st_size, info.st_mtime_ns))
                except OSError:  # a link to nowhere is no module file
                    continue
    except OSError:
        return {}, {}
    entries.sort()
    key = (os.path.abspath(folder or "."), tuple(entries))
    if key not in _DECLARED:
        locals_: dict = {}
        variables: dict = {}
        for name, size, _ in entries:
            if size > MAX_FILE:
                continue
            try:
                with open(os.path.join(folder or ".", name), encoding="utf-8") as f:
                    text = f.read()
                if not re.search(r"^[ \t]*(locals|variable)\b", text, re.M):
                    continue
                data = values_of(text)[0]
            except Exception:  # not UTF-8, not HCL: its own lint says so
                continue
            for block in data.get("locals") or ():
                locals_.update({k: v for k, v in block.items() if not k.startswith("__")})
            for block in data.get("variable") or ():
                variables.update({k: v for k, v in block.items() if isinstance(v, dict)})
        if len(_DECLARED) > 64:
            _DECLARED.clear()
        _DECLARED[key] = (locals_, variables)
    return _DECLARED[key]
