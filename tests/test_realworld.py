"""Real repositories, read as they are: the corpus in tests/realworld (see its README), and
each way a first run on a real repository used to fail."""

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from policylint.cli import app
from policylint.linter import lint

from conftest import BUILT_IN, write_files

CORPUS = Path(__file__).parent / "realworld"


@pytest.fixture
def corpus(tmp_path, monkeypatch):
    shutil.copytree(CORPUS, tmp_path, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def found(result, *codes):
    return sorted((f.rule, f.file, f.line) for f in result.findings
                  if not codes or f.rule in codes)


def messages(result, code):
    return [f.message for f in result.findings if f.rule == code]


def test_two_clusters_each_topic_against_its_own(corpus):
    """1 and 3: `lint .` on one directory per cluster, pools in files of their own: no exit
    2, each topic against its own cluster's broker count (a v1beta2 Kafka with node pools
    counts its pools, not spec.kafka.replicas)."""
    result = lint(["gitops"], select=BUILT_IN)
    assert found(result, "PL203", "PL118") == [
        ("PL118", "gitops/clusters/prod/topics/typo.yaml", 6),
        ("PL203", "gitops/clusters/dev/topics/orders.yaml", 9),
        ("PL203", "gitops/clusters/prod/topics/payments.yaml", 9)]
    assert messages(result, "PL203") == [
        "topic orders: replication factor 3 is larger than the 1 broker of cluster dev "
        "(gitops/clusters/dev/kafka.yaml)",
        "topic payments: replication factor 4 is larger than the 3 brokers of cluster prod "
        "(gitops/clusters/prod/kafka.yaml)"]
    assert result.unchecked.get("PL118") == 1
    assert not found(result, "PL111", "PL119", "PL121")  # 7: a plan beside its rollback


def test_a_cluster_file_with_its_node_pools_among_the_linted_files(corpus):
    """2: the pools of a --cluster file that is also walked are counted once."""
    write_files(corpus, {"c/cluster.yaml": (CORPUS / "gitops/clusters/prod/kafka.yaml")
                         .read_text() + "---\n" +
                         (CORPUS / "gitops/clusters/prod/pool-brokers.yaml").read_text(),
                         "c/topic.yaml": "apiVersion: kafka.strimzi.io/v1\nkind: KafkaTopic\n"
                                         "metadata: {name: t, labels: {strimzi.io/cluster: "
                                         "prod}}\nspec: {partitions: 1, replicas: 4}\n"})
    result = lint(["c"], cluster="c/cluster.yaml", select=["PL203"])
    assert messages(result, "PL203") == [
        "topic t: replication factor 4 is larger than the 3 brokers of cluster prod "
        "(c/cluster.yaml)"]


def test_a_v1_kafka_without_its_pools_is_said_and_unchecked(corpus):
    """3: a v1 Kafka without pools: PL119, and PL203 counted unchecked, not silently
    skipped."""
    result = lint(["gitops/clusters/prod/kafka.yaml", "gitops/clusters/prod/topics"],
                  select=BUILT_IN)
    assert found(result, "PL119", "PL203") == [
        ("PL119", "gitops/clusters/prod/kafka.yaml", 4)]
    assert result.unchecked.get("PL203") == 2  # typo.yaml is PL118's


@pytest.mark.parametrize("current", ["kafka-tools/generate-output.json",
                                     "kafka-tools/generate-output-docs.txt",
                                     "kafka-tools/execute-output.txt"])
def test_the_tools_whole_output_as_current(corpus, current):
    """4: --current with the tool's output, on one line or pretty-printed, prose and all."""
    write_files(corpus, {"grow.json": '{"version": 1, "partitions": [{"topic": "foo1", '
                                      '"partition": 1, "replicas": [1, 3, 4]}]}'})
    result = lint(["grow.json"], current=current, select=["PL201"])
    assert messages(result, "PL201") == [
        "partition foo1-1: replication factor is changed from 2 to 3 (current RF from the "
        "current assignment; if intended, allow it with allow.rf_change in the policy or "
        "--allow-rf-change)"]


def test_the_proposed_part_of_saved_generate_output_is_linted(corpus):
    """4: the "Proposed" JSON of a saved --generate output is a plan, checked against the
    "Current" JSON beside it, at its place in the file."""
    result = lint(["kafka-tools/generate-output.json"], select=BUILT_IN)
    assert found(result) == [("PL112", "kafka-tools/generate-output.json", 5),
                             ("PL201", "kafka-tools/generate-output.json", 5)]


def test_a_plan_without_version_is_version_1(corpus):
    """5."""
    assert not found(lint(["kafka-tools/plan-without-version.json"], select=["PL1"]))


def test_other_json_files_of_kafkas_tools_are_told_for_what_they_are(corpus):
    """6: skipped in walks; PL102 naming the tool when named; not a broken plan."""
    walked = lint(["kafka-tools"], select=BUILT_IN)
    assert sorted(walked.skipped) == [
        ("kafka-tools/delete-records.json", "none of policylint's kinds"),
        ("kafka-tools/leader-election.json", "none of policylint's kinds")]
    assert walked.files == 2 and not found(walked, "PL101", "PL102")
    named = lint(["kafka-tools/delete-records.json", "kafka-tools/leader-election.json"],
                 select=BUILT_IN)
    assert messages(named, "PL102") == [
        "a kafka-delete-records.sh offsets file: not a document policylint checks",
        "a kafka-leader-election.sh partitions file: not a document policylint checks"]


def test_a_plan_is_never_a_min_isr_too_low_finding(corpus):
    """8: a plan cannot set min.insync.replicas; its topics' minISR is no finding of its
    entries (PL303 belongs to the topic's declaration or snapshot)."""
    result = lint(["gitops/clusters/prod/plans/expand-orders.json"], select=["PL303"])
    assert result.findings == []


def test_rf_1_fails_the_strict_pack(corpus):
    """9."""
    write_files(corpus, {".policylint.yaml": "extends: strict\n",
                         "t/kafka.yaml": "apiVersion: kafka.strimzi.io/v1beta2\nkind: Kafka\n"
                                         "metadata: {name: c}\nspec: {kafka: {replicas: 3}}\n",
                         "t/topic.yaml": "apiVersion: kafka.strimzi.io/v1beta2\n"
                                         "kind: KafkaTopic\nmetadata: {name: t}\n"
                                         "spec: {partitions: 1, replicas: 1}\n"})
    run = CliRunner().invoke(app, ["lint", "t", "--select", "PL", "--format", "json"])
    out = json.loads(run.stdout)
    assert run.exit_code == 1
    assert [f["rule"] for f in out["findings"]] == ["PL209"]


def test_kubectl_list_exports_are_read_item_by_item(corpus):
    """10: `kubectl get kafkatopics -o yaml`, located in the file."""
    result = lint(["kubectl"], select=["PL302"])
    assert found(result) == [("PL302", "kubectl/kafkatopics.yaml", 12)]


def test_strimzis_examples_folder_is_findings_not_exit_2(corpus):
    result = lint(["strimzi-examples"], select=BUILT_IN)
    assert found(result, "PL121") == [("PL121", "strimzi-examples/kafka-jbod.yaml", 4),
                                      ("PL121", "strimzi-examples/kafka-persistent.yaml", 4)]


def test_a_plan_no_rule_places_is_pl123_naming_the_fix(corpus):
    write_files(corpus, {"plans/p.json": '{"partitions": []}'})
    result = lint(["gitops", "plans"], select=BUILT_IN)
    unplaced = [f for f in result.findings if f.rule == "PL123"]
    assert [(f.file, f.line) for f in unplaced] == [("plans/p.json", 1)]
    assert "clusters: in the policy" in unplaced[0].message
    assert found(result, "PL110") == [("PL110", "plans/p.json", 1)]  # still linted
    (corpus / ".policylint.yaml").write_text(yaml.safe_dump({"clusters": {"dev": ["plans/*"]}}))
    assert found(lint(["gitops", "plans"], select=["PL110"])) == [("PL110", "plans/p.json", 1)]
