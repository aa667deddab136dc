"""Kafka as the judge of policylint's verdicts: a corpus of topic declarations per release,
sent to a real cluster as CreateTopics with ``validateOnly`` (nothing is created), and the
same declarations linted by policylint against a profile of that cluster. For every case
Kafka's answer (refused or accepted) must equal policylint's (a refusal finding, or none).

A refusal finding is an error of a rule that says Kafka refuses the declaration
(``REFUSALS``); the other rules' findings are policy judgements (``min.insync.replicas``
above the RF is accepted by Kafka at creation and reported by PL301 because every acks=all
write then needs every replica) and are not compared.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

#: the rules whose errors say "Kafka refuses this" (the others judge policy)
REFUSALS = ("PL101", "PL203", "PL601", "PL602", "PL603", "PL605", "PL607", "PL702")
BROKERS = 3


@dataclass
class Case:
    name: str  # the topic's name, unique in the corpus
    what: str  # what it tries, for a disagreement's report
    config: dict = field(default_factory=dict)
    partitions: int = 1
    rf: int = 3


@dataclass
class Verdict:
    refused: bool
    why: str  # Kafka's error, or policylint's rules


def _values(key: str, spec: dict) -> list[tuple[str, str]]:
    """(value, what) of valid, invalid and boundary values of one config key."""
    kind, found = spec.get("type"), []
    default = spec.get("default")
    if default is not None and not (kind == "list" and default == ""):
        text = str(default).lower() if isinstance(default, bool) else str(default)
        found.append((text, "its default"))
    for value in spec.get("values") or ():
        found.append((str(value), "a valid value"))
    if kind in ("int", "long", "double"):
        found.append(("not-a-number", "no number"))
        # as YAML and templates write numbers: Kafka's ConfigDef parses them its own way
        found += [(v, f"written {v!r}") for v in (
            "+5", " 5", "5 ", "1e3", "0x10", "1.0", "1.5", "", "007", "-0", "1_000", "٣")]
        if kind != "double":
            found += [(str(2**63), "beyond a long"), (str(-2**31 - 1), "below an int")]
        for bound in ("min", "max"):
            if spec.get(bound) is not None:
                edge = spec[bound]
                step = 1 if kind != "double" else 0.5
                found.append((str(edge), f"its {bound}"))
                beyond = edge - step if bound == "min" else edge + step
                if kind == "int" and not -2**31 <= beyond < 2**31 or \
                        kind == "long" and not -2**63 <= beyond < 2**63:
                    continue
                found.append((str(beyond), f"beyond its {bound}"))
        if kind == "int":
            found.append((str(2**31), "beyond an int"))
    elif kind == "boolean":
        found += [("true", "true"), ("FALSE", "false in capitals"), ("maybe", "no boolean")]
        found += [(v, f"written {v!r}") for v in ("True", "yes", "1", "", " true", "true ")]
    elif kind == "string" and spec.get("values"):
        found.append(("bogus", "not one of its values"))
        first = str(spec["values"][0])
        found += [(v, f"written {v!r}") for v in (first.upper(), first.title(), f" {first}",
                                                   f"{first} ", "")]
    elif kind == "list" and spec.get("subset"):
        found += [(",".join(spec["subset"]), "every value"), ("bogus", "not one of its values"),
                  ("compact,compact", "a value twice"), ("", "an empty list")]
        found += [(v, f"written {v!r}") for v in ("compact, delete", "delete,", ",delete",
                                                   "[compact]", "compact;delete", "COMPACT",
                                                   " delete ", "delete,delete,compact")]
    elif spec.get("throttled_replicas"):
        found += [("*", "every replica"), ("0:1,1:2", "partition:broker pairs"),
                  ("0-1", "no partition:broker pair")]
        found += [(v, f"written {v!r}") for v in ("0:1,", "*,0:1", "0:-1", " 0:1", "0:1 ,1:2",
                                                   "a:b", "0:1:2", "", " * ")]
    return found


def corpus(release: str) -> list[Case]:
    """Thousands of declarations for ``release``: every topic config key Kafka knows there
    with valid, invalid and boundary values, keys it does not know (typos, broker-level
    names, keys of other releases), RF against the brokers, min.insync.replicas against
    the RF, and the combinations LogConfig refuses."""
    from policylint import kafka_configs
    cases: list[Case] = []

    def add(what: str, config: dict | None = None, **kw) -> None:
        cases.append(Case(f"oracle-{len(cases):04d}", what, config or {}, **kw))

    table = kafka_configs.table(release)
    for key, spec in sorted(table.items()):
        for value, what in _values(key, spec):
            add(f"{key}={value!r} ({what})", {key: value})
    every = set().union(*(kafka_configs.table(v) for v in kafka_configs.known_versions()))
    for key in sorted(every - set(table)):  # a key of another release
        spec = next(kafka_configs.table(v)[key] for v in kafka_configs.known_versions()
                    if key in kafka_configs.table(v))
        value = _values(key, spec)[0][0] if _values(key, spec) else "1"
        add(f"{key}={value!r} (a key of another release)", {key: value})
    for key in ("retention.mss", "log.retention.hours", "log.segment.bytes",
                "message.max.bytes", "num.partitions", "confluent.placement.constraints",
                "cleanup_policy"):
        add(f"{key} (no topic config)", {key: "1"})
    for rf in (1, 2, 3, 4, 7):
        add(f"replication factor {rf} on {BROKERS} brokers", rf=rf)
    for partitions in (1, 1000):
        add(f"{partitions} partitions", partitions=partitions)
    for min_isr, rf in ((2, 3), (3, 3), (4, 3), (2, 1)):
        add(f"min.insync.replicas {min_isr} with replication factor {rf}",
            {"min.insync.replicas": str(min_isr)}, rf=rf)
    combos = [
        ({"min.compaction.lag.ms": "2000", "max.compaction.lag.ms": "1000"},
         "min.compaction.lag.ms above max.compaction.lag.ms"),
        ({"min.compaction.lag.ms": "1000", "max.compaction.lag.ms": "2000"},
         "min.compaction.lag.ms below max.compaction.lag.ms"),
        ({"remote.storage.enable": "true"}, "tiered storage on a cluster without it"),
        ({"local.retention.ms": "1000", "retention.ms": "500"},
         "local retention above retention, no tiered storage"),
        ({"cleanup.policy": "compact", "retention.ms": "1000"}, "retention on a compact topic"),
        ({"compression.type": "gzip", "compression.gzip.level": "5"}, "a gzip level"),
        ({"segment.ms": "1000", "segment.bytes": "1048576"}, "small segments"),
    ]
    for config, what in combos:
        if all(k in table for k in config):
            add(what, config)
    return cases


def kafka_verdicts(bootstrap: str, cases: list[Case], admin=None) -> dict[str, Verdict]:
    """Kafka's answer to each case: CreateTopics with validateOnly, in batches."""
    from kafka import KafkaAdminClient
    from kafka.admin import NewTopic
    own = admin is None
    admin = admin or KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=60000)
    found: dict[str, Verdict] = {}
    try:
        for start in range(0, len(cases), 200):
            batch = cases[start:start + 200]
            response = admin.create_topics(
                [NewTopic(c.name, c.partitions, c.rf, topic_configs=c.config) for c in batch],
                validate_only=True, raise_errors=False)
            for topic in _topics(response):
                name, code, message = topic
                found[name] = Verdict(code != 0, f"error {code}: {message}" if code else "")
    finally:
        if own:
            admin.close()
    return found


def _topics(response) -> list[tuple[str, int, str]]:
    """(name, error code, message) of each topic of a CreateTopics response, however the
    client gives it (a response object, or its dict)."""
    if isinstance(response, dict):
        items = response.get("topics") or []
        return [(t["name"], t["error_code"], t.get("error_message") or "") for t in items]
    items = getattr(response, "topics", None) or getattr(response, "topic_errors", [])
    found = []
    for t in items:
        if isinstance(t, tuple):
            found.append((t[0], t[1], t[2] if len(t) > 2 and isinstance(t[2], str) else ""))
        else:
            found.append((t.name, t.error_code, getattr(t, "error_message", "") or ""))
    return found


def manifests(cases: list[Case]) -> str:
    """The cases as Strimzi KafkaTopics, every config value a string as Kafka gets it."""
    docs = []
    for c in cases:
        docs.append({"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaTopic",
                     "metadata": {"name": c.name, "labels": {"strimzi.io/cluster": "oracle"}},
                     "spec": {"partitions": c.partitions, "replicas": c.rf,
                              **({"config": c.config} if c.config else {})}})
    return "".join("---\n" + json.dumps(d) + "\n" for d in docs)


def policylint_verdicts(cases: list[Case], cluster: dict, folder: Path) -> dict[str, Verdict]:
    """policylint's verdict on each case against ``cluster`` (a snapshot document), linted
    as users lint (the CLI, JSON output)."""
    (folder / "topics.yaml").write_text(manifests(cases))
    (folder / "cluster.json").write_text(json.dumps(cluster))
    (folder / "policy.yaml").write_text("extends: default\n")  # no policy found upward
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "topics.yaml",
                           "--cluster", "cluster.json", "--format", "json", "--select",
                           ",".join(REFUSALS), "--exit-zero", "--policy", "policy.yaml"],
                          cwd=folder, capture_output=True, text=True, timeout=600)
    findings = json.loads(done.stdout)["findings"]
    rules: dict[str, list[str]] = {}
    for f in findings:
        if f["severity"] == "error" and not f["suppressed"] and f["rule"] in REFUSALS:
            # each case is one line of its own after its "---": a schema finding names no
            # topic, its line does
            name = f["topic"] or cases[f["line"] // 2 - 1].name
            rules.setdefault(name, []).append(f["rule"])
    return {c.name: Verdict(c.name in rules, ",".join(sorted(set(rules.get(c.name, [])))))
            for c in cases}


@dataclass
class Agreement:
    release: str
    cases: int = 0
    agree: int = 0
    by_rule: Counter = field(default_factory=Counter)  # rule (or "accepted") -> cases
    disagree: list = field(default_factory=list)  # (case, kafka, policylint)
    #: (key, why) of each topic config key Kafka and policylint's table do not both know
    keys: list = field(default_factory=list)
    captured: str | None = None  # the release `policylint snapshot` says the cluster runs
    altered: int = 0  # the cases asked as changes of an existing topic, and those agreeing
    altered_agree: int = 0
    brokers: int = 0  # the broker settings of a cluster resource asked, and those agreeing
    brokers_agree: int = 0


def compare(release: str, cases: list[Case], kafka: dict[str, Verdict],
            linted: dict[str, Verdict]) -> Agreement:
    found = Agreement(release)
    for case in cases:
        k, p = kafka.get(case.name), linted[case.name]
        if k is None:
            continue
        found.cases += 1
        for rule in (p.why.split(",") if p.why else ["accepted"]):
            found.by_rule[rule] += 1
        if k.refused == p.refused:
            found.agree += 1
        else:
            found.disagree.append((case, k, p))
    return found


def judged(cluster, release: str, folder: Path) -> Agreement:
    """The corpus of ``release`` judged by the running ``cluster`` and by policylint, against
    the cluster as ``policylint snapshot`` captures it (its release named: the protocol
    tells a lower bound of it only)."""
    snapshot = folder / "cluster.json"
    done = subprocess.run([sys.executable, "-m", "policylint", "snapshot",
                           "--bootstrap-server", cluster.bootstrap, "--cluster-name", "oracle",
                           "-o", str(snapshot)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    captured = json.loads(snapshot.read_text())
    cases = corpus(release)
    kafka = kafka_verdicts(cluster.bootstrap, cases)
    linted = policylint_verdicts(cases, captured, folder)
    found = compare(release, cases, kafka, linted)
    found.captured = captured.get("kafka_version")
    # the same configs as changes of an existing topic (IncrementalAlterConfigs)
    changed = [c for c in cases if c.config and (c.rf, c.partitions) == (BROKERS, 1)]
    altered = compare(release, changed, alter_verdicts(cluster, changed), linted)
    found.altered, found.altered_agree = altered.cases, altered.agree
    found.disagree += [(dataclasses.replace(case, what=case.what + " (as a change)"), k, p)
                       for case, k, p in altered.disagree]
    # a cluster resource's broker settings, where they change the live cluster's (one
    # that keeps the live value changes nothing: no operator sends it)
    from policylint.kafka import as_int
    live = as_int(captured.get("config", {}).get("min.insync.replicas"))
    brokers = [c for c in broker_cases(release)
               if as_int(c.config["min.insync.replicas"]) != live]
    judged_brokers = compare(release, brokers, broker_verdicts(cluster, brokers),
                             broker_policylint_verdicts(brokers, captured, folder))
    found.brokers, found.brokers_agree = judged_brokers.cases, judged_brokers.agree
    found.disagree += judged_brokers.disagree
    from policylint import kafka_configs
    table, listed = kafka_configs.table(release), topic_config_keys(cluster)
    # (a key policylint knows that Kafka does not list may be one it keeps internal, as 3.3
    # its tiered storage keys: the cases of its values say whether Kafka takes it)
    found.keys = [(key, "Kafka lists it, policylint does not know it")
                  for key in sorted(set(listed) - set(table))]
    for key, (value, source) in sorted(listed.items()):
        spec = table.get(key)
        if spec is None or source != "DEFAULT_CONFIG" or value is None or \
                spec.get("throttled_replicas"):
            continue
        try:
            same = kafka_configs.parsed(spec, value) == kafka_configs.parsed(
                spec, spec.get("default"))
        except (TypeError, ValueError):
            same = False
        if not same:
            found.keys.append((key, f"Kafka's default is {value!r}, policylint's "
                                    f"{spec.get('default')!r}"))
    return found


def alter_verdicts(cluster, cases: list[Case]) -> dict[str, Verdict]:
    """Kafka's answer to each case's config set on an existing topic: IncrementalAlterConfigs
    with validateOnly, one request a case (nothing is changed)."""
    from kafka.admin import ConfigResource, ConfigResourceType, NewTopic
    admin = cluster.admin()
    found: dict[str, Verdict] = {}
    try:
        admin.create_topics([NewTopic("oracle-altered", 1, BROKERS)])
        for case in cases:
            answer = admin.alter_configs(
                [ConfigResource(ConfigResourceType.TOPIC, "oracle-altered",
                                configs=case.config)],
                validate_only=True, incremental=True, raise_on_unknown=False)
            said = answer["topic"]["oracle-altered"]
            found[case.name] = Verdict(said != "OK", "" if said == "OK" else said)
    finally:
        admin.close()
    return found


#: the broker settings of a cluster resource whose values policylint judges (PL101: a
#: positive integer) and Kafka validates on the dynamic path (as cluster-wide settings)
BROKER_KEYS = ("min.insync.replicas",)


def broker_cases(release: str) -> list[Case]:
    """A cluster resource's broker settings: each key's valid, invalid and boundary values."""
    from policylint import kafka_configs
    spec = kafka_configs.table(release)["min.insync.replicas"]  # its broker setting's rules
    return [Case(f"oracle-broker-{i:03d}", f"broker {key}={value!r} ({what})", {key: value})
            for key in BROKER_KEYS for i, (value, what) in enumerate(_values(key, spec))]


def broker_verdicts(cluster, cases: list[Case]) -> dict[str, Verdict]:
    """Kafka's answer to each broker setting: IncrementalAlterConfigs of broker 1 with
    validateOnly (a static setting is refused there as "Cannot update these configs
    dynamically": only dynamic ones are asked)."""
    from kafka.admin import ConfigResource, ConfigResourceType
    admin = cluster.admin()
    found: dict[str, Verdict] = {}
    try:
        for case in cases:
            said = admin.alter_configs(
                [ConfigResource(ConfigResourceType.BROKER, "1", configs=case.config)],
                validate_only=True, incremental=True, raise_on_unknown=False)["broker"]["1"]
            found[case.name] = Verdict(said != "OK", "" if said == "OK" else said)
    finally:
        admin.close()
    return found


def broker_policylint_verdicts(cases: list[Case], cluster: dict, folder: Path
                               ) -> dict[str, Verdict]:
    """policylint's verdict on each broker setting, written in a Strimzi ``Kafka`` of the
    captured cluster (its folder of its own, beside the snapshot: PL308 compares the two
    where eligible leader replicas are on)."""
    for case in cases:
        own = folder / case.name
        own.mkdir(exist_ok=True)
        (own / "kafka.yaml").write_text(json.dumps({
            "apiVersion": "kafka.strimzi.io/v1beta2", "kind": "Kafka",
            "metadata": {"name": cluster["cluster"]},
            "spec": {"kafka": {"replicas": BROKERS, "config": case.config}}}))
        (own / "live.json").write_text(json.dumps(cluster))
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", *(c.name for c in cases),
                           "--format", "json", "--select", ",".join(REFUSALS + ("PL308",)),
                           "--exit-zero", "--policy", "policy.yaml"],
                          cwd=folder, capture_output=True, text=True, timeout=600)
    rules: dict[str, list[str]] = {}
    for f in json.loads(done.stdout)["findings"]:
        # an error of a refusal rule, or PL308: Kafka refuses a broker-level change while
        # eligible leader replicas are on (a warning by default, for what the change clears)
        if not f["suppressed"] and (f["rule"] == "PL308" or f["severity"] == "error"
                                    and f["rule"] in REFUSALS):
            rules.setdefault(f["file"].split("/")[0], []).append(f["rule"])
    return {c.name: Verdict(c.name in rules, ",".join(sorted(set(rules.get(c.name, [])))))
            for c in cases}


def topic_config_keys(cluster) -> dict[str, tuple[str | None, str]]:
    """Every topic config key the running release knows, with its value and source on a
    topic that sets none: DescribeConfigs of a topic lists them all, defaults included."""
    import time

    from kafka.admin import ConfigResource, ConfigResourceType, NewTopic
    admin = cluster.admin()
    try:
        admin.create_topics([NewTopic("oracle-known-keys", 1, 1)])
        deadline = time.monotonic() + 30
        while True:
            found = admin.describe_configs(
                [ConfigResource(ConfigResourceType.TOPIC, "oracle-known-keys")],
                config_filter="all").get("topic", {}).get("oracle-known-keys") or {}
            if found or time.monotonic() > deadline:
                return {key: (entry.get("value"), entry.get("config_source"))
                        for key, entry in found.items()}
            time.sleep(0.3)
    finally:
        admin.close()
