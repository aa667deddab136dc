"""The merge gate. With ``--base REF`` a pull request is judged by the policy of the branch it
merges into (``policy.GitTree``), and what it changes in that policy, in the baseline and in
inline suppressions and ``policylint.io/disable`` annotations is itself reported as PL125
findings: each weakening an error, for the
policy's owners to approve; each strengthening a note.

Whether a changed rule option loosens the rule is read from its name: a ``min*`` lowered,
a ``max*`` raised, an ``allow*`` list grown or flag turned on. Any other change of an option
is taken as a weakening: the owners say whether it is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from .model import Finding
from .policy import Policy
from .sources.document import SourceFile

RANK = {"note": 0, "warning": 1, "error": 2}
CODE, NAME = "PL125", "policy-weakened"

#: (what changed, whether it weakens the gate, where: a key path of the head's policy, or a
#: Spot in another file: a baseline entry, a suppression)
Change = tuple[str, bool, Any]


class Spot(tuple):
    """(file, line, column) of a change outside the policy file."""


def policy_changes(base: Policy, head: Policy) -> Iterator[Change]:
    """What the head's policy changes of the base's, in the order a reader meets it."""
    for code in sorted(set(base.rules) | set(head.rules)):
        rule = head.find(code) or base.find(code)
        if rule is None:
            continue
        where, label = ("rules", code), f"rule {code} ({rule.name})"
        if base.enabled(rule) != head.enabled(rule):
            yield (f"{label} {'enabled' if head.enabled(rule) else 'disabled'}",
                   not head.enabled(rule), where)
        was, now = base.severity(rule), head.severity(rule)
        if was != now:
            weaker = RANK[now] < RANK[was]
            yield (f"{label}: severity {'lowered' if weaker else 'raised'} from {was} to {now}",
                   weaker, where)
        old, new = base.options(rule), head.options(rule)
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                weaker = _looser(key, old.get(key), new.get(key))
                yield (f"{label}: {key} {'loosened' if weaker else 'tightened'} from "
                       f"{old.get(key)!r} to {new.get(key)!r}", weaker, where + (key,))
    yield from _listed("allow.rf_change", base.allow_rf_change, head.allow_rf_change,
                       ("allow", "rf_change"), grown_weakens=True)
    yield from _listed("exclude", base.exclude, head.exclude, ("exclude",), grown_weakens=True)
    yield from _listed("configs.allow_prefixes", base.config_prefixes, head.config_prefixes,
                       ("configs", "allow_prefixes"), grown_weakens=True)
    if base.placeholders_enabled != head.placeholders_enabled:
        yield (f"placeholders.enabled turned {'on' if head.placeholders_enabled else 'off'}",
               head.placeholders_enabled, ("placeholders", "enabled"))
    for i, ex in enumerate(head.exemptions):
        if not any(_within(ex, old) for old in base.exemptions):
            until = f"until {ex.expires.isoformat()}" if ex.expires else "with no expiry"
            yield (f"exemption of {ex.rule} for {', '.join(ex.topics)} added or widened, "
                   f"{until} (reason given: {ex.reason})", True, ("exemptions", i))
    for ex in base.exemptions:
        if not any(_within(ex, new) for new in head.exemptions):
            yield (f"exemption of {ex.rule} for {', '.join(ex.topics)} removed or narrowed",
                   False, ("exemptions",))
    before = {r.code: r.entry for r in base.custom_rules}
    after = {r.code: r.entry for r in head.custom_rules}
    for i, code in enumerate(after):
        if code not in before:
            yield f"CEL rule {code} added", False, ("cel_rules", i)
        elif after[code] != before[code]:
            yield (f"CEL rule {code} changed (its expressions or what it applies to)", True,
                   ("cel_rules", i))
    for code in before:
        if code not in after:
            yield f"CEL rule {code} removed", True, ("cel_rules",)


def _looser(key: str, was: Any, now: Any) -> bool:
    name = key.lower()
    if isinstance(was, bool) or isinstance(now, bool):
        return bool(now) if "allow" in name else True
    if isinstance(was, (int, float)) and isinstance(now, (int, float)):
        if name.startswith("min") or name.endswith("min"):
            return now < was
        if name.startswith("max") or name.endswith("max"):
            return now > was
        return True
    if isinstance(was, list) and isinstance(now, list):
        grown, shrunk = set(map(str, now)) - set(map(str, was)), \
            set(map(str, was)) - set(map(str, now))
        if "allow" in name or "exempt" in name:
            return bool(grown)
        if "require" in name or "forbid" in name:
            return bool(shrunk)
    return True


def _listed(label: str, was: list, now: list, where: tuple, grown_weakens: bool
            ) -> Iterator[Change]:
    for i, item in enumerate(now):
        if item not in was:
            yield f"{label}: {item!r} added", grown_weakens, where + (i,)
    for item in was:
        if item not in now:
            yield f"{label}: {item!r} removed", not grown_weakens, where


def _within(ex: Any, wider: Any) -> bool:
    """Whether exemption ``ex`` covers nothing ``wider`` did not, for no longer."""
    return ex.rule == wider.rule and set(ex.topics) <= set(wider.topics) and (
        wider.expires is None or (ex.expires is not None and ex.expires <= wider.expires))


def baseline_changes(name: str, text: str, base: set[str], head: set[str]) -> Iterator[Change]:
    """Each fingerprint the head's baseline adds, at its line."""
    for fingerprint in sorted(head - base):
        offset = text.find(fingerprint)
        line = text.count("\n", 0, offset) + 1 if offset >= 0 else 1
        yield (f"baseline entry {fingerprint} added: the finding it records is no longer "
               "reported", True, Spot((name, line, 1)))


def suppression_changes(base_files: dict[str, str], head_files: dict[str, str]
                        ) -> Iterator[Change]:
    """Each ``# policylint: disable=`` comment of the head that its file at the base lacks."""
    for name, text in sorted(head_files.items()):
        before = _comments(base_files.get(name, ""))
        for line, (codes, comment, column) in sorted(_comments_at(name, text).items()):
            if (tuple(sorted(codes)), comment) not in before:
                yield (f"inline suppression of {', '.join(sorted(codes))} added",
                       True, Spot((name, line, column)))


def annotation_changes(pairs: Iterator[tuple[Any, Any]]) -> Iterator[Change]:
    """Each ``policylint.io/disable`` annotation (or code of one) that a head manifest adds
    to the same topic's at the base (``pairs``: (base or None, head) manifests); each
    ``policylint.io/allow-rf-change`` it adds: a note beside the RF change it allows (the
    documented acknowledgment), a weakening without one (it would let a later change alter
    the RF unreviewed). The codes are read as the suppressions read them."""
    from .diff import ALLOW_RF_CHANGE
    from .model import KEY
    from .suppressions import ANNOTATION, annotation_codes
    for old, new in pairs:
        doc = new.doc
        added = annotation_codes(doc) - (annotation_codes(old.doc) if old else set())
        if added:
            yield (f"topic {new.name}: {ANNOTATION} annotation of "
                   f"{', '.join(sorted(added))} added", True,
                   _spot(doc, ("metadata", "annotations", ANNOTATION, KEY)))
        allows = str(new.annotations.get(ALLOW_RF_CHANGE)).lower() == "true"
        allowed = old is not None and str(old.annotations.get(ALLOW_RF_CHANGE)).lower() == "true"
        if allows and not allowed:
            changed = old is not None and old.rf != new.rf
            said = (f"from {old.rf} to {new.rf}" if changed else
                    "with no replication factor change in this change: it would let a later "
                    "change alter it unreviewed" if old is not None else
                    "on a new topic: it would let a later change alter its replication factor "
                    "unreviewed")
            yield (f"topic {new.name}: {ALLOW_RF_CHANGE} annotation added {said}", not changed,
                   _spot(doc, ("metadata", "annotations", ALLOW_RF_CHANGE, KEY)))


def _spot(doc: Any, path: tuple) -> Spot:
    line, column = doc.locate(path) or doc.locate(()) or (1, 1)
    return Spot((doc.source.name, line, column))


def _comments_at(name: str, text: str) -> dict[int, tuple[set[str], str, int]]:
    lines = text.splitlines()
    return {line: (codes, lines[line - 1].strip(), lines[line - 1].find("#") + 1)
            for line, (codes, _) in SourceFile(name, text, "yaml").disables().items()}


def _comments(text: str) -> set[tuple[tuple[str, ...], str]]:
    return {(tuple(sorted(codes)), comment)
            for codes, comment, _ in _comments_at("", text).values()}


def findings(changes: list[Change], head_doc: Any, head_name: str) -> list[Finding]:
    """PL125 findings: a weakening an error, a strengthening a note. They are located by
    file and line, not by a document: an inline comment cannot suppress them."""
    out = []
    for message, weaker, where in changes:
        finding = Finding(CODE, NAME, "error" if weaker else "note",
                          f"this change {'weakens' if weaker else 'strengthens'} the gate: "
                          f"{message}")
        if isinstance(where, Spot):
            finding.file, finding.line, finding.column = where
        else:
            finding.file = head_name
            spot = head_doc.locate(tuple(where)) if head_doc is not None else None
            finding.line, finding.column = spot or (1, 1)
        out.append(finding)
    return out


def read_texts(names: list[str]) -> dict[str, str]:
    """The YAML files of a run as they are in the working tree (their suppressions)."""
    texts = {}
    for name in names:
        if name.endswith((".yaml", ".yml")):
            try:
                texts[name] = Path(name).read_text("utf-8", "replace")
            except OSError:
                continue
    return texts
