"""What the editor shows of a topic config key: on hover its meaning, type, default and valid
values for the cluster's release, and as completions the keys and values Kafka accepts.
Pure functions of a line of text and a release: no editor, no protocol."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from .. import kafka_configs
from ..kafka_configs.docs import DOCS

#: a config key where it is written: a YAML key (quoted or not), an HCL or properties
#: ``key =``, a JSON member
_KEY = re.compile(r"""^(\s*(?:-\s+)?["']?)([a-z][a-z0-9]*(?:\.[a-z0-9]+)+)(["']?\s*[:=])""")
#: the lines that open a topic's config in the formats policylint reads
_CONFIG = re.compile(r"^(\s*)(\"?)(config|configs|topicConfigs|config_entries|spec)\2\s*[:=]\s*"
                     r"[{(]?\s*$")


class Key(NamedTuple):
    key: str
    start: int  # column of its first character, 0-based
    end: int


def key_at(line: str, column: int) -> Key | None:
    """The config key written on ``line`` when ``column`` (0-based) is on it."""
    found = _KEY.match(line)
    if found is None:
        return None
    start, end = found.start(2), found.end(2)
    return Key(found.group(2), start, end) if start <= column <= end else None


#: a rule's code where a line names one: a suppression comment, a policy's rules: key
_CODE = re.compile(r"\b[A-Z][A-Z0-9]{0,15}[0-9]{3}\b")


def code_at(line: str, column: int) -> Key | None:
    """The rule code written on ``line`` when ``column`` (0-based) is on it, in a
    ``# policylint: disable=`` comment or as a key (a policy's ``rules:``)."""
    for found in _CODE.finditer(line):
        if found.start() <= column <= found.end() and (
                "policylint:" in line[:found.start()] or
                line[found.end():].lstrip().startswith(":")):
            return Key(found.group(0), found.start(), found.end())
    return None


def rule_hover(code: str, policy: str | None = None, start: Path | None = None) -> str | None:
    """Markdown of a rule: its code, name, severity, summary and page; a policy's own rule
    from ``policy``, else from the policy found from ``start`` (a folder)."""
    from ..registry import all_rules
    rule = all_rules().get(code)
    if rule is None:  # one of the policy's own (cel_rules)
        from .. import policy as policies
        try:
            rule = policies.load(policy, start).find(code)
        except Exception:  # a broken policy: its own message says so elsewhere
            rule = None
    if rule is None:
        return None
    url = rule.help_uri()
    return (f"**{rule.code}** `{rule.name}` ({rule.severity})\n\n{rule.summary()}"
            + (f"\n\n[{rule.code}]({url})" if url else ""))


def _range(spec: dict) -> str:
    if "values" in spec:
        return "one of " + ", ".join(f"`{v}`" for v in spec["values"])
    if "subset" in spec:
        return "a list of " + ", ".join(f"`{v}`" for v in spec["subset"])
    low, high = spec.get("min"), spec.get("max")
    if low is not None and high is not None:
        return f"{low} to {high}"
    if low is not None:
        return f"at least {low}"
    if high is not None:
        return f"at most {high}"
    return "any " + {"boolean": "boolean (true, false)", "list": "list"}.get(spec["type"],
                                                                         spec["type"])


def hover(key: str, release: str) -> str | None:
    """Markdown for ``key`` under Kafka ``release``; None when it is no topic config of it."""
    spec = kafka_configs.table(release).get(key)
    if spec is None:
        removed = kafka_configs.removed_in(key, release)
        return f"**{key}**: not a topic config of Kafka {release} (removed in {removed})" \
            if removed else None
    lines = [f"**{key}** (Kafka {release})", "", DOCS.get(key, ""), "",
             f"- type: {spec['type']}",
             f"- default: `{spec['default']}`" if spec.get("default") is not None else
             "- default: the broker's",
             f"- valid: {_range(spec)}"]
    if spec.get("deprecated"):
        lines.append("- deprecated")
    return "\n".join(line for line in lines if line is not None).strip()


def config_block(lines: list[str], row: int) -> int | None:
    """The line of the ``config:`` (Terraform's ``config = {``) whose block line ``row`` is
    in, or None. An empty line is as deep as the editor indented it, else as the line
    before it (the next key of the block)."""
    line = lines[row]
    indent = len(line) - len(line.lstrip()) if line.strip() or line else None
    for up in range(row - 1, -1, -1):
        text = lines[up]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        own = len(text) - len(text.lstrip())
        if indent is None:  # an empty line: the block's first key, or the next one
            found = _CONFIG.match(text)
            if found is not None:
                return up if found.group(3) != "spec" else None
            indent = own
        if own < indent:
            found = _CONFIG.match(text)
            return up if found is not None and found.group(3) != "spec" else None
    return None


def in_config(lines: list[str], row: int) -> bool:
    """Whether line ``row`` is inside a topic's config block."""
    return config_block(lines, row) is not None


def written(lines: list[str], row: int | None = None) -> set[str]:
    """The config keys written in the block of line ``row`` (the whole text: None)."""
    if row is None:
        return {m.group(2) for m in map(_KEY.match, lines) if m}
    start = config_block(lines, row)
    if start is None:
        return set()
    base = len(lines[start]) - len(lines[start].lstrip())
    keys = set()
    for text in lines[start + 1:]:
        if text.strip() and len(text) - len(text.lstrip()) <= base:
            break  # the block ends
        found = _KEY.match(text)
        if found:
            keys.add(found.group(2))
    return keys


#: how a config key is written, by the file's syntax
_STYLE = {"yaml": "{key}: ", "hcl": '"{key}" = ', "json": '"{key}": '}
#: what is being typed before the cursor: the part of a key the completion replaces
_TYPED = re.compile(r"""["']?[a-z0-9._]*$""")


def syntax(path: str) -> str:
    return "hcl" if path.endswith(".tf") else "json" if path.endswith(".json") else "yaml"


def typed(line: str, column: int) -> int:
    """Where what is being typed at ``column`` starts (0-based)."""
    return column - len(_TYPED.search(line[:column]).group(0))


class Completion(NamedTuple):
    label: str
    detail: str
    doc: str
    insert: str


def keys(release: str, written: set[str], style: str = "yaml") -> list[Completion]:
    """The topic config keys of ``release`` not already written, as the syntax writes them."""
    table = kafka_configs.table(release)
    return [Completion(key, f"{spec['type']}, default {spec.get('default')}",
                       DOCS.get(key, ""), _STYLE[style].format(key=key))
            for key, spec in sorted(table.items())
            if key not in written and not spec.get("deprecated")]


def values(key: str, release: str) -> list[Completion]:
    """The values Kafka accepts for ``key`` (those it enumerates)."""
    spec = kafka_configs.table(release).get(key)
    if spec is None:
        return []
    choices = spec.get("values") or spec.get("subset") or (
        ["true", "false"] if spec["type"] == "boolean" else [])
    default = spec.get("default")
    return [Completion(str(v), "default" if str(v) == str(default) else spec["type"],
                       DOCS.get(key, ""), str(v)) for v in choices]


def value_of(line: str, column: int) -> str | None:
    """The key whose value is being written at ``column`` (``key: |``)."""
    found = _KEY.match(line)
    return found.group(2) if found is not None and column >= found.end(3) else None
