"""The shipped schemas are valid JSON Schema, and policylint's compiled validator agrees
with the reference implementation (jsonschema) on them."""

import copy
import random
import subprocess
import sys

import jsonschema
import pytest
import yaml

from policylint.schema import Schema
from policylint.sources.schemas import schema, validator

from conftest import CASES

NAMES = ["reassignment", "snapshot", "strimzi-topic", "strimzi-topic-v1", "strimzi-kafka", "strimzi-nodepool",
         "policy", "terraform-topic", "terraform-aiven-topic"]
# policylint narrows "integer" to true integers (no 1.0, no booleans); so does the reference
_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda checker, value: type(value) is int)
Reference = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_json_schema(name):
    jsonschema.Draft202012Validator.check_schema(schema(name))


def documents():
    """Every JSON/YAML document of every case file, with its schema name."""
    import policylint.sources as sources
    for path in sorted(CASES.rglob("*.yaml")):
        for case in yaml.safe_load(path.read_text())["cases"]:
            for name, text in case["files"].items():
                if not isinstance(text, str):
                    continue
                try:
                    docs = list(yaml.safe_load_all(text))
                except (yaml.YAMLError, ValueError):
                    continue
                for doc in docs:
                    kind = sources.detect(doc)
                    # another tool's file policylint only names (topics-to-move) has no schema
                    if kind and sources.formats.role(kind) not in (None, "other"):
                        yield kind, doc


MUTATIONS = ["1", 1.5, -1, None, True, [], {}, "x", 2**40, [1, "2"]]


def mutants(doc, rng, n=30):
    """Copies of doc with one value replaced, one key dropped or one key added."""
    paths = []

    def walk(value, path):
        paths.append(path)
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, path + (i,))
    walk(doc, ())
    for _ in range(n):
        copy_ = copy.deepcopy(doc)
        path = rng.choice(paths)
        if not path:
            continue
        parent = copy_
        for key in path[:-1]:
            parent = parent[key]
        action = rng.random()
        if action < 0.7:
            parent[path[-1]] = rng.choice(MUTATIONS)
        elif action < 0.85 and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent["unexpected"] = 1
        yield copy_


def test_msgspec_translation_agrees_with_jsonschema():
    """msgspec accepts exactly what the schema accepts (never more: a violation would go
    unreported), and the errors listed are the reference's, at or below its paths."""
    rng = random.Random(7)
    checked = 0
    for kind, doc in documents():
        ours = validator(kind)
        reference = Reference(schema(kind))
        for candidate in [doc, *mutants(doc, rng)]:
            expected = {tuple(e.absolute_path) for e in reference.iter_errors(candidate)}
            assert ours.accepts(candidate) == (not expected), (kind, candidate)
            got = {path for path, _ in ours.errors(candidate)}
            assert bool(got) == bool(expected), (kind, candidate, got, expected)
            for path in got:
                assert any(path[:len(e)] == e for e in expected), (kind, candidate, path)
            checked += 1
    assert checked > 500


def test_a_long_array_is_narrowed_to_its_refused_items():
    entry = {"topic": "t", "partition": 0, "replicas": [1]}
    plan = {"partitions": [entry] * 5000 + [{**entry, "partition": "7"}] + [entry] * 10}
    assert validator("reassignment").errors(plan) == [
        (("partitions", 5000, "partition"), 'the string "7" is not an integer')]


@pytest.mark.parametrize("keyword", [{"oneOf": [{}]}, {"type": "object", "not": {}}])
def test_unsupported_keyword_is_refused(keyword):
    with pytest.raises(ValueError, match="not supported"):
        Schema({"type": "object", "properties": {"x": keyword}})


def test_values_judged_once_are_told_apart_by_type():
    """Checked values are remembered (a repository repeats the same configs), yet 1, 1.0
    and True stay distinct, as they are to the schema, in whichever order they come."""
    topic = {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaTopic",
             "metadata": {"name": "t"}, "spec": {"partitions": 1, "replicas": 3}}
    ours = validator("strimzi-topic")
    for _ in range(2):
        # Strimzi's CRD: minimum 1, so -1 (the broker default elsewhere) is refused too
        for value, ok in ((1, True), (True, False), (1.0, False), (-1, False), (0, False)):
            assert ours.accepts({**topic, "spec": {**topic["spec"], "partitions": value}}) \
                is ok, value
        for config, ok in (({"min.insync.replicas": 2}, True),
                           ({"min.insync.replicas": True}, False),
                           ({"min.insync.replicas": "2"}, True),
                           ({"min.insync.replicas": 2.0}, False),
                           ({"retention.ms": [1]}, True),  # a list, sent comma-joined
                           ({"retention.ms": [[1]]}, False)):
            assert ours.accepts({**topic, "spec": {**topic["spec"], "config": config}}) \
                is ok, config


def test_a_list_or_patterned_string_is_judged_without_crashing():
    """msgspec 0.22.0 crashes the process on a union of a list and a string with a pattern
    (Aiven's config block, or an expression): such an anyOf is judged branch by branch. In a
    process of its own, so that a crash fails this test rather than the run."""
    code = """if True:
        from policylint.schema import Schema
        s = Schema({"anyOf": [{"type": "array", "items": {"type": "object"}},
                              {"type": "string", "pattern": "^x"}]})
        assert s.errors([{}]) == [] and s.errors("xy") == [], "refused"
        assert s.errors("y") and s.errors([1]), "accepted"
        print("ok")
    """
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (run.returncode, run.stdout.strip()) == (0, "ok"), run.stderr[-500:]
