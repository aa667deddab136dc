"""``policylint export --for kafka-controller``: the policy as a bundle the controller plugin
(``controller/``, Kafka's ``CreateTopicPolicy`` and ``AlterConfigPolicy``) judges every topic
creation and config change by, in-process.

A request carries a topic's name, partitions, replication factor and the configs it sets,
nothing else: the rules that decide on those alone are exported, each as CEL (its code,
severity and message), or as the release tables the config rules judge by (PL601, PL602,
PL603, PL605); the policy's exemptions with them. What needs a cluster's state, other
topics, a diff or a file is listed in ``not_exported`` with why, never dropped silently.
The plugin's verdict on a request is ``policylint lint``'s on the same topic written as a
manifest with no cluster, judged by the controller's Kafka release
(``tests/test_controller.py`` proves it).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from . import __version__, kafka_configs
from .policy import Policy

FORMAT = "policylint-controller-bundle"
#: what a topic subject has at the controller: what a request states
REQUEST_FIELDS = frozenset({"name", "partitions", "rf", "stated", "config", "configs"})
#: the config rules, judged key by key in the plugin (``Bundle.judgeConfigs``): by the
#: release tables, and by the policy's lists of keys (PL707)
CONFIG_RULES = ("PL601", "PL602", "PL603", "PL605", "PL707")
_MIN_ISR = "min.insync.replicas"


def _lit(value: Any) -> str:
    """A value as a CEL literal (JSON's strings, numbers, lists and maps are CEL's)."""
    return json.dumps(value, ensure_ascii=False)


def _min_isr(condition: str) -> str:
    """A validation on a request that states both the RF and an integer minISR."""
    return (f'!has(topic.rf) || !("{_MIN_ISR}" in topic.config) || '
            f'type(topic.config["{_MIN_ISR}"]) != int || {condition}')


_ISR = f'string(topic.config["{_MIN_ISR}"])'


def _built_in(code: str, options: dict) -> list[dict] | None:
    """The validations of a built-in rule as CEL over a request (None: not exportable).
    ``topic`` is the request's topic as ``policylint.cel.subjects`` makes a manifest's with
    no cluster; ``request.configs`` the values it sets as written, trimmed; ``request.kind``
    "create" or "alter" (an alter states configs alone)."""
    name = '"topic " + topic.name + ": "'
    if code == "PL301":
        return [{"expression": _min_isr(f'topic.config["{_MIN_ISR}"] <= topic.rf'),
                 "messageExpression": f'{name} + "min.insync.replicas=" + {_ISR} + " > '
                 'replication factor " + string(topic.rf) + ": every acks=all write fails"'}]
    if code == "PL302":
        return [{"expression": _min_isr(f'topic.rf <= 1 || topic.config["{_MIN_ISR}"] != '
                                        'topic.rf'),
                 "messageExpression": f'{name} + "min.insync.replicas=" + {_ISR} + " equals '
                 'the replication factor: one broker down blocks acks=all writes"'}]
    if code == "PL303":
        least = options["min"]
        return [{"expression": _min_isr(f'topic.rf < 3 || topic.config["{_MIN_ISR}"] >= '
                                        f'{least}'),
                 "messageExpression": f'{name} + "min.insync.replicas=" + {_ISR} + " is below '
                 f'{least} with replication factor " + string(topic.rf)'}]
    if code == "PL209":
        least = options["min"]
        return [{"expression": f"!has(topic.rf) || topic.rf >= {least}",
                 "messageExpression": f'{name} + "replication factor " + string(topic.rf) + '
                 f'" is below {least}"'}]
    if code == "PL701":  # one finding: the pattern's, else the prefixes'
        pattern, prefixes = options["pattern"], options["prefixes"]
        matched = f'topic.name.matches({_lit("^(?:" + pattern + ")$")})' \
            if pattern is not None else "true"
        prefixed = f"{_lit(prefixes)}.exists(p, topic.name.startsWith(p))" \
            if prefixes is not None else "true"
        said = _lit(f"does not match the convention {pattern}") if pattern is not None \
            else '""'
        return [{"expression": f"{matched} && {prefixed}",
                 "messageExpression": f'{name} + "the name " + ({matched} ? '
                 f'{_lit("starts with none of " + ", ".join(prefixes or ()))} : {said})'}]
    if code == "PL703":
        lo, hi = options["min"], options["max"]
        bounds = " && ".join(([f"topic.partitions >= {lo}"] if lo is not None else []) +
                             ([f"topic.partitions <= {hi}"] if hi is not None else []))
        return [{"expression": f"!has(topic.partitions) || {bounds}",
                 "messageExpression": f'{name} + string(topic.partitions) + " partitions, '
                 f'outside the policy\'s bounds ({lo if lo is not None else "any"} to '
                 f'{hi if hi is not None else "any"})"'}]
    if code == "PL706":
        checks = []
        for key, allowed in (options["values"] or {}).items():
            texts = [kafka_configs.as_text(a) for a in allowed]
            ok = f"{_lit(texts)}.size() == 0 || request.configs[{_lit(key)}] in {_lit(texts)}"
            checks.append({
                "expression": f'{_lit(key)} in request.configs ? ({ok}) : '
                              'request.kind == "alter"',
                "messageExpression": f'{name} + ({_lit(key)} in request.configs ? '
                f'{_lit(key + "=")} + request.configs[{_lit(key)}] + " is not allowed by the '
                f'policy (allowed: {_escaped(", ".join(texts))})" : '
                f'{_lit(key + " is required by the policy and not set")})'})
        return checks
    if code == "PL804":
        key = "unclean.leader.election.enable"
        return [{"expression": f'!({_lit(key)} in request.configs) || '
                               f'request.configs[{_lit(key)}].lowerAscii() != "true"',
                 "messageExpression": f'{name} + "unclean leader election is enabled: a '
                 'lagging replica may become leader and acknowledged writes be lost"'}]
    return None


def _keys(options: dict) -> dict:
    """PL707's lists: the keys the policy forbids, and those it allows (None: any)."""
    return {"forbidden": sorted(options["forbidden"] or ()),
            "allowed": None if options["allowed"] is None else list(options["allowed"])}


def _escaped(text: str) -> str:
    """Text to put inside a CEL double-quoted string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


#: the built-ins that judge what only a creation states (an existing topic's name,
#: partitions and RF are not a config change's to answer for)
_ON = {"PL209": ("create",), "PL701": ("create",), "PL703": ("create",)}
#: why a rule cannot be decided at the controller, by what it needs
_NEEDS = {
    "PL1": "judges files, plans or the run's inputs, which no request carries",
    "PL2": "needs the cluster's state, a plan or a diff against a base",
    "PL3": "needs the cluster's defaults or a snapshot's partitions",
    "PL4": "needs the brokers' racks and the replicas' placement",
    "PL5": "judges placeholder replicas of plans and snapshots",
    "PL8": "judges a cluster's own settings, not a topic",
}
_WHY = {
    "PL203": "needs the cluster's broker count (Kafka refuses such a creation itself)",
    "PL604": "judges settings together with the cluster's defaults",
    "PL606": "judges a manifest's operator-managed keys",
    "PL607": "Kafka refuses these combinations itself, with its own reason",
    "PL608": "needs the cluster's segment defaults",
    "PL609": "judges a managed platform's rules, not Apache Kafka's controller",
    "PL702": "Kafka refuses invalid names and colliding ones itself; collisions need the "
             "cluster's other topics",
    "PL704": "needs the cluster's retention defaults (log.retention.*) for a topic that "
             "sets none",
    "PL705": "reads labels and annotations, which a request does not carry",
}


def bundle(policy: Policy, today: dt.date | None = None, fail: str = "closed") -> dict:
    """The controller bundle of ``policy``: its rules a request can decide, the release
    tables, exemptions and what is not exported, as JSON-able data."""
    from .engine import selected_rules
    today = today or dt.date.today()
    rules = selected_rules(policy)
    compiled = policy.compile(rules, today)
    exported, left = [], []
    for rule in rules:
        code = rule.code
        options, severity = compiled.options[code], compiled.severities[code]
        if code in CONFIG_RULES:
            if rule.applies(options):
                exported.append({"code": code, "name": rule.name, "severity": severity,
                                 "fixed": code in compiled.fixed, "kind": "config",
                                 "message": rule.message, **(_keys(options)
                                                             if code == "PL707" else {})})
            continue
        cel = getattr(rule, "applies_to", None)
        if cel is not None:  # a CEL rule of the policy
            why = _cel_why(rule)
            if why is None:
                exported.append({"code": code, "name": rule.name, "severity": severity,
                                 "kind": "cel", **_cel_entry(rule)})
            else:
                left.append({"code": code, "name": rule.name, "why": why})
            continue
        if not rule.applies(options):
            continue
        validations = _built_in(code, options)
        if validations is None:
            left.append({"code": code, "name": rule.name, "why": _WHY.get(code) or
                         _NEEDS.get(code[:3], "needs what a request does not carry")})
            continue
        exported.append({"code": code, "name": rule.name, "severity": severity,
                         "kind": "cel", "on": list(_ON.get(code, ("create", "alter"))),
                         "validations": validations})
    return {
        "format": FORMAT, "version": 1, "policylint": __version__,
        "policy": policy.source, "exported": today.isoformat(), "fail": fail,
        "releases": {release: _release(release) for release in kafka_configs.known_versions()},
        "broker_keys": dict(sorted(kafka_configs.BROKER_KEYS.items())),
        "old_versions": sorted(kafka_configs._OLD_VERSIONS),
        #: releases not out yet: their config verdicts are warnings, never errors
        "announced": sorted(kafka_configs.ANNOUNCED),
        "allow_prefixes": list(policy.config_prefixes),
        "rules": exported,
        "exemptions": [{"rule": e.rule, "topics": list(e.topics),
                        "regex": [_glob(t) for t in e.topics], "reason": e.reason,
                        "expires": e.expires.isoformat() if e.expires else None}
                       for e in compiled.exemptions],
        "not_exported": left,
    }


def _release(release: str) -> dict:
    """A release's topic configs (type, bounds, values; deprecated) and the keys an earlier
    release had that it removed (key -> the release that removed it)."""
    table = kafka_configs.table(release)
    keep = ("type", "min", "max", "values", "subset", "deprecated", "throttled_replicas",
            "metadata_version", "release")
    return {"configs": {key: {k: spec[k] for k in keep if k in spec}
                        for key, spec in sorted(table.items())},
            "removed": {key: removed for key in sorted(kafka_configs.ever_known())
                        if key not in table and (removed := kafka_configs.removed_in(
                            key, release))}}


def _glob(pattern: str) -> str:
    """An exemption's fnmatch glob as a regular expression Java and RE2 read alike (a set
    read as ``fnmatch.translate`` reads it)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[" and (end := _set_end(pattern, i)) >= 0:
            body, i = pattern[i:end], end + 1
            negated = body.startswith("!")
            out.append("[" + ("^" if negated else "") + "".join(
                "\\" + ch if ch in "\\[]^&" else ch for ch in body[negated:]) + "]")
        else:  # Java reads a backslash before any character but a letter as it
            out.append(c if c.isalnum() else "\\" + c)
    return "".join(out)


def _set_end(pattern: str, i: int) -> int:
    """Where a set opened just before ``i`` closes, as fnmatch reads it: a "]" first in it
    (after "!") is itself; -1: the "[" is a plain one."""
    i += pattern[i:i + 1] == "!"
    i += pattern[i:i + 1] == "]"
    return pattern.find("]", i)


def _cel_why(rule) -> str | None:
    """Why a policy's CEL rule cannot be exported (None: it can)."""
    from .cel import fields_read
    if rule.applies_to != "topics":
        return f"applies to {rule.applies_to}, which no creation or config change carries"
    entry = rule.entry
    texts = [item[key] for part in ("matchConditions", "variables", "validations")
             for item in entry.get(part) or () for key in ("expression", "messageExpression")
             if key in item]
    reads = fields_read(texts, rule.binds + ("variables", "params"))
    if reads is None:
        return "reads its subject whole (topic[...], size(topic)): which fields is unknown"
    extra = sorted(set(reads.get("topic", ())) - REQUEST_FIELDS)
    if extra:
        return f"reads topic.{', topic.'.join(extra)}, which a request does not carry"
    return None


def _cel_entry(rule) -> dict:
    """A policy CEL rule's own entry: what the plugin compiles."""
    entry = rule.entry
    return {key: entry[key] for key in ("matchConditions", "variables", "validations",
                                        "params", "failurePolicy", "failureMessage")
            if entry.get(key) is not None}
