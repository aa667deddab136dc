"""Policies: which rules run, at what severity, with what options, and what is exempt.

A policy is found with ``--policy FILE``, else as ``.policylint.yaml`` (or ``[tool.policylint]``
in ``pyproject.toml``) in the working directory or the nearest parent that has one, else the
built-in ``default`` pack. ``extends`` names a built-in pack (``default``, ``strict``,
``kip409``) or a path relative to the policy file. Any unknown key, rule or option is a
``PolicyError`` naming its key path (exit 2).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import importlib.util
import os
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from .model import KEY, Ref
from .registry import all_rules, find
from .rule import Rule
from .schema import Schema, format_path
from .sources import display_name, unsaved
from .sources.document import Document, ParseError, SourceFile
from .sources.schemas import validator

PACKS = ("default", "strict", "kip409")
FILE_NAMES = (".policylint.yaml", ".policylint.yml")
_SETTINGS = {"severity": {"enum": ["error", "warning", "note"]}, "enabled": {"type": "boolean"}}


class PolicyError(Exception):
    """A policy that cannot be used: one line (what a key says is shown escaped)."""

    def __init__(self, message: str):
        super().__init__("".join(c if c.isprintable() else repr(c)[1:-1] for c in message))


class Exemption(Struct):
    rule: str
    topics: list[str]
    reason: str
    expires: dt.date | None
    at: Ref | None  # where the policy says it; not sent to Spark executors

    def active(self, today: dt.date) -> bool:
        return self.expires is None or self.expires >= today

    def covers(self, code: str, topic: str | None) -> bool:
        return code == self.rule and topic is not None and any(
            fnmatch.fnmatchcase(topic, glob) for glob in self.topics)

    def __reduce__(self) -> tuple:
        return Exemption, (self.rule, self.topics, self.reason, self.expires, None)


class Policy(Struct):
    source: str = "default"
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> settings
    allow_rf_change: list[str] = field(default_factory=list)
    placeholders_enabled: bool = False
    exemptions: list[Exemption] = field(default_factory=list)
    clusters: dict[str, list[str]] = field(default_factory=dict)  # name -> path globs
    kafka_version: str | None = None  # when the cluster does not say
    kafka_versions: str | None = None  # the window of releases when nothing says which
    config_prefixes: list[str] = field(default_factory=list)  # vendor config keys allowed
    baseline: str | None = None  # a baseline file, resolved from the policy file's folder
    exclude: list[str] = field(default_factory=list)  # .gitignore patterns walks leave out
    #: the policy's own rules (``cel_rules``: ``policylint.cel.CelRule``), compiled
    custom_rules: list[Rule] = field(default_factory=list)
    #: the managed platform the clusters run on (PL609), and per cluster name
    platform: str | None = None
    platforms: dict[str, str] = field(default_factory=dict)

    def platform_of(self, cluster: str | None) -> str | None:
        return self.platforms.get(cluster or "", self.platform)

    def find(self, key: str) -> Rule | None:
        """A rule by code or name: the policy's own, else an installed one."""
        own = next((r for r in self.custom_rules if r.code == key.upper() or r.name == key),
                   None)
        return own or find(key)

    def enabled(self, rule: Rule) -> bool:
        return self.rules.get(rule.code, {}).get("enabled", True)

    def severity(self, rule: Rule) -> str:
        return self.rules.get(rule.code, {}).get("severity", rule.severity)

    def options(self, rule: Rule) -> dict[str, Any]:
        settings = self.rules.get(rule.code, {})
        options = rule.default_options()
        options.update({k: v for k, v in settings.items() if k not in _SETTINGS})
        return options

    def allows_rf_change(self, topic: str) -> bool:
        return any(fnmatch.fnmatchcase(topic, glob) for glob in self.allow_rf_change)

    def compile(self, rules: list[Rule], today: dt.date) -> CompiledPolicy:
        return CompiledPolicy(self, rules, today)


class CompiledPolicy:
    """A policy applied to the rules of one run on one day: what both engines need to turn
    a rule's raw finding into a reported one (name, severity, exemption)."""

    def __init__(self, policy: Policy, rules: list[Rule], today: dt.date):
        self.policy, self.today = policy, today
        self.rules = {rule.code: rule for rule in rules}
        self.severities = {rule.code: policy.severity(rule) for rule in rules}
        #: rules whose severity the policy sets: it wins over one a rule raised a finding to
        self.fixed = {rule.code for rule in rules if "severity" in policy.rules.get(rule.code, {})}
        self.options = {rule.code: policy.options(rule) for rule in rules}
        self.exemptions = [e for e in policy.exemptions if e.active(today)]
        self.expired = [e for e in policy.exemptions if not e.active(today)]

    def severity(self, code: str, raised: str | None = None) -> str:
        """A finding's severity: the policy's for its rule, else the one the rule raised it
        to (PL605: a removed key is an error, a deprecated one a warning), else the rule's."""
        return self.severities[code] if code in self.fixed or not raised else raised

    def exemption(self, code: str, topic: str | None) -> Exemption | None:
        """The first active exemption that covers a finding of rule ``code`` on ``topic``."""
        return next((e for e in self.exemptions if e.covers(code, topic)), None)


class WorkingTree:
    """Policy files as they are on disk, or as an editor holds them unsaved
    (``sources.unsaved``: ``policylint server`` judges by the policy being typed, as it
    does by a cluster file being typed)."""

    def is_file(self, path: Path) -> bool:
        if _unsaved(path) is not None:
            return True
        try:
            return path.is_file()
        except OSError:  # a name the file system cannot hold
            return False

    def read_bytes(self, path: Path) -> bytes:
        held = _unsaved(path)
        if held is not None:
            return held.encode("utf-8", "surrogatepass")
        from .writes import read_regular
        return read_regular(str(path))

    def read(self, path: Path) -> SourceFile:
        """A policy file, read as any input is (a regular file, bounded, UTF-8, not empty)."""
        from .sources import decode, read
        held = _unsaved(path)
        if held is not None:
            return decode(display_name(path), held.encode("utf-8", "surrogatepass"),
                          path.suffix)
        return read(path, 2**24)


def _unsaved(path: Path) -> str | None:
    """The editor's unsaved text of the file at ``path``, if it has one."""
    held = unsaved.get()
    return held.get(os.path.abspath(path)) if held else None


class GitTree:
    """Policy files as they are at a git ref (``--base``): a pull request is judged by the
    policy of the branch it merges into, not by the one it brings. A file outside the git
    work tree (a central policy checked out beside the repository) is out of the pull
    request's reach: it is read from disk as it is, and named in ``outside``."""

    def __init__(self, ref: str, start: Path | None = None):
        from .sources.git import repo_root, resolve
        self.ref, self.root = ref, repo_root(str(start or "."))
        self.commit = resolve(ref, self.root)
        self.outside: list[str] = []  # the files read from disk, as shown

    def _relative(self, path: Path) -> Path | None:
        """``path`` relative to the work tree; None when it lies outside it."""
        try:
            return Path(os.path.realpath(path)).relative_to(os.path.realpath(self.root))
        except ValueError:
            return None

    def _disk(self, path: Path) -> bool:
        """Whether ``path`` is read from disk (outside the work tree), and noted so."""
        if self._relative(path) is not None:
            return False
        name = display_name(path)
        if name not in self.outside:
            self.outside.append(name)
        return True

    def read_bytes(self, path: Path) -> bytes | None:
        """The file's bytes at the ref (outside the work tree: on disk), None when there is
        no such file."""
        from .sources.git import show
        if self._disk(path):
            from .writes import read_regular
            return read_regular(str(path)) if WorkingTree().is_file(path) else None
        return show(self.root, self.commit, self._relative(path).as_posix())

    def is_file(self, path: Path) -> bool:
        if self._relative(path) is None:
            return WorkingTree().is_file(path)
        return self.read_bytes(path) is not None

    def read(self, path: Path) -> SourceFile:
        if self._disk(path):
            return WorkingTree().read(path)
        data = self.read_bytes(path)
        if data is None:
            raise ParseError(f"not in {self.ref}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("is not UTF-8 text") from None
        return SourceFile(display_name(path), text, "yaml")


def discover(start: Path | None = None, tree: Any = None) -> Path | None:
    """The nearest ``.policylint.yaml`` or pyproject.toml with ``[tool.policylint]``, in the
    working tree or in ``tree`` (a GitTree)."""
    tree = tree or WorkingTree()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        for name in FILE_NAMES:
            if tree.is_file(folder / name):
                return folder / name
        pyproject = folder / "pyproject.toml"
        if tree.is_file(pyproject) and _holds_policy(pyproject, tree):
            return pyproject
    return None


def _holds_policy(pyproject: Path, tree: Any) -> bool:
    """Whether a pyproject.toml has a ``tool.policylint`` table, as TOML reads it (``[tool]
    policylint = {...}`` and dotted keys too; a comment naming it is none). One that cannot
    be read or parsed is a PolicyError naming it where it mentions policylint, and is
    ignored where it does not (another tool's broken file is not this run's to refuse)."""
    try:
        data = tree.read_bytes(pyproject) or b""
    except OSError as exc:
        raise PolicyError(f"policy {display_name(pyproject)}: {exc.strerror or exc}") from None
    if b"policylint" not in data.replace(b"\0", b""):
        return False  # another tool's file: not parsed (tomllib's import, every run)
    import tomllib
    try:
        table = tomllib.loads(data.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        why = "not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else f"not TOML: {exc}"
        raise PolicyError(f"policy {display_name(pyproject)}: {why}") from None
    return isinstance(table, dict) and isinstance(table.get("policylint"), dict)


def load(path: str | Path | None = None, start: Path | None = None,
         tree: Any = None) -> Policy:
    """The policy at ``path`` (with everything it extends), or the one discovered upward
    from ``start`` (the working directory by default); read from ``tree`` (a GitTree: the
    policy of a base ref) or the working tree."""
    tree = tree or WorkingTree()
    found = Path(path) if path is not None else discover(start, tree)
    if found is None:
        return _resolve(_pack("default"), "default", [], tree)
    if not tree.is_file(found) and isinstance(tree, GitTree):
        added = WorkingTree().is_file(found)
        raise PolicyError(f"policy {display_name(found)}: " + (
            f"added by this change, not in the base {tree.ref} (the base judges a pull "
            "request: merge the policy first, or --policy-from head for this one)" if added
            else f"no such file, in the work tree or the base {tree.ref}"))
    return _resolve(_read(found, tree), display_name(found), [], tree)


def document(path: Path) -> Document | None:
    """The policy file's YAML document in the working tree (where its keys are written)."""
    try:
        return _read(path, WorkingTree())[1]
    except PolicyError:
        return None


def load_pack(name: str) -> Policy:
    """A built-in pack (``default``, ``strict``, ``kip409``) as a policy."""
    return _resolve(_pack(name), name, [], WorkingTree())


def _pack(name: str) -> tuple[dict, Document | None, Path | None]:
    # found by the import system, not importlib.resources (whose import costs every run 5 ms)
    spec = importlib.util.find_spec("policylint.policies")
    packs = Path(spec.submodule_search_locations[0])
    text = (packs / f"{name}.yaml").read_text("utf-8")
    return _parse_yaml(SourceFile(f"<pack {name}>", text, "yaml"))


def _read(path: Path, tree: Any) -> tuple[dict, Document | None, Path | None]:
    try:
        source = tree.read(path)
    except ParseError as exc:
        raise PolicyError(f"policy {display_name(path)}: {exc.message}") from None
    if path.name == "pyproject.toml":
        import tomllib
        try:
            data = tomllib.loads(source.text)
        except tomllib.TOMLDecodeError as exc:
            raise PolicyError(f"policy {display_name(path)}: {exc}") from None
        tool = data.get("tool")
        table = tool.get("policylint") if isinstance(tool, dict) else None
        if not isinstance(table, dict):
            raise PolicyError(f"policy {display_name(path)}: [tool.policylint] is not a table")
        return _plain(table), None, path
    source.format = "yaml"
    data, doc, _ = _parse_yaml(source)
    return data, doc, path


def _parse_yaml(source: SourceFile) -> tuple[dict, Document | None, Path | None]:
    from .sources.yamldoc import load_yaml
    try:
        docs = load_yaml(source)
    except ParseError as exc:
        raise PolicyError(f"policy {source.name}:{exc.line}:{exc.column}: {exc.message}") \
            from None
    if len(docs) > 1:
        raise PolicyError(f"policy {source.name}: holds {len(docs)} documents, expected one")
    doc = docs[0] if docs else None
    data = {} if doc is None or doc.data is None else doc.data
    return data, doc, None


def _plain(value: Any) -> Any:
    """TOML values as YAML would give them (dates as ISO text)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return value


def _resolve(loaded: tuple[dict, Document | None, Path | None], name: str,
             chain: list[str], tree: Any) -> Policy:
    data, doc, path = loaded
    _fail_on(validator("policy").errors(data), name, doc)
    key = str(path.resolve()) if path else name
    if key in chain:
        raise PolicyError(f"policy {name}: extends itself (through {' -> '.join(chain)})")
    base = data.get("extends")
    if base is None:
        policy = Policy(source=name)
    elif base in PACKS:
        policy = _resolve(_pack(base), f"<pack {base}>", chain + [key], tree)
    else:
        parent = (path.parent if path else Path.cwd()) / base
        if not tree.is_file(parent):
            raise PolicyError(f"policy {name}: extends {base!r}, which is neither a built-in "
                              f"pack ({', '.join(PACKS)}) nor a file")
        policy = _resolve(_read(parent, tree), display_name(parent), chain + [key], tree)
    policy.source = name
    _merge(policy, data, name, doc)
    if "baseline" in data:  # relative to the file that names it
        policy.baseline = os.path.normpath(os.path.join(
            path.parent if path else os.getcwd(), data["baseline"]))
    return policy


def _merge(policy: Policy, data: dict, name: str, doc: Document | None) -> None:
    if data.get("cel_rules"):
        policy.custom_rules += _cel_rules(data["cel_rules"], policy, name, doc)
    for key, settings in (data.get("rules") or {}).items():
        rule = policy.find(key)
        if rule is None:
            _fail(name, doc, ("rules", key), f"unknown rule '{key}'{_closest_rule(key)} (see "
                  "'policylint rules')")
        schema = {"type": "object", "additionalProperties": False,
                  "properties": {**_SETTINGS, **rule.options_schema.get("properties", {})}}
        _fail_on(Schema(schema).errors(settings, ("rules", key)), name, doc)
        policy.rules[rule.code] = {**policy.rules.get(rule.code, {}), **settings}
    policy.clusters.update(data.get("clusters") or {})
    from . import platforms
    for where, value in [(("platform",), data.get("platform"))] + \
            [(("platforms", c), v) for c, v in (data.get("platforms") or {}).items()]:
        if value is not None and value not in platforms.names():
            _fail(name, doc, where, f"unknown platform {value!r} (known: "
                  f"{', '.join(platforms.names())})")
    if "platform" in data:
        policy.platform = data["platform"]
    policy.platforms.update(data.get("platforms") or {})
    policy.exclude += data.get("exclude") or []
    if "kafka_version" in data:
        policy.kafka_version = str(data["kafka_version"])
    if "kafka_versions" in data:
        policy.kafka_versions = data["kafka_versions"]
    policy.config_prefixes += (data.get("configs") or {}).get("allow_prefixes", [])
    allow = data.get("allow") or {}
    policy.allow_rf_change += allow.get("rf_change", [])
    if "enabled" in (data.get("placeholders") or {}):
        policy.placeholders_enabled = data["placeholders"]["enabled"]
    for i, entry in enumerate(data.get("exemptions") or ()):
        where = ("exemptions", i)
        rule = policy.find(entry["rule"])
        if rule is None:
            _fail(name, doc, where + ("rule",),
                  f"unknown rule '{entry['rule']}'{_closest_rule(entry['rule'])}")
        expires = None
        if "expires" in entry:
            try:
                expires = dt.date.fromisoformat(entry["expires"])
            except ValueError:
                _fail(name, doc, where + ("expires",), f"{entry['expires']} is not a date")
        policy.exemptions.append(Exemption(rule.code, entry.get("topics", ["*"]),
                                           entry["reason"], expires,
                                           None if doc is None else (doc, where)))


def _cel_rules(entries: list[dict], policy: Policy, name: str,
               doc: Document | None) -> list[Rule]:
    """The policy's CEL rules, compiled (``policylint.cel``, imported only here); a rule
    that does not compile is a PolicyError at its line."""
    for i, entry in enumerate(entries):
        taken = find(entry["code"]) or find(entry["name"]) or \
            next((r for r in policy.custom_rules if entry["code"] == r.code), None)
        if taken is not None:
            _fail(name, doc, ("cel_rules", i, "code"), f"{entry['code']} ({entry['name']}) "
                  f"is taken by the rule {taken.code} ({taken.name})")
    from .cel import CelError, compile_rules
    try:
        return compile_rules(entries, name)
    except CelError as exc:
        path = ("cel_rules",) + exc.path
        where = ""
        if doc is not None:
            line, column = doc.locate(path) or (1, 1)
            text = doc.source.line(line) or ""
            block = text[column - 1:column].strip() in ("|", ">") or \
                text.rstrip().endswith(("|", ">", "|-", ">-"))
            if block:  # a block scalar: the expression starts on the next line, and its
                # lines keep what they are indented beyond its first line's indentation
                line, column = line + exc.line, _indent(doc.source.line(line + 1)) \
                    + exc.column
            elif exc.line > 1:
                line, column = line + exc.line - 1, exc.column
            else:
                quoted = text[column - 1:column] in ("'", '"')
                column += exc.column - 1 + quoted
            where = f":{line}:{column}"
        raise PolicyError(f"policy {name}{where}: {format_path(path)}: {exc}") from None


def _indent(text: str | None) -> int:
    return len(text or "") - len((text or "").lstrip())


def _closest_rule(word: Any) -> str:
    from .schema import did_you_mean
    return did_you_mean(word, [w for r in all_rules().values() for w in (r.code, r.name)])


def _fail_on(errors: list, name: str, doc: Document | None) -> None:
    if errors:
        _fail(name, doc, *errors[0])


def _fail(name: str, doc: Document | None, path: tuple, message: str) -> None:
    where = ""
    if doc is not None:  # an unknown key is located at itself, not at its value
        at = path + (KEY,) if message.startswith(("unknown field", "unknown rule")) else path
        line, column = doc.locate(at) or doc.locate(path) or (1, 1)
        where = f":{line}:{column}"
    raise PolicyError(f"policy {name}{where}: {format_path(path)}: {message}")
