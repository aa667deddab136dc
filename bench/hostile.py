"""Hostile inputs for policylint: documents, policies and command lines built from pieces the
fuzz campaign found trouble with, mixed with valid ones so that the rules run too; and the
contract every case must keep (``check``). Used by ``tests/test_fuzz.py`` (a small fixed
budget) and by ``bench/fuzz.py`` (a campaign of a given length)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import signal
from pathlib import Path

SCALARS = ["3", "-1", "0", "1", '"2"', "true", "null", "~", "1.5", ".inf", "-.nan", '""',
           "'x'", "0x" + "f" * 40, "0x" + "f" * 3600, "0" + "7" * 4400, "9" * 4400,
           "!!bool maybe", '!!int ""', '!!float ""', "!!str 1", "!!python/object:os.system x",
           "!!binary aGk=", "2026-11-21", '"a\\nb"', '"\\ud800"', "[]", "{}", "[x]", "{a: 1}",
           "*missing", "&a 1", "? [complex]", '"' + "x" * 300 + '"', "1e999", "${VAR}",
           '"{{ .Values.x }}"', "'{% raw %}x{% endraw %}'", '"${A}-${B}"']
KEYS = ["apiVersion", "kind", "metadata", "name", "labels", "annotations", "namespace", "spec",
        "replicas", "partitions", "config", "topicName", "roles", "kafka", "version", "cluster",
        "brokers", "topics", "id", "rack", "isr", "adding", "removing", "partition", "topic",
        "log_dirs", "captured_at", "items", "strimzi.io/cluster", "policylint.io/disable",
        "min.insync.replicas", "default.replication.factor", "num.partitions", "retention.ms",
        "strimzi.io/node-pools", "<<", "partitionCount", "configs", "replicationFactor",
        "replication", "kafkaClusterRef", "configMapRefs", "serviceName", "clusterRef",
        "configOverrides", "parameters", "data", "jikkou.io/delete", "min_insync_replicas"]
KINDS = ["KafkaTopic", "Kafka", "KafkaNodePool", "ClusterSnapshot", "List", "[]", "{}",
         "KafkaTopicList", "KafkaCluster", "Topic", "ConfigMap"]
APIS = ["kafka.strimzi.io/v1beta2", "kafka.strimzi.io/v1", "v1", "[x]",
        "platform.confluent.io/v1beta1", "apps.cpc.platform.confluent.io/v1beta1",
        "kafka.jikkou.io/v1beta2", "core.jikkou.io/v1beta2", "kafka.banzaicloud.io/v1alpha1",
        "kafka.banzaicloud.io/v1beta1", "aiven.io/v1alpha1", "kafka/v2"]


def value(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth > 3 or roll < 0.55:
        return rng.choice(SCALARS)
    if roll < 0.75:
        return "[" + ", ".join(value(rng, depth + 1) for _ in range(rng.randrange(4))) + "]"
    return "{" + ", ".join(f"{rng.choice(KEYS)}: {value(rng, depth + 1)}"
                           for _ in range(rng.randrange(4))) + "}"


def manifest(rng: random.Random) -> str:
    """A Strimzi resource, a snapshot or a List, right or wrong in a few places."""
    kind = rng.choice(KINDS)
    lines = [f"apiVersion: {rng.choice(APIS)}", f"kind: {kind}",
             f"metadata: {{name: {rng.choice(['t', 'c', 'prod', value(rng)])}, labels: "
             f"{{strimzi.io/cluster: {rng.choice(['c', 'prod', value(rng)])}}}, "
             f"annotations: {rng.choice(['{}', value(rng), '{strimzi.io/node-pools: enabled}'])}}}"]
    if kind == "ClusterSnapshot":
        lines = ["kind: ClusterSnapshot", f"version: {rng.choice(['1', value(rng)])}",
                 f"cluster: {rng.choice(['prod', value(rng)])}",
                 f"brokers: [{{id: 1, rack: a}}, {{id: {rng.choice(['2', value(rng)])}}}]",
                 "topics: [{name: t, partitions: [{partition: 0, replicas: "
                 f"{rng.choice(['[1, 2]', value(rng)])}, isr: {value(rng)}}}]}}]"]
    elif kind == "List":
        lines.append(f"items: [{manifest_flow(rng)}, {value(rng)}]")
    elif rng.random() < 0.5:
        lines.append(f"spec: {{replicas: {rng.choice(['3', value(rng)])}, partitions: "
                     f"{rng.choice(['3', value(rng)])}, roles: [broker], kafka: {{replicas: "
                     f"{rng.choice(['3', value(rng)])}, config: {{min.insync.replicas: "
                     f"{value(rng)}, num.partitions: {value(rng)}}}}}, config: "
                     f"{{{rng.choice(KEYS)}: {value(rng)}}}}}")
    elif kind in ("KafkaTopicList", "ConfigMap"):
        lines.append(f"items: [{{metadata: {{name: {value(rng)}}}, spec: {value(rng)}}}]")
        lines.append(f"data: {{{rng.choice(KEYS)}: {value(rng)}}}")
    else:
        lines.append(f"spec: {{replicas: {rng.choice(['3', value(rng)])}, partitions: "
                     f"{rng.choice(['3', value(rng)])}, partitionCount: {value(rng)}, "
                     f"replicationFactor: {value(rng)}, replication: {value(rng)}, "
                     f"configMapRefs: {value(rng)}, configs: {{{rng.choice(KEYS)}: "
                     f"{value(rng)}}}, kafkaClusterRef: {value(rng)}, "
                     f"configOverrides: {{server: [{value(rng)}, 'a=b']}}}}")
    for _ in range(rng.randrange(3)):
        lines.insert(rng.randrange(len(lines) + 1), f"{rng.choice(KEYS)}: {value(rng)}")
    return "\n".join(lines) + "\n"


def other_format(rng: random.Random) -> str:
    """A topicctl, JulieOps or kafka-gitops file, or kafka-topics.sh --describe output."""
    roll = rng.random()
    if roll < 0.25:
        return (f"meta: {{name: {value(rng)}, cluster: {value(rng)}}}\nspec: {{partitions: "
                f"{value(rng)}, replicationFactor: {value(rng)}, retentionMinutes: "
                f"{value(rng)}, settings: {value(rng)}, placement: {{strategy: static, "
                f"staticAssignments: {value(rng)}}}, bootstrapAddrs: {value(rng)}}}\n")
    if roll < 0.5:
        return (f"context: {value(rng)}\ncompany: {value(rng)}\nprojects: [{{name: "
                f"{value(rng)}, topics: [{{name: {value(rng)}, dataType: {value(rng)}, "
                f"config: {value(rng)}}}]}}]\n")
    if roll < 0.75:
        return (f"settings: {{topics: {{defaults: {{replication: {value(rng)}}}}}}}\n"
                f"topics: {{t: {{partitions: {value(rng)}, replication: {value(rng)}, "
                f"configs: {value(rng)}}}}}\n")
    ids = rng.choice(["1,2,3", "", "N/A", "1,x", "9" * 30, "-1,2", "1,1"])
    return (f"Topic: {rng.choice(['t', '', 'x y'])}\tTopicId: q\tPartitionCount: 1\t"
            f"ReplicationFactor: {value(rng)}\tConfigs: {rng.choice(['a=b', '=', ',,', 'x'])}\n"
            f"\tTopic: t\tPartition: {rng.choice(['0', '-1', 'z', '9' * 20])}\tLeader: 1\t"
            f"Replicas: {ids}\tIsr: {rng.choice([ids, '1'])}\tAdding Replicas: "
            f"{rng.choice(['', ids])}\n")


def manifest_flow(rng: random.Random) -> str:
    return (f"{{apiVersion: kafka.strimzi.io/v1beta2, kind: KafkaTopic, metadata: "
            f"{{name: {rng.choice(['t', value(rng)])}}}, spec: {{replicas: {value(rng)}}}}}")


def plan(rng: random.Random) -> str:
    entries = []
    for i in range(rng.randrange(4)):
        entry = {"topic": rng.choice(["t", "u", "t\ud800", 1, None]),
                 "partition": rng.choice([i, 0, -1, 2**31, "0", 10**30]),
                 "replicas": rng.choice([[1, 2], [1, 1], [], [-1, 2], ["1"], [2**40], None])}
        if rng.random() < 0.3:
            entry["log_dirs"] = rng.choice([["any"], "any", [1]])
        entries.append(entry)
    data = {"partitions": entries} if rng.random() < 0.9 else {"topics": entries}
    if rng.random() < 0.7:
        data["version"] = rng.choice([1, 2, "1"])
    text = json.dumps(data, ensure_ascii=rng.random() < 0.5)
    roll = rng.random()
    if roll < 0.15:  # the reassignment tool's printed output
        return (f"Current partition replica assignment\n{text}\n\nProposed partition "
                f"reassignment configuration\n{json.dumps(data, indent=rng.choice([None, 2]))}\n")
    if roll < 0.25:
        return text[:rng.randrange(len(text) + 1)]  # cut short
    if roll < 0.3:
        return "[" * rng.choice([50, 300, 5000]) + "]" * 5
    return text


def terraform(rng: random.Random) -> str:
    """A topic resource in HCL, with expressions, for_each shapes and values of every kind."""
    value = rng.choice(["3", "-1", '"3"', "var.rf", "each.value.rf", "null", "9" * 30,
                        "[1, 2]", "{ a = 1 }", "local.x", '"${var.y}"', "true", "1.5"])
    each = rng.choice(["", "for_each = { a = { rf = 2 }, b = {} }", "for_each = var.topics",
                       'for_each = jsondecode(file("missing.json"))', "for_each = [1]",
                       "count = 2", "for_each = local.topics", "for_each = toset(local.names)",
                       "for_each = { for t in local.list : t.name => t }",
                       "for_each = toset(local.topics)", "for_each = local.x.y"])
    name = rng.choice(["each.key", '"t"', '""', "var.n", "1"])
    config = rng.choice(["{}", "var.c", '{ "segment.ms" = 1 }', "[]"])
    body = [each, f"name = {name}", f"partitions = {value}", f"replication_factor = {value}",
            f"config = {config}"]
    kind = rng.choice(["kafka_topic", "confluent_kafka_topic", "other", "kubernetes_manifest",
                       "aiven_kafka_topic", "aws_msk_topic", "google_managed_kafka_topic"])
    if kind == "google_managed_kafka_topic":
        body = [each, f"topic_id = {name}", f"partition_count = {value}",
                f"replication_factor = {value}", f"configs = {config}",
                "cluster = " + rng.choice(["google_managed_kafka_cluster.c.cluster_id",
                                           '"c"', "var.c", "1"])]
    if kind == "aiven_kafka_topic":  # a config block, or blocks, or an attribute
        block = rng.choice(["config {\n    min_insync_replicas = VALUE\n  }",
                            "config {}\n  config { retention_ms = VALUE }",
                            "config = { retention_ms = VALUE }", "config = var.c",
                            "dynamic \"config\" {\n    for_each = [1]\n  }"])
        body = [each, f"topic_name = {name}", f"replication = {value}",
                "service_name = " + rng.choice(['"s"', "var.s", "1", '""']),
                block.replace("VALUE", value)]
    if kind == "aws_msk_topic":  # configs as jsonencode, JSON text, or neither
        configs = rng.choice([f'jsonencode({{ "min.insync.replicas" = {value} }})',
                              "jsonencode(var.c)", "jsonencode()", '"{\\"a\\": 1}"',
                              '"[1]"', '"{"', "jsonencode({ a = { b = [1] } })",
                              "jsonencode(" * 40 + "1" + ")" * 40])
        body = [each, f"name = {name}", f"partition_count = {value}",
                f"replication_factor = {value}", f"configs = {configs}",
                "cluster_arn = " + rng.choice(["aws_msk_cluster.m.arn", "var.a", '"arn:"',
                                               '"arn:aws:kafka:r:1:cluster/c/u"'])]
    if kind == "kubernetes_manifest":  # a Strimzi topic applied by Terraform
        body = [each, "manifest = {", '  apiVersion = "kafka.strimzi.io/v1beta2"',
                f'  kind = {rng.choice(["KafkaTopic", "Kafka", "1"])!r}'.replace("'", '"'),
                f"  metadata = {{ name = {name} }}",
                f"  spec = {rng.choice([f'{{ replicas = {value} }}', 'each.value', value])}",
                "}"]
    if rng.random() < 0.15:  # a kubectl_manifest heredoc, of YAML of every kind
        yaml = manifest(rng)
        body = [each, f"yaml_body = <<{rng.choice(['-', ''])}YAML",
                *(yaml[:rng.randrange(len(yaml) + 1)] if rng.random() < 0.2 else yaml
                  ).splitlines(), "YAML"]
        kind = "kubectl_manifest"
    text = f'resource "{kind}" "t" {{\n  ' + "\n  ".join(body) + "\n}\n"
    if rng.random() < 0.4:  # the module's locals, of every shape
        locals_ = rng.sample([
            f"x = {value}", "topics = { a = { rf = 1 }, b = var.b }", "topics = var.t",
            'topics = ["a", 1]', 'names = ["a", "b", "a"]', "names = [1, {}]",
            'list = [{ name = "a", rf = 1 }, { name = "b" }]', "list = [{ rf = 2 }, 3]",
            'list = { name = "a" }', 'x = { y = { a = {} } }'], rng.randrange(1, 5))
        text = "locals {\n  " + "\n  ".join(locals_) + "\n}\n" + text
    if rng.random() < 0.3:  # a module call, to this very folder (Terraform refuses a cycle)
        argument = rng.choice(["var.topics", "local.topics", "{ a = {} }", "local.list",
                               'jsondecode(file("t.json"))',
                               "{ for t in local.list : t.name => t }"])
        text += f'module "m" {{\n  source = "{rng.choice(["./", "../x", "."])}"\n' \
                f'  topics = {argument}\n}}\n'
    return text[:rng.randrange(len(text) + 1)] if rng.random() < 0.1 else text


def terraform_plan(rng: random.Random) -> str:
    side = {"name": rng.choice(["t", 1, None, ""]), "partitions": rng.choice([1, -1, "x", None,
                                                                           10**40]),
            "replication_factor": rng.choice([3, 0, None]), "config": rng.choice(
                [{}, None, {"segment.ms": "1"}, [1], "x"])}
    change = {"actions": rng.choice([["update"], ["delete", "create"], ["delete"], "x", [1]]),
              "before": rng.choice([side, None, []]), "after": rng.choice([side, None, 1]),
              "after_unknown": rng.choice([{}, {"partitions": True}, True, None]),
              "replace_paths": rng.choice([[["name"]], [[0, {}]], "x", None])}
    if rng.random() < 0.3:  # Aiven's config block and MSK's configs JSON, of every shape
        side["config"] = rng.choice([[{"retention_ms": "1", "segment_ms": None}], [], [1],
                                     [{"a": [1]}, {}], {"retention_ms": 1}])
        side["configs"] = rng.choice(['{"retention.ms": "1"}', "{", "[1]", 1, None,
                                      '{"a": {"b": 1}}'])
        side["replication"] = rng.choice([3, "3", None])
    entry = {"address": rng.choice(["kafka_topic.t", 1]), "mode": "managed",
             "type": rng.choice(["kafka_topic", "confluent_kafka_topic", "aiven_kafka_topic",
                                 "aws_msk_topic", "google_managed_kafka_topic"]), "name": "t",
             "change": rng.choice([change, None, []])}
    return json.dumps({"format_version": "1.2", "resource_changes": rng.choice(
        [[entry], [entry, entry], "x", [None]])})


def files(rng: random.Random) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {}
    for i in range(rng.randrange(1, 5)):
        roll = rng.random()
        if roll < 0.35:
            out[f"m{i}.yaml"] = manifest(rng) if rng.random() < 0.8 else \
                "---\n".join(manifest(rng) for _ in range(3))
        elif roll < 0.4:
            out[f"o{i}.yaml"] = other_format(rng)
        elif roll < 0.45:
            out[f"t{i}.tf" if rng.random() < 0.5 else f"tp{i}.json"] = \
                terraform(rng) if rng.random() < 0.5 else terraform_plan(rng)
        elif roll < 0.8:
            out[f"p{i}.json"] = plan(rng)
        elif roll < 0.85:
            out[f"b{i}.json"] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
        elif roll < 0.9:
            out[f"a{i}.yaml"] = "a: &a [x, x, x]\n" + "".join(
                f"b{j}: &b{j} [{', '.join(['*a' if j == 0 else f'*b{j - 1}'] * 9)}]\n"
                for j in range(rng.choice([3, 12])))
        else:
            out[f"e{i}.yaml"] = rng.choice(["", "  \n", "\ufeff", "%YAML 9.9\n---\n", "{{{",
                                            "- " * 3000 + "x"])
    return out


def policy(rng: random.Random) -> str:
    lines = []
    if rng.random() < 0.5:
        lines.append(f"extends: {rng.choice(['default', 'strict', 'kip409', 'nope', 'x' * 4000, value(rng)])}")
    if rng.random() < 0.6:
        lines.append(f"rules: {{{rng.choice(['PL303', 'rack-spread', 'PL999', value(rng)])}: "
                     f"{{{rng.choice(['min', 'mode', 'severity', 'enabled', 'bogus'])}: {value(rng)}}}}}")
    if rng.random() < 0.4:
        lines.append(f"exemptions: [{{rule: {rng.choice(['PL401', value(rng)])}, topics: "
                     f"{value(rng)}, reason: {rng.choice(['r', value(rng)])}, expires: "
                     f"{rng.choice(['2027-01-31', '2027-13-45', value(rng)])}}}]")
    if rng.random() < 0.3:
        lines.append(f"clusters: {value(rng)}")
    if rng.random() < 0.2:
        lines.append(f"{rng.choice(KEYS)}: {value(rng)}")
    return "\n".join(lines) + "\n"


#: pieces of CEL expressions: real fields, unknown ones, every kind of literal, macros,
#: regexes that backtrack in a backtracking engine (CEL's is RE2), calls that fail
CEL_ATOMS = ["topic.rf", "topic.partitions", "topic.name", 'topic.config["min.insync.replicas"]',
             'topic.config[?"retention.ms"]', "topic.labels", "topic.nmae", "cluster.broker_count",
             "cluster.racks", "entry.replicas", "partition.isr", "change.after.rf", "1", "-1",
             "9223372036854775807", "18446744073709551615u", "1.5e308", '"x"', r"b'\xff'",
             "null", "true", "[]", "{}", "[1, 2, 3]", '{"a": 1}', 'duration("1h")',
             'timestamp("2026-01-01T00:00:00Z")', "optional.none()", "dyn(1)", "x", "_",
             '"a".repeat(100000)', '"(a+)+$"', '"aaaaaaaaaaaaaaaaaaaaaaaaaaaa!"', "1 / 0",
             "int(topic.name)", "size(topic.name)", r"'\u0000'", r'"\ud800"']
CEL_OPS = ["{a} == {b}", "{a} < {b}", "{a} + {b}", "{a} && {b}", "{a} || {b}", "!{a}",
           "{a} ? {b} : {a}", "{a} in {b}", "({a})", "[{a}, {b}]", "{{{a}: {b}}}",
           "{a}.all(v, v == {b})", "{a}.exists(v, {b})", "{a}.map(v, {b})",
           "{a}.filter(v, {b})", "{b}.matches({a})", "has({a})", "{a}.orValue({b})",
           "{a}.size()", "{a}.startsWith({b})", "string({a})", "{a}[{b}]", "{a}.{b}",
           "{a}.?{b}", "{a}.contains({b})"]
CEL_BROKEN = ["", " ", "topic.", ")(", "1 +", "'''", "\x00", "a" * 100001, "\u202e",
              "[1].all(a, [1].all(b, [1].all(c, true)))"]


def cel_expression(rng: random.Random, depth: int = 0) -> str:
    """A random CEL expression: mostly well-formed, sometimes broken, deep or huge."""
    roll = rng.random() if depth == 0 else 1.0  # huge and broken ones whole, not in parts
    if roll < 0.02:
        return "(" * rng.choice([40, 300, 100000]) + "1" + ")" * rng.randrange(300)
    if roll < 0.04:
        return "[" + ", ".join(["1"] * rng.choice([1000, 200000])) + "]"
    if roll < 0.06:
        return rng.choice(CEL_BROKEN)
    if depth > rng.randrange(1, 6):
        return rng.choice(CEL_ATOMS)
    return rng.choice(CEL_OPS).format(a=cel_expression(rng, depth + 1),
                                      b=cel_expression(rng, depth + 1))


CEL_REGEXES = ["(a+)+$", "(a|aa)+$", "(.*a){20}", "^(\\w+\\s?)*$", "[", "(?P<x>a)", "\\", "a{1000}",
               ".*" * 50, "(a*)*b"]


def cel_valid(rng: random.Random) -> str:
    """A CEL expression that compiles and is evaluated: backtracking regexes, long lists,
    comprehensions at the limit, values that are not there, errors at run time."""
    big = "[" + ", ".join(str(i) for i in range(rng.choice([10, 10000]))) + "]"
    return rng.choice([
        f'topic.name.matches({json.dumps(rng.choice(CEL_REGEXES))})',
        f'topic.name.matches({json.dumps(rng.choice(CEL_REGEXES))}) || true',
        f"{big}.exists(x, x == topic.rf)",
        f"{big}.all(x, {big}.exists(y, y >= x))",
        'topic.config[?"retention.ms"].orValue(0) > 1000',
        'topic.config["no.such.key"] == 1',
        "int(topic.name) > 0",
        "topic.rf / (topic.rf - topic.rf) > 1",
        "cluster.brokers.all(b, cluster.brokers.exists(c, c.id == b.id))",
        "topic.labels.owner == 'x'",
        '"x".repeat(1000000).size() > 0' if rng.random() < 0.1 else "true",
        f"string(topic.partitions) + {json.dumps(rng.choice(CEL_BROKEN[:5]))} != ''",
    ])


def cel_policy(rng: random.Random) -> str:
    """A policy of random CEL rules (JSON is YAML: every expression quoted)."""
    rules = []
    for i in range(rng.randrange(1, 4)):
        odd = rng.random() < 0.1  # a rule the schema refuses, now and then
        rule = {"code": rng.choice(["PL301", "X"]) if odd else f"TEAM{i}",
                "name": rng.choice(["min-isr-exceeds-rf", "Bad Name"]) if odd else f"team-{i}",
                "applies_to": rng.choice(["topics", "topics", "partitions", "plan_entries",
                                          "clusters", "changes"]),
                "validations": [{"expression": rng.choice([cel_expression, cel_valid])(rng),
                                 rng.choice(["message", "messageExpression"]):
                                     rng.choice(["broken", cel_expression(rng)])}
                                for _ in range(0 if odd else rng.randrange(1, 3))]}
        if rng.random() < 0.3:
            rule["matchConditions"] = [{"expression": cel_expression(rng)}]
        if rng.random() < 0.2:
            rule["field"] = rng.choice(["rf", "config.retention.ms", "nope", ""])
        rules.append(rule)
    return "cel_rules: " + json.dumps(rules) + "\n"


OPTIONS = ["--format", "--fail-on", "--select", "--ignore", "--cluster", "--current",
           "--policy", "--report", "--max-file-size", "--base", "--allow-rf-change",
           "--color", "--no-color", "--bogus", "-x", "--"]
ARGS = ["json", "sarif", "text", "github", "markdown", "xml", "error", "note", "PL1", "PL9",
        "rf-change", ",", "", "0", "1K", "-1", "1T", "HEAD", "json:out.json", "sarif:x/y.sarif",
        "nope", "m0.yaml", "p1.json", ".", "\n", "a\nb", "missing.json"]


def command(rng: random.Random, names: list[str]) -> list[str]:
    args = ["lint"]
    for _ in range(rng.randrange(5)):
        args.append(rng.choice(OPTIONS))
        if rng.random() < 0.8:
            args.append(rng.choice(ARGS + names))
    return args + rng.sample(names, rng.randrange(len(names) + 1))


FIXABLE = ["retention.msx: 1000", "log.retention.ms: 86400000", "log.retention.minutes: 60",
           "cleanup.policy: Compact", "cleanup.policy: delete,delete", "cleanup.policy: [compact]",
           "message.format.version: 2.8", "unclean.leader.election.enable: yes",
           "segment.bytes: 1_073_741_824", "retention.ms: 1.0e3", "min.insync.replicas: 5",
           "leader.replication.throttled.replicas: '*'", "min.insync.replicas: &m 2",
           "retention.bytes: *m", "segment.ms: !!str 60000", "max.message.bytes: 0x100000",
           "'retention.ms': 1000  # kept", "{flow: style}: 1", "retention.ms: \"\\ud800\""]
COMMENTS = ["# policylint: disable=PL3O1", "# policylint: disable=PL601 legacy", "# just a note",
            "# policylint: disable=", "# policylint: disable=PL601,PL999", "#\u00e9\u6f22"]


def fixable(rng: random.Random) -> str:
    """A Strimzi topic with what --fix and --add-noqa rewrite, among comments, anchors, flow
    style, odd line endings and documents that are not topics."""
    config = [f"    {rng.choice(FIXABLE)}" + (f"  {rng.choice(COMMENTS)}" if rng.random() < 0.3
                                              else "") for _ in range(rng.randrange(1, 5))]
    if rng.random() < 0.2:
        config = ["    " + "{" + ", ".join(c.strip().split("  #")[0] for c in config) + "}"]
    doc = ["apiVersion: kafka.strimzi.io/v1beta2", "kind: KafkaTopic",
           f"metadata: {{name: {rng.choice(['t', 'orders', value(rng)])}, labels: "
           "{strimzi.io/cluster: c}" + rng.choice(["", ", annotations: {policylint.io/disable: "
                                                   "PL3O1}"]) + "}",
           f"spec:  {rng.choice(COMMENTS)}", f"  replicas: {rng.choice(['3', '1', value(rng)])}",
           "  partitions: 3", "  config:", *config]
    for _ in range(rng.randrange(3)):
        doc.insert(rng.randrange(len(doc) + 1), rng.choice(COMMENTS))
    text = "\n".join(doc) + "\n"
    if rng.random() < 0.3:
        text = rng.choice(["---\n", "%YAML 1.2\n---\n", "\ufeff"]) + text + \
            rng.choice(["---\n" + manifest(rng), "...\n", "---\n"])
    if rng.random() < 0.15:
        text = text.replace("\n", rng.choice(["\r\n", "\r"]))
    if rng.random() < 0.1:
        text = text[:rng.randrange(len(text) + 1)]
    return text


BASELINES = ["", "{}", "[]", "null", '{"format": "policylint-baseline"}', "\ufeff{}",
             '{"format": "policylint-baseline", "version": 1, "findings": [{"fingerprint": 1}]}',
             '{"format": "policylint-baseline", "version": 1, "findings": [{"fingerprint": '
             '"x:1"}]}', '{"version": "2.1.0", "runs": []}', "[" * 10000, '"\\ud800"']
NAMES = ["out.json", "r\u00e9sultat.xml", "\u6f22\u5b57.sarif", "a b.txt", "-", "x/y.json",
         ".", "..", "m0.yaml", "\U0001f680.json", "nul\u0000l", "line\nbreak", "r" * 300]
UNICODE = ["", "legacy", "r\u00e9sum\u00e9", "\u6f22", "\U0001f680", "a\nb", "#", "\"'",
           "\ud800", "x" * 2000, "--fix", "policylint: disable=PL301"]


class Endless(io.RawIOBase):
    """Standard input that never ends (a producer that never closes the pipe)."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        chunk = (b"kind: KafkaTopic\n" * 4096)[:len(buffer)]
        buffer[:len(chunk)] = chunk
        return len(chunk)


class Terminal(io.TextIOWrapper):
    def isatty(self) -> bool:
        return True


def stdin(rng: random.Random) -> io.TextIOBase:
    roll = rng.random()
    if roll < 0.15:
        return io.TextIOWrapper(io.BufferedReader(Endless()))
    if roll < 0.25:
        return Terminal(io.BytesIO(b"kind: KafkaTopic\n"))
    data = rng.choice([b"", b"\x00\xff\xfe", fixable(rng).encode("utf-8", "surrogatepass"),
                       plan(rng).encode("utf-8", "surrogatepass"),
                       bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))])
    return io.TextIOWrapper(io.BytesIO(data))


def surface(rng: random.Random, written: dict) -> list[str]:
    """A command line on one of the surfaces beyond reading: --fix/--diff/--add-noqa,
    baselines, every reporter to any path, standard input. May add files to ``written``."""
    for i in range(rng.randrange(1, 4)):
        written[f"f{i}.yaml"] = fixable(rng)
    names = sorted(written)
    args = ["lint", "--select", rng.choice(["PL", "PL1,PL3,PL6", "PL122,PL601,PL603"])]
    roll = rng.random()
    if roll < 0.35:
        args += rng.choice([["--fix"], ["--diff"], ["--fix", "--diff"], ["--add-noqa"],
                            ["--add-noqa", "--reason", rng.choice(UNICODE)],
                            ["--fix", "--add-noqa"]])
    elif roll < 0.55:
        written["base.json"] = rng.choice(BASELINES) if rng.random() < 0.8 else \
            bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
        args += rng.choice([["--baseline", "base.json"], ["--write-baseline", "base.json"],
                            ["--write-baseline", rng.choice(NAMES)],
                            ["--baseline", "base.json", "--write-baseline", "new.json"],
                            ["--baseline", "missing.json"], ["--baseline", "."]])
    elif roll < 0.8:
        formats = ["text", "concise", "json", "sarif", "github", "markdown", "junit", "gitlab",
                   "checkstyle"]
        args += ["--format", rng.choice(formats)]
        for _ in range(rng.randrange(3)):
            args += ["--report", f"{rng.choice(formats)}:{rng.choice(NAMES)}"]
        if rng.random() < 0.3:
            args += rng.choice([["--statistics"], ["-q"], ["-v"], ["--exit-zero"]])
    else:
        written["<stdin>"] = stdin(rng)
        names.append("-")
        if rng.random() < 0.6:
            args += ["--stdin-filename", rng.choice(NAMES + ["t.yaml", "p.json", "x.tf"])]
        if rng.random() < 0.4:
            args += ["--max-file-size", rng.choice(["1K", "64K", "1M"])]
        if rng.random() < 0.2:
            args.append("--fix")
    return args + rng.sample(names, rng.randrange(1, len(names) + 1))


class Special:
    """A path a case makes other than a file of text: a FIFO, a symbolic link (to
    ``target``), a read-only file, a file of another owner."""

    def __init__(self, what: str, target: str = "", content: str = ""):
        self.what, self.target, self.content = what, target, content

    def make(self, path: Path) -> None:
        if self.what == "fifo":
            os.mkfifo(path)
        elif self.what == "link":
            os.symlink(self.target, path)
        else:
            path.write_text(self.content)
            if self.what == "readonly":
                os.chmod(path, 0o444)
            elif self.what == "owner" and os.geteuid() == 0:
                os.chown(path, 4321, 4321)


FORMATS = ["text", "concise", "json", "sarif", "github", "markdown", "junit", "gitlab",
           "checkstyle"]


def targets(rng: random.Random, written: dict) -> list[str]:
    """A report or baseline written onto what a user's repository holds: a file that is not
    policylint's, an input of the run, a link, a FIFO, a device, a read-only or another
    owner's file, two targets that are one file."""
    names = sorted(written)
    target = rng.choice(["NOTES.md", "link.json", "fifo", "/dev/null", "ro.json", "theirs.json",
                         "fresh.json", names[0]])
    if target == "NOTES.md":
        written[target] = "# our notes\n"
    elif target == "link.json":
        written[target] = Special("link", rng.choice(["fresh.json", names[0], "NOTES.md"]))
        written.setdefault("NOTES.md", "# our notes\n")
    elif target == "fifo":
        written[target] = Special("fifo")
    elif target in ("ro.json", "theirs.json"):
        written[target] = Special("readonly" if target == "ro.json" else "owner",
                                  content='{"tool": {"name": "policylint"}}\n')
    spec = rng.choice([["--write-baseline", target],
                       ["--report", f"{rng.choice(FORMATS)}:{target}"]])
    if rng.random() < 0.2:
        spec += ["--report", f"{rng.choice(FORMATS)}:{rng.choice([target, './' + target])}"]
    if rng.random() < 0.3:
        spec.append("--force")
    return ["lint", "--select", "PL", *spec, *rng.sample(names, rng.randrange(1, len(names) + 1))]


# names that would act on a terminal or a CI runner if printed as they are
CRAFTED = ["x\n::error file=evil.yaml::INJECTED", "::warning::INJECTED.yaml",
           "t\x1b]0;INJECTED\x07.yaml", "c\x1b[2J\x9b31m.yaml", "b\u202eINJECTED.yaml",
           "<img src=INJECTED>.yaml", "r\rINJECTED.yaml"]


def crafted_names(rng: random.Random, written: dict) -> list[str]:
    """Files under crafted names, holding topics of crafted names, in a human format."""
    crafted = rng.choice(CRAFTED)
    written[crafted] = fixable(rng).replace("name: orders", f"name: {json.dumps(crafted)}")
    fmt = rng.choice(["text", "concise", "github", "markdown"])
    return ["lint", "--select", "PL", "--format", fmt, *sorted(written)]


def _printed_safely(fmt: str, stdout: str, stderr: str) -> str | None:
    """What an output of a crafted-names case shows raw that a terminal or runner acts on."""
    for stream, text in (("stdout", stdout), ("stderr", stderr)):
        raw = [c for c in "\x1b\x07\x9b\u202e\r" if c in text]
        if raw:
            return f"{stream} prints {raw!r} raw"
        for line in text.splitlines():
            if "INJECTED" in line.split("::")[1 if line.startswith("::") else 0][:12] \
                    and line.startswith("::"):
                return f"{stream} has a line an input made a workflow command: {line[:80]!r}"
            if line.startswith("::") and not (fmt == "github" and stream == "stdout" and
                                              line.startswith(("::error file=", "::warning file=",
                                                               "::notice file="))):
                return f"{stream} has a line beginning with :: {line[:80]!r}"
    if fmt == "markdown" and "<img" in stdout:
        return "markdown passes HTML through"
    return None


def case(rng: random.Random, kind: str) -> tuple[dict, list[str]]:
    """(files, command line) of one case of ``kind``: documents, policy, cel, command,
    surface, targets or names (a file named ``<stdin>`` is what standard input reads)."""
    written = files(rng)
    if kind == "surface":
        return written, surface(rng, written)
    if kind == "targets":
        return written, targets(rng, written)
    if kind == "names":
        return written, crafted_names(rng, written)
    names = sorted(written)
    if kind == "documents":
        return written, ["lint", "--select", "PL", "--format",
                         rng.choice(["json", "sarif", "text", "github", "markdown"]), *names]
    if kind == "policy":
        written["policy.yaml"] = policy(rng)
        return written, ["lint", "--select", "PL", "--policy", "policy.yaml", *names]
    if kind == "cel":
        written["policy.yaml"] = cel_policy(rng)
        return written, ["lint", "--policy", "policy.yaml", "--format",
                         rng.choice(["json", "sarif", "text"]), *names]
    return written, command(rng, names)


class Hang(Exception):
    pass


#: how many times a case's CPU budget it may take in wall time (a read that blocks, on a
#: FIFO say, uses no CPU): a loaded machine slows a case, it does not make it hang
WALL_FACTOR = 6


@contextlib.contextmanager
def time_limit(seconds: int):
    """Raises Hang in the case that takes more than ``seconds`` of CPU time, or more than
    WALL_FACTOR times that of wall time."""
    def hang(*_):
        raise Hang()
    previous = {sig: signal.signal(sig, hang) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * WALL_FACTOR)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def materialize(root: Path, written: dict) -> None:
    """A case's files under ``root``: text, bytes, or a Special (a FIFO, a link...)."""
    for name, content in written.items():
        path = root / name
        if isinstance(content, Special):
            content.make(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", errors="surrogatepass")


def check(root: Path, written: dict, args: list[str], seconds: int = 30) -> str | None:
    """Runs one case in ``root`` (in this process); what broke the contract, or None."""
    import sys

    from policylint.cli import run
    written = dict(written)
    stream = written.pop("<stdin>", None) or io.TextIOWrapper(io.BytesIO(b""))
    materialize(root, written)
    links = {name for name in os.listdir(root) if os.path.islink(root / name)}
    present = set(os.listdir(root))
    before = {name: (root / name).read_bytes() for name in os.listdir(root)
              if (root / name).is_file()}
    owners = {name: os.stat(root / name).st_uid for name in before}

    cwd, real_stdin = os.getcwd(), sys.stdin
    os.chdir(root)
    sys.stdin = stream
    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(seconds), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            code = run(args)
    except Hang:
        return f"no answer within {seconds} s"
    except BaseException as exc:  # a traceback: what the contract forbids
        return f"exception {type(exc).__name__}: {str(exc)[:300]}"
    finally:
        os.chdir(cwd)
        sys.stdin = real_stdin
    stdout, stderr = out.getvalue(), err.getvalue()
    if code not in (0, 1, 2):
        return f"exit {code}"
    if any(not os.path.islink(root / name) for name in links):
        return f"replaced a symbolic link: {sorted(links)}"
    if any(os.path.exists(root / n) and os.stat(root / n).st_uid != uid
           for n, uid in owners.items()):
        return "changed a file's owner"
    if "--format" in args and any(c in n for n in written for c in "\x1b\n\r<\u202e:"):
        fmt = args[args.index("--format") + 1]
        if fmt in ("text", "concise", "github", "markdown"):
            broken = _printed_safely(fmt, stdout, stderr)
            if broken:
                return broken
    for name in _positional(args):
        if name in before and "--fix" not in args and "--add-noqa" not in args and \
                os.path.isfile(root / name) and (root / name).read_bytes() != before[name]:
            return f"wrote {name}, an input of the run"
    if code != 2 and "--force" not in args and "NOTES.md" in before and \
            (root / "NOTES.md").read_bytes() != before["NOTES.md"]:
        return "overwrote a file that is not policylint's without --force"
    if "internal error" in stderr or "Traceback" in stdout + stderr:
        return f"internal error: {stderr.strip()[:300]}"
    now = set(os.listdir(root))
    changed = sorted(n for n in before if n in now and (root / n).is_file()
                     and (root / n).read_bytes() != before[n])
    if code == 2:
        if len(stderr.splitlines()) != 1:
            return f"exit 2 without a one-line reason: {stderr[:300]!r}"
        if now - present or changed:
            return f"exit 2 but wrote {sorted(now - present) + changed}"
    asked = {a.split(":", 1)[-1].split("/")[0] for a in args if ":" in a} | \
        {args[i + 1].split("/")[0] for i, a in enumerate(args[:-1])
         if a in ("--write-baseline", "-o")}
    if args[:1] == ["plan"] and "-o" in args:  # its rollback and batches, beside the plan
        stem = os.path.splitext(args[args.index("-o") + 1])[0] + "."
        asked |= {n for n in os.listdir(root) if n.startswith(stem)}
    asked |= {os.path.basename(os.path.realpath(root / a)) for a in asked if a in links}
    if now - present - asked:
        return f"left files it was not asked for: {sorted(now - present - asked)}"
    for name in changed:
        if "--fix" not in args and "--add-noqa" not in args and name not in asked:
            return f"wrote {name} unasked"
        if name not in asked and not _reads_back(before[name], (root / name).read_bytes()):
            return f"--fix wrote {name}, which no longer parses"
    if code != 2 and args.count("--format") == 1 and args[args.index("--format") + 1:][:1] == ["json"]:
        try:
            json.loads(stdout)
        except ValueError:
            return "--format json printed no JSON"
    return None


_VALUED = {"--format", "--fail-on", "--select", "--ignore", "--cluster", "--current",
           "--policy", "--report", "--max-file-size", "--base", "--baseline",
           "--write-baseline", "--reason", "--stdin-filename", "--exclude", "--kafka-version",
           "--max-yaml-values", "-o", "--config", "--add", "--remove", "--replace", "--rf",
           "--topics", "--max-moves-per-broker", "--max-moves", "--batch-size", "--throttle",
           "--log-dirs", "--brokers"}


def _positional(args: list[str]) -> list[str]:
    """The paths a command line lints."""
    found, skip = [], False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in _VALUED:
            skip = True
        elif not arg.startswith("-"):
            found.append(arg)
    return found


def interrupted(rng: random.Random, root: Path) -> str | None:
    """A --fix, --add-noqa, --report or --write-baseline run in a process of its own, sent
    SIGINT or SIGKILL at a random moment: every file is then as it was or as the run
    without a signal leaves it; after SIGINT, exit 130 with one line and no temporary file;
    an exit 0 or 1 only for a run that finished."""
    import shutil
    import subprocess
    import sys
    import time
    written = {f"f{i}.yaml": fixable(rng) for i in range(rng.randrange(1, 4))}
    lines = ["version: 1", "partitions:"] + [  # a plan large enough to interrupt
        f"  - {{topic: t{i % 7}, partition: {i}, replicas: [1, 2]}}"
        for i in range(rng.choice([10, 20000, 60000]))]
    written["plan.yaml"] = "\n".join(lines) + "\n"
    args = ["lint", "--select", "PL", *rng.choice([
        ["--fix"], ["--add-noqa"], ["--report", "json:r.json", "--report", "sarif:r.sarif"],
        ["--write-baseline", "b.json"], ["--fix", "--report", "json:r.json"]]), "."]
    reference, run_in = root / "reference", root / "run"
    for folder in (reference, run_in):
        folder.mkdir()
        for name, text in written.items():
            (folder / name).write_text(text, encoding="utf-8", errors="surrogatepass")
    command = [sys.executable, "-m", "policylint", *args]
    subprocess.run(command, cwd=reference, capture_output=True, timeout=120)
    process = subprocess.Popen(command, cwd=run_in, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    time.sleep(rng.uniform(0.05, 1.5))
    sig = rng.choice([signal.SIGINT, signal.SIGKILL])
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=120)
    code = process.returncode
    for name in sorted(set(os.listdir(reference)) | set(written)):
        now = run_in / name
        old, done = written.get(name), reference / name
        got = now.read_bytes() if now.exists() else None
        wanted = done.read_bytes() if done.exists() else None
        if got not in (None if old is None else old.encode("utf-8", "surrogatepass"), wanted):
            return f"{name} is neither as it was nor as the run leaves it after {sig.name}"
    temporary = [n for n in os.listdir(run_in) if n.startswith(".policylint-")]
    if code == 130:
        if not stderr.decode().strip().splitlines()[-1].startswith("policylint: interrupted"):
            return f"exit 130 without saying so: {stderr[-200:]!r}"
        if temporary:
            return f"left temporary files after SIGINT: {temporary}"
    elif code in (0, 1):
        for name in os.listdir(reference):
            if (reference / name).read_bytes() != (run_in / name).read_bytes():
                return f"exit {code} after {sig.name}, but {name} is not as a whole run leaves it"
    elif code not in (-signal.SIGKILL, -signal.SIGINT):  # SIGINT before Python's handler
        return f"exit {code} after {sig.name}"
    shutil.rmtree(reference, ignore_errors=True)
    shutil.rmtree(run_in, ignore_errors=True)
    return None


def _reads_back(old: bytes, new: bytes) -> bool:
    """A rewritten YAML file parses whenever the original did."""
    import yaml
    try:
        list(yaml.safe_load_all(old))
    except Exception:
        return True
    try:
        list(yaml.safe_load_all(new))
        return True
    except Exception:
        return False


# -- policylint plan: hostile snapshots, describe text, log dirs, flags and targets --------

RACKS = ["a", "b", "c"]


def snapshot_doc(rng: random.Random) -> dict:
    """A cluster of 3 to 7 brokers (racks or not) and a few topics."""
    n = rng.randrange(3, 8)
    racked = rng.random() < 0.8
    brokers = [{"id": b, **({"rack": RACKS[b % 3]} if racked else {})} for b in range(1, n + 1)]
    topics = []
    for t in range(rng.randrange(1, 5)):
        rf = rng.choice([1, 2, 3, 3, n + 1])
        parts = []
        for p in range(rng.randrange(1, 6)):
            replicas = rng.sample(range(1, n + 1), min(rf, n))
            part = {"partition": p, "replicas": replicas,
                    "isr": replicas if rng.random() < 0.8 else replicas[:1]}
            if rng.random() < 0.05:
                part["adding"] = [replicas[0]]
            parts.append(part)
        topics.append({"name": f"t{t}", "partitions": parts,
                       **({"config": {"min.insync.replicas": str(rng.choice([1, 2, 3]))}}
                          if rng.random() < 0.5 else {})})
    return {"kind": "ClusterSnapshot", "version": 1, "cluster": "c", "brokers": brokers,
            "topics": topics, **({"config": {"min.insync.replicas": "2"}}
                                 if rng.random() < 0.5 else {})}


def mutated(rng: random.Random, doc: dict) -> dict:
    """A copy of a snapshot with a wrong value or two, somewhere."""
    doc = json.loads(json.dumps(doc))
    for _ in range(rng.randrange(1, 3)):
        where = rng.choice(list(_dicts(doc)))
        if where:
            where[rng.choice(list(where))] = json.loads(rng.choice(
                ['"x"', "-1", "null", "[]", "{}", "1e999", '"\\ud800"', "[1, 1]"]))
    return doc


def _dicts(value):
    if isinstance(value, dict):
        yield value
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from _dicts(item)


def describe_text(doc: dict) -> str:
    """``kafka-topics.sh --describe`` output of a snapshot."""
    lines = []
    for topic in doc["topics"]:
        lines.append(f"Topic: {topic['name']}\tTopicId: x\tPartitionCount: "
                     f"{len(topic['partitions'])}\tReplicationFactor: 3\tConfigs: ")
        for p in topic["partitions"]:
            lines.append(f"\tTopic: {topic['name']}\tPartition: {p['partition']}\tLeader: "
                         f"{p['replicas'][0] if p['replicas'] else -1}\tReplicas: "
                         f"{','.join(map(str, p['replicas']))}\tIsr: "
                         f"{','.join(map(str, p.get('isr') or []))}")
    return "\n".join(lines) + "\n"


def log_dirs_text(rng: random.Random, doc: dict) -> str:
    brokers = [{"broker": b["id"], "logDirs": [{"logDir": "/d", "partitions": [
        {"partition": f"{t['name']}-{p['partition']}", "size": rng.randrange(10**6),
         "offsetLag": 0, "isFuture": False}
        for t in doc["topics"] for p in t["partitions"]]}]} for b in doc["brokers"]
        if isinstance(b, dict)]
    text = "Querying brokers for log directories information\n" + json.dumps(
        {"version": 1, "brokers": brokers}) + "\n"
    return rng.choice([text, text[:rng.randrange(len(text))], '{"brokers": 3}\n', "\udc88\n"])


def plan_case(rng: random.Random) -> tuple[dict, list[str]]:
    """(files, command line) of one ``policylint plan`` case."""
    doc = snapshot_doc(rng)
    n = len(doc["brokers"])
    written: dict = {}
    roll = rng.random()
    if roll < 0.7:
        text = json.dumps(mutated(rng, doc) if rng.random() < 0.3 else doc, indent=1)
        written["s.json"] = text if rng.random() < 0.9 else text[:rng.randrange(len(text))]
        args = ["plan", "s.json"]
    elif roll < 0.9:
        written["d.txt"] = describe_text(doc)
        args = ["plan", "d.txt", "--brokers", rng.choice(
            [",".join(f"{b}:{RACKS[b % 3]}" for b in range(1, n + 1)), "1,2,3", "x", ""])]
    else:
        written["s.json"] = rng.choice(['{"kind": "ClusterSnapshot"}', "{", "", "\udc88",
                                        '{"topics": "\\udc88"}'])
        args = ["plan", "s.json"]
    flags = [
        lambda: ["--add", rng.choice([f"{n + 1}:a", f"{n + 1}:a,{n + 2}:b,{n + 3}:c", "1",
                                      f"{n + 1}", "x:y", "-3:a"])],
        lambda: ["--remove", rng.choice(["1", "1,2", str(n), "99", ",".join(
            str(b) for b in range(1, n + 1))])],
        lambda: ["--replace", rng.choice([f"1={n + 1}", f"1={n + 1}:b", "1=2", "99=100",
                                          "1=x", "="])],
        lambda: ["--rf", rng.choice(["t0=2", "t0=9", "nope=2", "t0=0", "t0"])],
        lambda: ["--topics", rng.choice(["t*", "t0", "nomatch*", "[", ""])],
        lambda: ["--repair"], lambda: ["--balance-bytes"], lambda: ["--allow-in-flight"],
        lambda: ["--include-under-replicated"],
        lambda: ["--max-moves-per-broker", rng.choice(["1", "3", "0", "-1", "x"])],
        lambda: ["--max-moves", rng.choice(["1", "4", "50", "0", "x"])],
        lambda: ["--batch-size", rng.choice(["1", "2", "0"])],
        lambda: ["--throttle", rng.choice(["50M", "1", "fast", "0", "9" * 30])],
        lambda: ["--log-dirs", "ld.txt"],
    ]
    for flag in rng.sample(flags, rng.randrange(len(flags) // 2)):
        args += flag()
    if "--log-dirs" in args:
        written["ld.txt"] = log_dirs_text(rng, doc)
    if rng.random() < 0.3:
        written["policy.yaml"] = rng.choice(["allow: {rf_change: [t0]}\n", policy(rng)])
        args += ["--policy", "policy.yaml"]
    target = rng.choice([None, "out.json", "out.json", "NOTES.md", "missing/out.json", ".",
                         "/dev/null"])
    if target == "NOTES.md":
        written["NOTES.md"] = "# ours\n"
    if target is not None:
        args += ["-o", target]
    if rng.random() < 0.3:
        written["out.batch-7.json"] = '{"version":1,"partitions":[]}\n'  # an earlier run's
        args.append("--force")
    return written, args


def check_plan(root: Path, written: dict, args: list[str], seconds: int = 30) -> str | None:
    """The contract of ``policylint plan``: that of every command (``check``), no stale
    batch of an earlier run beside a plan it writes, and a plan it writes lints clean
    against its snapshot."""
    problem = check(root, written, args, seconds)
    if problem or "-o" not in args:
        return problem
    out = root / args[args.index("-o") + 1]
    if not out.is_file() or out.name != "out.json" or "s.json" not in written:
        return None
    if out.read_text() == (written.get("out.json") or ""):
        return None
    if (root / "out.batch-7.json").exists() and not (root / "out.batch-2.json").exists() \
            and (root / "out.batch-7.json").read_text() == written.get("out.batch-7.json"):
        return "left the batch of an earlier run beside the plan"
    from policylint.linter import lint
    # the cluster as it will be: the brokers --add and --replace bring in, with their racks
    snapshot = json.loads(written["s.json"])
    joining = [item for flag, value in zip(args, args[1:]) if flag in ("--add", "--replace")
               for item in value.split(",")]
    known = {b["id"]: b.get("rack") for b in snapshot["brokers"]}
    for item in joining:
        new = item.split("=")[-1]
        broker, _, rack = new.partition(":")
        old = item.split("=")[0] if "=" in item else None
        rack = rack or (known.get(int(old)) if old and old.isdigit() else None)
        if broker.isdigit() and int(broker) not in known:
            snapshot["brokers"].append({"id": int(broker), **({"rack": rack} if rack else {})})
            known[int(broker)] = rack
    (root / "future.json").write_text(json.dumps(snapshot))
    cwd = os.getcwd()
    os.chdir(root)
    try:
        result = lint(["out.json"], cluster="future.json", select=["PL"], baseline="",
                      allow_rf_change="--rf" in args)
    finally:
        os.chdir(cwd)
    errors = [f for f in result.findings if f.severity == "error" and not f.suppressed
              and f.rule != "PL306" and not (f.rule == "PL110")]
    if errors and "--policy" not in args:
        return f"wrote a plan lint refuses: {errors[0].rule} {errors[0].message[:200]}"
    return None


# -- policylint server: hostile workspaces and edits ----------------------------------------

def server_case(rng: random.Random) -> tuple[dict, list[tuple[str, str]]]:
    """(workspace files, edits: (file, text) the editor sends) of one server case."""
    written: dict = dict(files(rng))
    doc = snapshot_doc(rng)
    written["snap.json"] = json.dumps(doc)
    if rng.random() < 0.3:
        written["link.yaml"] = Special("link", rng.choice(["snap.json", "missing", "."]))
    if rng.random() < 0.2:
        written["fifo.yaml"] = Special("fifo")
    if rng.random() < 0.2:
        written["loop"] = Special("link", "loop")
    if rng.random() < 0.3:
        written[".policylint.yaml"] = rng.choice([policy(rng), cel_policy(rng), "{{"])
    names = sorted(n for n in written if not isinstance(written[n], Special))
    edits = [(rng.choice(names + ["new.yaml"]), rng.choice(
        [manifest(rng), plan(rng), "", "\udc88", "{" * 600, describe_text(doc)]))
        for _ in range(rng.randrange(1, 5))]
    return written, edits


def check_server(root: Path, written: dict, edits: list, seconds: int = 30) -> str | None:
    """The server's contract: whatever the workspace holds and whatever is typed, each edit
    is answered (findings, or a one-line message for a problem of the call itself), in
    time, and the server goes on."""
    from policylint.server.workspace import Workspace
    materialize(root, written)

    cwd = os.getcwd()
    os.chdir(root)
    try:
        with time_limit(seconds):
            space = Workspace([str(root)])
            space.scan()
            for name, text in edits:
                try:
                    space.lint(str(root / name), {str(root / name): text})
                except Exception as exc:  # shown to the user as a message: the call's own
                    if type(exc).__name__ not in ("PolicyError", "InputError",
                                                  "BaselineError", "RegistryError"):
                        return f"edit of {name}: {type(exc).__name__}: {str(exc)[:300]}"
                    if "\n" in str(exc).strip():
                        return f"a message of more than one line: {str(exc)[:300]!r}"
    except Hang:
        return f"no answer within {seconds} s"
    except BaseException as exc:
        return f"exception {type(exc).__name__}: {str(exc)[:300]}"
    finally:
        os.chdir(cwd)
    return None
