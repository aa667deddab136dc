"""Every topic format through one door: what each reads, where its findings point, and how
template placeholders, broken fields, templates and standard input are taken.

The files below are written for these tests in the shapes each tool documents; none is
copied from a repository."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from policylint.linter import lint
from policylint.sources import formats
from policylint.sources.loader import read_inputs

from conftest import BUILT_IN, write_files


def topics_of(tmp_path, files):
    write_files(tmp_path, {name: textwrap.dedent(text) for name, text in files.items()})
    inputs = read_inputs([str(tmp_path / name) for name in sorted(files)])
    return inputs, {t.name: t for t in inputs.manifests}


def line_of(topic, field):
    doc, path = topic.where(field)
    return doc.locate(path)[0]


# (format, files, topic name, RF, partitions, config, cluster, line of the RF)
FORMATS = [
    ("Confluent for Kubernetes KafkaTopic", {"t.yaml": """\
        apiVersion: platform.confluent.io/v1beta1
        kind: KafkaTopic
        metadata: {name: orders-topic, namespace: confluent}
        spec:
          name: orders
          replicas: 3
          partitionCount: 12
          configs: {min.insync.replicas: "2"}
          kafkaClusterRef: {name: kafka}
        """}, "orders", 3, 12, {"min.insync.replicas": "2"}, "kafka", 6),
    ("Confluent blueprint KafkaTopic", {"t.yaml": """\
        apiVersion: apps.cpc.platform.confluent.io/v1beta1
        kind: KafkaTopic
        metadata: {name: clicks}
        spec:
          kafkaClusterRefs: [{name: kafka-eu}]
          parameters: {replicationFactor: 3, partitions: 6}
        """}, "clicks", 3, 6, {}, "kafka-eu", 6),
    ("Jikkou KafkaTopic (-1 is the broker default)", {"t.yaml": """\
        apiVersion: kafka.jikkou.io/v1beta2
        kind: KafkaTopic
        metadata: {name: payments}
        spec:
          partitions: -1
          replicas: 3
          configs: {cleanup.policy: compact}
        """}, "payments", 3, None, {"cleanup.policy": "compact"}, None, 6),
    ("Koperator KafkaTopic", {"t.yaml": """\
        apiVersion: kafka.banzaicloud.io/v1alpha1
        kind: KafkaTopic
        metadata: {name: audit-topic, namespace: kafka}
        spec:
          name: audit
          partitions: 6
          replicationFactor: 2
          clusterRef: {name: kafka}
          config: {"retention.ms": "86400000"}
        """}, "audit", 2, 6, {"retention.ms": "86400000"}, "kafka", 7),
    ("Aiven KafkaTopic (snake_case keys)", {"t.yaml": """\
        apiVersion: aiven.io/v1alpha1
        kind: KafkaTopic
        metadata: {name: events-resource}
        spec:
          project: acme
          serviceName: acme-kafka
          topicName: events
          replication: 3
          partitions: 4
          config: {min_insync_replicas: 2}
        """}, "events", 3, 4, {"min.insync.replicas": 2}, "acme-kafka", 8),
    ("Conduktor Topic", {"t.yaml": """\
        apiVersion: kafka/v2
        kind: Topic
        metadata: {name: invoices, cluster: billing}
        spec:
          partitions: 3
          replicationFactor: 3
          configs: {min.insync.replicas: "2"}
        """}, "invoices", 3, 3, {"min.insync.replicas": "2"}, "billing", 6),
    ("topicctl topic (retentionMinutes as retention.ms)", {"t.yaml": """\
        meta:
          name: shipments
          cluster: eu-cluster
        spec:
          partitions: 2
          replicationFactor: 2
          retentionMinutes: 60
          settings: {cleanup.policy: delete}
        """}, "shipments", 2, 2, {"cleanup.policy": "delete", "retention.ms": 3600000},
     "eu-cluster", 6),
    ("JulieOps topology (JulieOps names the topic)", {"t.yaml": """\
        context: acme
        company: shop
        projects:
          - name: billing
            topics:
              - name: invoices
                dataType: avro
                config:
                  replication.factor: "3"
                  num.partitions: "6"
                  retention.ms: "1000"
        """}, "acme.shop.billing.invoices.avro", 3, 6, {"retention.ms": "1000"}, None, 9),
    ("kafka-gitops state (RF from the settings' default)", {"t.yaml": """\
        settings:
          topics:
            defaults: {replication: 3}
        topics:
          refunds:
            partitions: 6
            configs: {cleanup.policy: compact}
        """}, "refunds", 3, 6, {"cleanup.policy": "compact"}, None, 3),
]


@pytest.mark.parametrize("what,files,name,rf,partitions,config,cluster,rf_line", FORMATS,
                         ids=[f[0] for f in FORMATS])
def test_each_format_reads_its_topics(tmp_path, what, files, name, rf, partitions, config,
                                      cluster, rf_line):
    inputs, topics = topics_of(tmp_path, files)
    assert not inputs.findings and not inputs.skipped
    topic = topics[name]
    assert (topic.rf, topic.partitions, topic.config, topic.cluster) == \
        (rf, partitions, config, cluster)
    assert line_of(topic, "rf") == rf_line
    assert topic.unknown == frozenset()


def test_aiven_keys_are_kafkas_located_as_written(tmp_path):
    write_files(tmp_path, {"t.yaml": textwrap.dedent("""\
        apiVersion: aiven.io/v1alpha1
        kind: KafkaTopic
        metadata: {name: events}
        spec:
          replication: 3
          partitions: 4
          config:
            cleanup_policy: delete
            retention_mss: 1000
          project: p
          serviceName: kafka
        """)})
    found = [(f.rule, f.line, f.column) for f in
             lint([str(tmp_path / "t.yaml")], select=["PL601"]).findings]
    assert found == [("PL601", 9, 5)]


def test_jikkou_configmap_refs_are_resolved_and_located_at_the_ref(tmp_path):
    write_files(tmp_path, {"topics.yaml": textwrap.dedent("""\
        apiVersion: kafka.jikkou.io/v1beta2
        kind: KafkaTopicList
        items:
          - metadata: {name: a}
            spec:
              partitions: 3
              replicas: 3
              configMapRefs: [strict]
          - metadata: {name: b}
            spec:
              partitions: 3
              replicas: 3
              configMapRefs: [strict]
              configs: {min.insync.replicas: 2}
        ---
        apiVersion: core.jikkou.io/v1beta2
        kind: ConfigMap
        metadata: {name: strict}
        data: {min.insync.replicas: 3}
        """)})
    result = lint([str(tmp_path / "topics.yaml")], select=["PL302", "PL303"])
    # a: minISR 3 from the ConfigMap, at its ref; b: its own 2 wins
    assert [(f.rule, f.topic, f.line) for f in result.findings] == [("PL302", "a", 8)]


def test_topicctl_static_assignments_are_replica_lists(tmp_path):
    write_files(tmp_path, {"cluster.yaml": textwrap.dedent("""\
        meta: {name: eu}
        spec: {bootstrapAddrs: ["kafka:9092"]}
        """), "topics/t.yaml": textwrap.dedent("""\
        meta: {name: moves, cluster: eu}
        spec:
          partitions: 2
          replicationFactor: 2
          placement:
            strategy: static
            staticAssignments:
              - [1, 1]
              - [2, 3]
        """)})
    result = lint([str(tmp_path)], select=["PL112"])
    assert [(f.rule, f.line) for f in result.findings] == [("PL112", 8)]


def test_cfk_kafka_is_a_cluster_its_topics_find(tmp_path):
    write_files(tmp_path, {"kafka.yaml": textwrap.dedent("""\
        apiVersion: platform.confluent.io/v1beta1
        kind: Kafka
        metadata: {name: kafka, namespace: confluent}
        spec:
          replicas: 2
          image: {application: "confluentinc/cp-server:7.9.0"}
          configOverrides:
            server: ["min.insync.replicas=2"]
        """), "topic.yaml": textwrap.dedent("""\
        apiVersion: platform.confluent.io/v1beta1
        kind: KafkaTopic
        metadata: {name: orders, namespace: confluent}
        spec: {replicas: 3, partitionCount: 3, kafkaClusterRef: {name: kafka}}
        """)})
    inputs = read_inputs([str(tmp_path)])
    (cluster,) = [g.cluster for g in inputs.groups if g.manifests]
    assert cluster.profile.broker_count == 2 and cluster.profile.kafka_version == "3.9"
    assert cluster.profile.config == {"min.insync.replicas": "2"}
    result = lint([str(tmp_path)], select=["PL203", "PL303"])
    # RF 3 on 2 brokers; the cluster's minISR 2 is no PL303
    assert [(f.rule, f.file.rsplit("/", 1)[-1]) for f in result.findings] == \
        [("PL203", "topic.yaml")]


def test_placeholders_are_unknown_not_schema_violations(tmp_path):
    write_files(tmp_path, {"kafka.yaml": textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: Kafka
        metadata: {name: prod}
        spec:
          kafka:
            replicas: 3
            config:
              min.insync.replicas: ${KAFKA_MIN_INSYNC_REPLICAS}
        """), "topics.yaml": textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata: {name: a, labels: {strimzi.io/cluster: prod}}
        spec: {replicas: 3, partitions: "{{ .Values.partitions }}"}
        ---
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata: {name: b, labels: {strimzi.io/cluster: prod}}
        spec: {replicas: 4, config: {min.insync.replicas: 2}}
        """)})
    result = lint([str(tmp_path)], select=BUILT_IN)
    found = [(f.rule, f.topic) for f in result.findings]
    assert not [r for r, _ in found if r in ("PL100", "PL101")]
    # the cluster kept its brokers: b's RF 4 is more than its 3; a's minISR is unknown
    assert ("PL203", "b") in found
    assert ("PL303", "a") not in found
    assert result.unchecked.get("PL303") == 1  # a, whose minISR the cluster leaves unknown


def test_one_broken_field_leaves_the_rest_judged(tmp_path):
    write_files(tmp_path, {"t.yaml": textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata: {name: orders}
        spec:
          replicas: 3
          affinity: {nodeAffinity: {}}
          config: {min.insync.replicas: 3}
        """)})
    result = lint([str(tmp_path / "t.yaml")], select=BUILT_IN)
    assert sorted((f.rule, f.line) for f in result.findings) == [("PL101", 6), ("PL302", 7)]


def test_a_pl303_on_a_known_cluster_does_not_ask_for_one(tmp_path):
    write_files(tmp_path, {"kafka.yaml": textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: Kafka
        metadata: {name: prod}
        spec: {kafka: {replicas: 3}}
        """), "t.yaml": textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata: {name: orders, labels: {strimzi.io/cluster: prod}}
        spec: {replicas: 3}
        """)})
    (finding,) = lint([str(tmp_path)], select=["PL303"]).findings
    assert "Kafka's default 1: cluster prod does not set min.insync.replicas" in finding.message
    assert "--cluster" not in finding.message
    assert finding.file.endswith("/kafka.yaml") and finding.topic is None
    assert [s["topic"] for s in finding.subjects] == ["orders"]


HELM = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: {{ .Values.topic }}
{{- if .Values.partitions }}
spec:
  partitions: {{ .Values.partitions }}
{{- end }}
"""


def test_helm_templates_are_skipped_in_a_walk_and_reported_when_named(tmp_path):
    write_files(tmp_path, {"chart/templates/topic.yaml": HELM, "chart/Chart.yaml": "name: x\n"})
    walked = lint([str(tmp_path / "chart")], select=BUILT_IN)
    assert not walked.findings
    assert [why.split(" (")[0] for name, why in walked.skipped if name.endswith("topic.yaml")] \
        == ["a template"]
    named = lint([str(tmp_path / "chart/templates/topic.yaml")], select=BUILT_IN)
    assert [f.rule for f in named.findings] == ["PL100"]
    assert "a template" in named.findings[0].message


def test_tpl_files_are_walked(tmp_path):
    write_files(tmp_path, {"k8s/topic.yaml.tpl": textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata:
          name: ${topic}
        spec: {replicas: 1, partitions: 3}
        """)})
    result = lint([str(tmp_path)], select=["PL209", "PL101"])
    assert [(f.rule, f.file.rsplit("/", 1)[-1]) for f in result.findings] == \
        [("PL209", "topic.yaml.tpl")]


def run(*args, stdin=""):
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", *args],
                          input=stdin, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def test_standard_input_is_read_and_named(tmp_path):
    rendered = textwrap.dedent("""\
        apiVersion: kafka.strimzi.io/v1beta2
        kind: KafkaTopic
        metadata: {name: orders}
        spec: {replicas: 3, config: {min.insync.replicas: 4}}
        """)
    code, out, _ = run("-", "--stdin-filename", "rendered/prod.yaml", "--format", "json",
                       "--select", "PL301", stdin=rendered)
    assert code == 1
    (finding,) = json.loads(out)["findings"]
    assert (finding["file"], finding["line"]) == ("rendered/prod.yaml", 4)


def test_a_run_that_reads_nothing_says_so(tmp_path):
    write_files(tmp_path, {"values.yaml": "replicaCount: 1\n"})
    code, out, err = run(str(tmp_path), "--format", "json")
    assert code == 0
    assert "no Kafka topic declaration" in err
    summary = json.loads(out)["summary"]
    assert summary["files"] == 0
    assert summary["skipped"][0]["reason"] == "none of policylint's kinds"


def test_text_never_says_problems_in_0_files(tmp_path):
    write_files(tmp_path, {"values.yaml": "replicaCount: 1\n", ".policylint.yaml": (
        "exemptions:\n  - {rule: PL401, topics: [x], reason: old, expires: 2020-01-01}\n")})
    done = subprocess.run([sys.executable, "-m", "policylint", "lint", "values.yaml"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert "in 0 files" not in done.stdout


def test_every_built_in_format_comes_through_the_door():
    kinds = {kind for module in formats.registered() for kind in module.KINDS}
    assert {"strimzi-topic", "cfk-topic", "cfk-kafka", "jikkou-topic", "koperator-topic",
            "aiven-topic", "conduktor-topic", "topicctl-topic", "topicctl-cluster",
            "julieops-topology", "kafka-gitops-state", "snapshot", "reassignment"} <= kinds


DESCRIBE = (
    "$ kafka-topics.sh --bootstrap-server kafka:9092 --describe --topic orders\n"
    "Topic: orders\tTopicId: Xq1\tPartitionCount: 2\tReplicationFactor: 3\t"
    "Configs: min.insync.replicas=2,cleanup.policy=delete\n"
    "\tTopic: orders\tPartition: 0\tLeader: 1\tReplicas: 1,2,3\tIsr: 1,2\tElr: N/A\t"
    "LastKnownElr: N/A\n"
    "\tTopic: orders\tPartition: 1\tLeader: 2\tReplicas: 2,3,1,4\tIsr: 2,3,1,4\t"
    "Adding Replicas: 4\tRemoving Replicas: 1\tElr: N/A\tLastKnownElr: N/A\n")


def test_kafka_topics_describe_output_is_a_snapshot(tmp_path):
    write_files(tmp_path, {"before.txt": DESCRIBE})
    result = lint([str(tmp_path / "before.txt")], select=["PL307", "PL306", "PL101", "PL100"])
    # partition 0 lags (1,2,3 with ISR 1,2), at its line, the Isr column
    assert [(f.rule, f.partition, f.line) for f in result.findings] == [("PL307", 0, 3)]


def test_kafka_topics_describe_output_as_cluster_and_current(tmp_path):
    plan = {"version": 1, "partitions": [
        {"topic": "orders", "partition": 0, "replicas": [1, 2]},
        {"topic": "orders", "partition": 1, "replicas": [2, 3, 4]}]}
    write_files(tmp_path, {"before.txt": DESCRIBE, "plan.json": json.dumps(plan)})
    for context in ({"cluster": str(tmp_path / "before.txt")},
                    {"current": str(tmp_path / "before.txt")}):
        result = lint([str(tmp_path / "plan.json")], select=["PL201"], **context)
        # 3 -> 2; partition 1 is reassigning to 2,3,4 (RF 3): the same RF
        assert [(f.rule, f.partition) for f in result.findings] == [("PL201", 0)], context


def test_describe_output_that_is_not_is_a_parse_error(tmp_path):
    write_files(tmp_path, {"bad.txt": "Topic: a\tPartitionCount: 1\tReplicationFactor: 1\n"
                                      "\tTopic: a\tPartition: 0\tLeader: 1\tReplicas: 1,x\t"
                                      "Isr: 1\n"})
    (finding,) = lint([str(tmp_path / "bad.txt")], select=BUILT_IN).findings
    assert (finding.rule, finding.line) == ("PL100", 2)


# --- Terraform -----------------------------------------------------------------------------

def test_terraform_module_fed_by_jsondecode_file(tmp_path):
    """Confluent's "manage topics via JSON": a local module's for_each over its variable,
    which the calling module fills with jsondecode(file("topics.json"))."""
    write_files(tmp_path, {
        "main.tf": textwrap.dedent("""\
            module "topics" {
              source = "./topics_module"
              topics = jsondecode(file("topics.json"))
            }
            """),
        "topics.json": json.dumps({"orders": {"partitions_count": 6, "config": {
            "cleanup.policy": "compact", "retention.ms": "1000"}},
            "clicks": {"partitions_count": None, "config": None}}),
        "topics_module/main.tf": textwrap.dedent("""\
            resource "confluent_kafka_topic" "main" {
              for_each         = var.topics
              topic_name       = each.key
              partitions_count = each.value.partitions_count
              config           = each.value.config
            }
            """)})
    inputs = read_inputs([str(tmp_path)])
    topics = {t.name: t for t in inputs.manifests}
    assert set(topics) == {"orders", "clicks"}
    assert (topics["orders"].partitions, topics["orders"].config) == \
        (6, {"cleanup.policy": "compact", "retention.ms": "1000"})
    # addressed as Terraform addresses it, through its module's call
    assert topics["orders"].origin == 'module.topics.confluent_kafka_topic.main["orders"]'
    result = lint([str(tmp_path)], select=["PL604"])
    (finding,) = result.findings
    assert finding.line == 5 and \
        'module.topics.confluent_kafka_topic.main["orders"]' in finding.message


def test_a_terraform_module_called_twice_declares_its_topics_twice_each_in_its_scope(
        tmp_path):
    """Two environments' calls of one module: each call's topics, named by its variables,
    addressed module.NAME..., placed with the cluster of the call's directory."""
    module = 'module "topics" {{\n  source = "../../modules/topics"\n  env = "{0}"\n}}\n'
    snapshot = ('{{"kind": "ClusterSnapshot", "version": 1, "cluster": "{0}", "brokers": '
                '[{{"id": 1}}{1}], "config": {{"min.insync.replicas": "2"}}}}')
    write_files(tmp_path, {
        "envs/dev/main.tf": module.format("dev"), "envs/prod/main.tf": module.format("prod"),
        "envs/dev/cluster.json": snapshot.format("dev", ""),
        "envs/prod/cluster.json": snapshot.format("prod", ', {"id": 2}, {"id": 3}'),
        "modules/topics/main.tf": textwrap.dedent("""\
            variable "env" {}
            resource "kafka_topic" "orders" {
              name               = "orders-${var.env}"
              replication_factor = 3
              partitions         = 6
            }
            """)})
    inputs = read_inputs([str(tmp_path)])
    # each named by its call, as two root modules call it by one name
    assert sorted((t.name, t.origin.rsplit("/", 3)[0].rpartition(" ")[0] + " " +
                   "/".join(t.origin.rsplit("/", 3)[1:])) for t in inputs.manifests) == [
        ("orders-dev", "module.topics.kafka_topic.orders, called from envs/dev/main.tf"),
        ("orders-prod", "module.topics.kafka_topic.orders, called from envs/prod/main.tf")]
    found = lint([str(tmp_path)], select=["PL203"]).findings  # RF 3 on dev's one broker
    assert [(f.topic, f.line) for f in found] == [("orders-dev", 4)]


def test_terraform_root_modules_in_subfolders_are_read_from_the_repository_root(
        tmp_path, monkeypatch):
    """Environments as root modules in subfolders, each calling a shared module with topics
    read from its own YAML (yamldecode(file("${path.module}/..."))): linted from the
    repository root, each call's topics are read, evaluated in its own module (path.module
    and file() as Terraform has them where it runs: in the root module)."""
    call = textwrap.dedent("""\
        locals {
          requests = yamldecode(file("${path.module}/topic_requests.yaml"))["topics"]
        }
        module "topics" {
          source = "../../modules/topics"
          topics = local.requests
        }
        """)
    requests = ("topics:\n  - {{request_id: r1, name: {0}, partitions: 3, "
                "replication_factor: {1}}}\n")
    write_files(tmp_path, {
        "envs/prod/main.tf": call, "envs/prod/topic_requests.yaml": requests.format("orders", 3),
        "envs/dev/main.tf": call, "envs/dev/topic_requests.yaml": requests.format("orders-dev", 1),
        "modules/topics/main.tf": textwrap.dedent("""\
            variable "topics" {}
            resource "kafka_topic" "this" {
              for_each           = { for t in var.topics : t.request_id => t }
              name               = each.value.name
              partitions         = each.value.partitions
              replication_factor = each.value.replication_factor
            }
            """)})
    monkeypatch.chdir(tmp_path)
    topics = sorted((t.name, t.rf, t.origin) for t in read_inputs(["."]).manifests)
    assert topics == [
        ("orders", 3, 'module.topics.kafka_topic.this["r1"], called from envs/prod/main.tf'),
        ("orders-dev", 1,
         'module.topics.kafka_topic.this["r1"], called from envs/dev/main.tf')]
    found = lint(["."], select=["PL209"]).findings
    assert [(f.file, f.line, f.topic) for f in found] == [("modules/topics/main.tf", 6,
                                                          "orders-dev")]


def test_terraform_modules_that_feed_each_other_go_round_no_further(tmp_path):
    """Modules calling each other (Terraform refuses it) leave a for_each unknown, and
    a module argument that is a caller's local is evaluated where the caller is."""
    call = 'module "m" {{\n  source = "../{0}"\n  topics = {1}\n}}\n'
    write_files(tmp_path, {
        "a/main.tf": call.format("b", "var.topics") + textwrap.dedent("""\
            resource "kafka_topic" "t" {
              for_each           = var.topics
              name               = each.key
              partitions         = 1
              replication_factor = 1
            }
            """),
        "b/main.tf": call.format("a", "var.topics")})
    # one instance of unknown name, judged on its literal values (RF 1 is PL209's)
    assert [(f.rule, f.topic) for f in lint([str(tmp_path)], select=BUILT_IN).findings] == \
        [("PL209", "${each.key}")]
    write_files(tmp_path, {"b/main.tf": call.format("a", "local.mine")
                           + 'locals {\n  mine = { orders = {} }\n}\n'})
    assert [t.name for t in read_inputs([str(tmp_path)]).manifests] == ["orders"]


def test_terraform_values_it_cannot_evaluate_are_unknown(tmp_path):
    write_files(tmp_path, {"main.tf": textwrap.dedent("""\
        resource "kafka_topic" "t" {
          name               = "orders-${var.env}"
          partitions         = local.partitions
          replication_factor = 3
          config             = var.config
        }
        resource "kafka_topic" "all" {
          for_each           = var.topics
          name               = each.key
          partitions         = 3
          replication_factor = 1
        }
        """)})
    inputs = read_inputs([str(tmp_path / "main.tf")])
    assert not inputs.findings  # no PL101 for an expression
    # a for_each over an unknown map: one instance, its name unknown, its literals judged
    topic, each = inputs.manifests
    assert topic.unknown >= {"name", "partitions", "config"} and topic.rf == 3
    assert each.unknown == {"name"} and (each.rf, each.partitions) == (1, 3)
    assert each.origin == "kafka_topic.all[*]"


def test_terraform_is_imported_only_for_tf_files(tmp_path):
    write_files(tmp_path, {"t.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaTopic\n"
                                     "metadata: {name: t}\n"})
    code = ("import sys; from policylint.linter import lint; lint([sys.argv[1]]); "
            "print('hcl2' in sys.modules, 'lark' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t.yaml")],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]


def test_tf_files_without_topics_are_not_parsed(tmp_path):
    """A repository's other .tf files (clusters, networks) cost no HCL parse, even broken."""
    write_files(tmp_path, {"msk.tf": 'resource "aws_msk_cluster" "m" {\n  cluster_name = "x"\n',
                           "net.tf": 'resource "aws_vpc" "v" {\n  cidr_block = "10.0.0.0/16"\n}\n'})
    code = ("import sys; from policylint.linter import lint; r = lint(sys.argv[1:]); "
            "print(*[f.rule for f in r.findings], 'hcl2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)],
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]  # no finding: walks skip files of no known kind
    # a module call or a topic resource is parsed, and its broken HCL reported
    write_files(tmp_path, {"msk.tf": 'module "topics" {\n  source = "./topics"\n'})
    assert [f.rule for f in lint([str(tmp_path / "msk.tf")], select=BUILT_IN).findings] \
        == ["PL100"]


@pytest.mark.parametrize("text", [
    "resource \"kafka_topic\" \"t\" {\n  partitions = " + "[" * 3000 + "]" * 3000 + "\n}\n",
    "resource \"kafka_topic\" \"t\" {\n  partitions = " + "9" * 5000 + "\n}\n",
    "resource \"kafka_topic\" {{{\n",
    "\x00\x01 = =",
])
def test_hostile_hcl_is_a_finding(tmp_path, text):
    write_files(tmp_path, {"main.tf": text})
    result = lint([str(tmp_path / "main.tf")], select=BUILT_IN)
    # no Kafka word: not parsed, of no known kind
    assert [f.rule for f in result.findings] in (["PL100"], ["PL101"], [], ["PL102"])


def test_terraform_plan_changes_and_summary(tmp_path):
    plan = (Path(__file__).parent / "data" / "terraform-plan.json").read_text()
    write_files(tmp_path, {"plan.json": plan})
    result = lint([str(tmp_path / "plan.json")], select=BUILT_IN)
    found = {(f.rule, f.topic) for f in result.findings}
    assert {("PL211", "orders"), ("PL202", "payments"), ("PL210", "payments"),
            ("PL208", "audit"), ("PL608", "clicks")} <= found
    assert ("PL206", "orders") not in found  # a replacement is PL211's, said once


def test_a_plan_change_with_neither_side_readable_is_no_change(tmp_path):
    """Fuzzing found it: a resource change whose before and after both broke the schema."""
    write_files(tmp_path, {"plan.json": json.dumps({"format_version": "1.2", "resource_changes": [
        {"address": "kafka_topic.t", "mode": "managed", "type": "kafka_topic", "name": "t",
         "change": {"actions": ["update"], "before": [], "after": 1}}]})})
    result = lint([str(tmp_path / "plan.json")], select=BUILT_IN)
    assert {f.rule for f in result.findings} == {"PL101"}


def test_a_run_that_reads_nothing_and_fails_says_only_why(tmp_path):
    """Fuzzing found it: the "read nothing" warning came before an exit 2's one line."""
    code, out, err = run(str(tmp_path), "--report", f"sarif:{tmp_path}/missing/x.sarif")
    assert code == 2 and err.count("\n") == 1 and "--report" in err


def test_an_unknown_terraform_value_says_which_expression_at_its_line(tmp_path, monkeypatch):
    """What policylint cannot evaluate is said, where it is written, with how to give it
    (a plan's JSON), not as a template placeholder."""
    from policylint.linter import lint
    (tmp_path / "main.tf").write_text(
        'resource "kafka_topic" "t" {\n  name               = "orders"\n'
        '  partitions         = 3\n  replication_factor = sum([0, 1])\n}\n')
    monkeypatch.chdir(tmp_path)
    [subject] = [s for s in lint(["."]).unchecked_subjects if s["rule"] == "PL209"]
    assert subject["line"] == 4 and subject["needs"] == (
        "a value for rf (a Terraform expression policylint cannot evaluate `${sum([0, 1])}`: "
        "lint the JSON of `terraform show -json` of a plan)")
