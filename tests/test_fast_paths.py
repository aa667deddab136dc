"""The paths taken for large inputs (decoded straight into the schema's types, element
offsets found by boundaries, long arrays narrowed before jsonschema explains them, a large
YAML file read by rapidyaml) give exactly the findings of the plain paths, on generated
plans, snapshots and manifests with every kind of problem. Small thresholds make small
inputs take them."""

import json
import random
from itertools import product

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from policylint.linter import lint
from policylint import schema
from policylint.sources import InputError, jsondoc


def generated(rng: random.Random) -> tuple[dict, dict]:
    """A snapshot and a plan with duplicates, unknown and missing partitions, reassigning
    and under-replicated partitions, placeholders, unknown brokers and brokers without rack."""
    brokers = list(range(1, rng.randint(3, 7)))

    def replicas(rf: int, odd: float) -> list[int]:
        return [rng.choice([9, -1, -2]) if rng.random() < odd else rng.choice(brokers)
                for _ in range(rf)]
    topics = []
    for t in range(rng.randint(1, 4)):
        parts = []
        for p in range(rng.randint(1, 6)):
            reps = replicas(rng.randint(1, 4), 0.15)
            part = {"partition": p, "replicas": reps}
            if rng.random() < 0.8:
                part["isr"] = reps[:rng.randint(0, len(reps))]
            elif rng.random() < 0.5:
                part["isr"] = None  # unknown, as a value left out is
            if rng.random() < 0.2:
                part["adding" if rng.random() < 0.5 else "removing"] = reps[:1]
            elif rng.random() < 0.2:
                part["adding"] = part["removing"] = []  # as no reassignment's
            if rng.random() < 0.03:
                part["isr"] = ["1"]  # PL101
            parts.append(part)
        topics.append({"name": f"t{t}", "partitions": parts,
                       "config": {"min.insync.replicas": str(rng.randint(1, 4))}})
    snapshot = {"kind": "ClusterSnapshot", "version": 1, "cluster": "c",
                "brokers": [{"id": b, "rack": None if rng.random() < 0.1 else "abc"[b % 3]}
                            for b in brokers],
                "config": {"min.insync.replicas": "2"}, "topics": topics}
    moves = []
    for _ in range(rng.randint(1, 5)):
        topic = f"t{rng.randint(0, 4)}"
        for p in range(rng.randint(1, 6)):
            rf = rng.randint(0, 4)
            entry = {"topic": topic, "partition": p if rng.random() > 0.05 else str(p),
                     "replicas": replicas(rf, 0.1)}  # a partition number as text: PL101
            if rng.random() < 0.3:
                entry["log_dirs"] = ["any"] * (rf + (rng.random() < 0.2))
            moves.append(entry)
    if rng.random() < 0.3:
        moves.append(dict(moves[0]))
    return snapshot, {"version": 1, "partitions": moves}


def findings(paths: list[str], cluster: str | None = None) -> list[tuple] | str:
    try:
        result = lint(paths, cluster=cluster)
    except InputError as exc:  # a broken cluster file
        return str(exc)
    return [(f.rule, f.file, f.line, f.column, f.topic, f.partition, f.message, f.suppressed)
            for f in result.findings]


RUNS = ((["plan.json", "snapshot.json"], None), (["plan.json"], "snapshot.json"),
        (["snapshot.json"], None))


@pytest.mark.parametrize("seed", range(30))
def test_large_input_paths_agree_with_the_plain_ones(seed, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = random.Random(seed)
    snapshot, plan = generated(rng)
    indent = rng.choice([None, 1, 2])
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot, indent=indent))
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=indent))
    plain = [findings(*run) for run in RUNS]
    monkeypatch.setattr(jsondoc, "TYPED_FROM", 1)
    monkeypatch.setattr(jsondoc, "_MANY", 2)
    monkeypatch.setattr(schema, "_MANY", 2)
    assert [findings(*run) for run in RUNS] == plain
    assert plain[0]  # the generated inputs do break rules


KINDS_AND_ORDERS = [
    # a snapshot whose topics come first, its kind last
    '{"topics": [{"name": "t", "partitions": [{"partition": 0, "replicas": [1, 1]}]}],\n'
    ' "brokers": [{"id": 1}], "cluster": "c", "version": 1, "kind": "ClusterSnapshot"}\n',
    # a plan with a key the format lacks, and one with the snapshot's kind
    '{"partitions": [{"topic": "t", "partition": 0, "replicas": [1, 1]}], "kind": "x"}\n',
    '{"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1]}],\n'
    ' "kind": "ClusterSnapshot"}\n',
    # a snapshot that breaks its schema, a KafkaTopic and a List in JSON
    '{"kind": "ClusterSnapshot", "version": 1, "cluster": "c", "brokers": [{"id": "1"}]}\n',
    '{"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaTopic",\n'
    ' "metadata": {"name": "t"}, "spec": {"partitions": 0}}\n',
    '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "kafka.strimzi.io/v1beta2",'
    '\n "kind": "KafkaTopic", "metadata": {"name": "t"}, "spec": {"replicas": 1}}]}\n',
]


@pytest.mark.parametrize("text", KINDS_AND_ORDERS)
def test_a_large_file_is_told_plan_or_snapshot_as_the_plain_path_tells_it(text, tmp_path,
                                                                          monkeypatch):
    """A large JSON file is decoded as a plan, else as a snapshot, else as plain data: the
    guess must not change what any file means, whatever its kind and key order."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in.json").write_text(text)
    plain = findings(["in.json"], None)
    monkeypatch.setattr(jsondoc, "TYPED_FROM", 1)
    assert findings(["in.json"], None) == plain
    assert plain  # each breaks a rule or the schema, or is no document policylint knows


@pytest.mark.parametrize("text, where", [
    ('{"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [1]},\n'
     ' {"topic": "t", "partition": 1, "partition": 2, "replicas": [1]}]}', (2, 33)),
    ('{"kind": "ClusterSnapshot", "version": 1, "cluster": "c", "brokers": [{"id": 1}],\n'
     ' "config": {"retention.ms": "1", "retention.ms": "2"}}', (2, 34)),
    # the value kept is what a value left out means: written back, it is left out too
    ('{"kind": "ClusterSnapshot", "version": 1, "cluster": "c", "brokers": [{"id": 1}],\n'
     ' "topics": [{"name": "t", "partitions": [{"partition": 0, "replicas": [1],\n'
     ' "isr": [1], "isr": null}]}]}', (3, 14)),
])
def test_a_duplicate_key_in_a_typed_file_is_refused_where_it_is(text, where, tmp_path,
                                                                  monkeypatch):
    """Decoded straight into the schema's types, a key given twice would silently keep
    its last value: the colon count catches it, and the exact path locates it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(jsondoc, "TYPED_FROM", 1)
    (tmp_path / "in.json").write_text(text)
    found = [f for f in lint(["in.json"]).findings if f.rule == "PL100"]
    assert [(f.line, f.column) for f in found] == [where]
    assert "duplicate key" in found[0].message


YAML_TEXTS = [
    "a: 12\nb: 010\nc: 1_000\nd: 0x1F\ne: -5\nf: 1:30\ng: 1.5\nh: yes\ni: ~\nj: 2026-11-23\n",
    "spec:\n  config:\n    retention.ms: 604800000\n    retention.ms: 1\n",  # duplicate key
    "base: {a: 1, b: 2}\nmerged:\n  <<: {a: 1, b: 2}\n  b: 3\n",  # a merge without an anchor
    "a: !!python/object:os.system echo\n",
    "a: !!int '12'\nb: !!str 12\nc: !!float '1'\n",
    "? [a, b]\n: complex key\n",
    "a: =\n",
    "- - - [1, [2, [3]]]\n  - {x: {y: {z: []}}}\n",
    "a: 123456789012345678901234567890\n",
    "a: 1\n---\nb: 2\n---\n- x\n",
]


@pytest.mark.parametrize("text", YAML_TEXTS)
def test_yaml_without_anchors_reads_as_the_general_builder_reads_it(text):
    """A file without anchors takes the short way; the same text with an anchor in a
    comment takes the general one. Values, or the error and where it is, are the same."""
    from policylint.sources.document import ParseError, SourceFile
    from policylint.sources.yamldoc import load_yaml

    def read(t):
        try:
            return [d.data for d in load_yaml(SourceFile("t.yaml", t, "yaml"))]
        except ParseError as exc:
            return (exc.message, exc.line, exc.column)
    assert "&" not in text
    assert read(text) == read(text + "# &anchor\n")


def test_yaml_integers_keep_their_yaml_1_1_meaning_on_the_short_way():
    from policylint.sources.document import SourceFile
    from policylint.sources.yamldoc import load_yaml
    [doc] = load_yaml(SourceFile("t.yaml", YAML_TEXTS[0], "yaml"))
    assert doc.data == {"a": 12, "b": 8, "c": 1000, "d": 31, "e": -5, "f": 90, "g": 1.5,
                        "h": True, "i": None, "j": "2026-11-23"}


RYML_TEXTS = YAML_TEXTS + [
    # YAML 1.1 scalars rapidyaml reads as 1.2 text or numbers, quoted or not
    "a: '12'\nb: \"true\"\nc: 'null'\nd: 12\ne: true\nf: null\ng:\nh: ''\ni: 1.50\nj: 1e5\n",
    "a: True\nb: NULL\nc: off\nd: .inf\ne: -.5\nf: +5\ng: 3.0\nh: -0\ni: 0o17\nj: 1_0\n",
    "a: b\n  c\nd: 'e\n\n  f'\ng: \"h \\\"i\\\"\"\nj: k # l\n",  # folding, escapes, comments
    "a:\n  - \n  -\n  - x\n",  # empty items
    "---\n---\n",  # empty documents
    "# a comment\n\n---\na: 1\n---\n",  # a comment before, an empty document after
    "a: 1\n...\n---\nb: 2\n",
    "--- {a: 1}\n--- [1, 2]\n--- x\n",
    "a: 1\nb: [1, {c: 2}]\n{d: 1}: 2\n",  # a flow mapping as a key
    "a: 1\na: 2\n",  # a duplicate key
    "a:\tb\n",
    "a: b: c\n",  # not YAML
    "a: [1, 2\n",
    "a: caf\u00e9\u2028b\n",
    "a: 2026-11-23\nb: 2026-11-23T10:00:00Z\nc: 1:30\nd: 0x1F\ne: 012\n",
    "x: 9999999999999999999999\ny: 0.1000000000000000055511151231257827\n",
]


def _read_both(text: str) -> tuple:
    from policylint.sources import yaml_json, yamldoc
    from policylint.sources.document import ParseError, SourceFile
    try:
        composed = [d.data for d in yamldoc._composed(SourceFile("t.yaml", text, "yaml"))]
    except ParseError as exc:
        composed = (exc.message, exc.line, exc.column)
    return composed, yaml_json.read(text)


@pytest.mark.parametrize("text", RYML_TEXTS)
def test_rapidyaml_answers_only_with_pyyamls_own_values(text):
    """rapidyaml reads YAML 1.2 and refuses some YAML: whatever it is given, it answers
    with exactly the values, and the types, PyYAML's reading gives, or not at all."""
    composed, fast = _read_both(text)
    if fast is not None:
        assert repr(fast[0]) == repr(composed)


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**20, 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["yes", "No", "on", "~", "null", "0x1F", "012", "1_000", "1:30", "1e5",
                     ".5", "+5", "-0", "2026-11-23", "=", "<<", "", " a", "a ", "a: b", "# c",
                     "- x", "'", '"', "[x]", "{y}", "a\nb", "---", "...", "%x"]),
    st.text(alphabet="ab 01:#-.,'\"%@`~\n", max_size=12),
    st.text(alphabet=st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=12))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.text(alphabet="abcyn~01-.: #'\"", max_size=5), inner, max_size=4)),
    max_leaves=12)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_VALUES, min_size=1, max_size=4), st.sampled_from([None, True, False]),
       st.integers(1, 30))
def test_rapidyaml_agrees_with_pyyaml_on_generated_documents(docs, flow, width):
    """Documents of every shape, written by PyYAML in block, flow or mixed style with
    lines folded anywhere: rapidyaml gives PyYAML's values or does not answer."""
    text = yaml.safe_dump_all(docs, default_flow_style=flow, width=width,
                              explicit_start=len(docs) > 1)
    composed, fast = _read_both(text)
    if fast is not None:
        assert repr(fast[0]) == repr(composed)
        # each document's text, where spans says it starts, composes alone to its value
        starts = [start for start, _ in fast[1]] + [len(text)]
        alone = [_read_both(text[a:b])[0] for a, b in zip(starts, starts[1:])]
        assert alone == [[value] for value in composed]


def test_rapidyaml_agrees_with_pyyaml_on_every_short_number_like_scalar():
    """Every scalar of up to four digits, signs, dots, exponents, ``_``, ``x`` and ``:``,
    as a mapping's value and as an item: rapidyaml writes ``-.5`` as -0.5 and ``1e19`` as
    a number, which YAML 1.1 reads as text; answered, the values must be PyYAML's."""
    answered = 0
    for size in range(1, 5):
        for chars in product("019.-+eE_x:", repeat=size):
            for text in (f"a: {''.join(chars)}\n", f"- {''.join(chars)}\n"):
                composed, fast = _read_both(text)
                if fast is not None:
                    answered += 1
                    assert repr(fast[0]) == repr(composed), text
    assert answered > 10_000


def test_quoted_and_plain_scalars_side_by_side_read_as_pyyaml_reads_them():
    """A string YAML 1.1 would type is read by rapidyaml quoted (manifests quote config
    values: ``"604800000"``), beside the same scalar plain only where both readers type
    that alike: every short number-like scalar and YAML 1.1 word, quoted and plain, as a
    value, an item, a key and in flow, alone and beside each other, in other spellings
    (``.NaN``, ``.nan``). Answered, the values must be PyYAML's."""
    words = ["".join(chars) for size in range(1, 4) for chars in product("019.-+eE_x:",
                                                                          repeat=size)]
    words += ["yes", "No", "on", "OFF", "~", "null", "Null", "true", "False", "0x1F", "0o17",
              "012", "1_000", "1:30", ".inf", "-.inf", ".NaN", "<<", "=", "604800000", "inf",
              "nan", "-.Inf", ".nan", "Infinity", "0b101", "+1"]

    def typed(word: str) -> bool:  # a string YAML 1.1 would type, were it plain
        return yaml.resolver.Resolver().resolve(yaml.ScalarNode, word, (True, False)) != \
            "tag:yaml.org,2002:str"

    answered = quoted = 0
    for word in words:
        for text in (f"a: '{word}'\n", f'- "{word}"\n', f"'{word}': 1\n",
                     f'a: ["{word}", x]\n', f"a: '{word}'\nb: {word}\n",
                     f'- {word}\n- "{word}"\n', f"{word}: 1\n'{word}': 2\n",
                     f"{word}: a\nb: '{word}'\n", f"[{word}, '{word}']\n",
                     f'a: "{word}"\nb: x{word}\nc: {word}x\n# {word}s\n',
                     f"a: '{word}'\nb: '{word.upper()}'\n",
                     f"a: '{word.lower()}'\n'{word}': 2\n"):
            composed, fast = _read_both(text)
            if fast is not None:
                answered += 1
                quoted += typed(word) and (f"'{word}'" in text or f'"{word}"' in text)
                assert repr(fast[0]) == repr(composed), text
    assert answered > 4_000 and quoted > 500


def test_what_rapidyaml_refuses_pyyaml_reads_without_a_word_on_standard_error(capfd):
    """rapidyaml 0.15 refuses this YAML (a key ``.`` after an indentless sequence), and
    prints why to standard error first: the user's file is not broken."""
    composed, fast = _read_both("c:\n- false\n.: []\n")
    assert fast is None and composed == [{"c": [False], ".": []}]
    assert capfd.readouterr() == ("", "")


def test_rapidyaml_reads_plain_manifests_and_says_where_each_document_starts():
    text = "# topics\n" + "".join(MANIFEST.format(i=i) for i in range(3))
    composed, fast = _read_both(text)
    assert fast is not None and fast[0] == composed
    assert fast[1] == [(9, 1), (9 + len(MANIFEST.format(i=0)), 12),
                       (9 + len(MANIFEST.format(i=0)) * 2, 23)]


MANIFEST = """---
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: topic-{i}
  labels: {{strimzi.io/cluster: c}}
spec:
  partitions: {i}
  replicas: 3
  config:
    min.insync.replicas: 3
"""


def test_a_large_yaml_file_is_read_and_located_as_libyaml_reads_it(tmp_path, monkeypatch):
    """A file large enough for rapidyaml, with findings in some documents: the findings and
    their lines and columns are the composed path's, and so is a duplicate key's error."""
    from policylint.sources import yamldoc
    monkeypatch.chdir(tmp_path)
    docs = [MANIFEST.format(i=i).replace("replicas: 3\n", f"replicas: {1 + i % 4}\n")
            for i in range(800)]
    (tmp_path / "t.yaml").write_text("# many\n\n" + "".join(docs))
    (tmp_path / "dup.yaml").write_text("".join(docs[:799]) + docs[799] + "  partitions: 2\n")
    assert (tmp_path / "t.yaml").stat().st_size >= yamldoc.FAST_FROM

    def run() -> list:
        return [(f.rule, f.file, f.line, f.column, f.topic, f.message)
                for f in lint(["t.yaml", "dup.yaml"]).findings]
    calls = []
    real = yamldoc._Later._alone
    monkeypatch.setattr(yamldoc._Later, "_alone", lambda self: calls.append(1) or real(self))
    fast = run()
    assert calls  # rapidyaml read t.yaml, and documents were composed to locate findings
    monkeypatch.setattr(yamldoc._Later, "_alone", lambda self: None)  # the whole file's way
    assert run() == fast
    monkeypatch.setattr(yamldoc, "FAST_FROM", 10**12)
    assert fast == run()
    assert [f for f in fast if f[0] == "PL100" and "duplicate key" in f[5]]
    assert len({f[2] for f in fast if f[0] != "PL100"}) > 100


_PIECES = list(" :-#'\"\n.019abxy[]{},~") + [
    "  ", "\n  ", "- ", ": ", "---\n", "\n---", "yes", "1e5", "0x1F", "'1'", '"true"', "-.5",
    "null", "replicas: 2\n"]


def _mutated(rng: random.Random, text: str) -> str:
    """``text`` with a few characters or pieces inserted, removed or lines repeated."""
    for _ in range(rng.randint(1, 4)):
        i, roll = rng.randrange(len(text)), rng.random()
        if roll < 0.4:
            text = text[:i] + rng.choice(_PIECES) + text[i:]
        elif roll < 0.7:
            text = text[:i] + text[i + rng.randint(1, 3):]
        else:
            lines = text.split("\n")
            lines.insert(rng.randrange(len(lines)), rng.choice(lines))
            text = "\n".join(lines)
    return text


def test_mutated_manifests_are_linted_alike_by_both_ways(tmp_path, monkeypatch):
    """Manifests broken in small random ways: whatever the file has become, the findings
    (or the error and where it is) are the same whether rapidyaml may read it or not."""
    from policylint.sources import yaml_json, yamldoc
    monkeypatch.chdir(tmp_path)
    rng = random.Random(2026)
    # some config values quoted, as manifests often write them
    text = "".join(MANIFEST.format(i=i).replace("replicas: 3", f"replicas: {1 + i % 3}")
                   .replace("min.insync.replicas: 3", "min.insync.replicas: '3'" if i % 2 else
                            "min.insync.replicas: 3\n    retention.ms: \"604800000\"")
                   for i in range(30))
    answered = 0
    for _ in range(120):
        mutated = _mutated(rng, text)
        (tmp_path / "t.yaml").write_text(mutated)
        answered += yaml_json.read(mutated) is not None
        monkeypatch.setattr(yamldoc, "FAST_FROM", 0)
        fast = findings(["t.yaml"], None)
        monkeypatch.setattr(yamldoc, "FAST_FROM", 10**12)
        assert findings(["t.yaml"], None) == fast, mutated
    assert answered > 10


@pytest.mark.parametrize("top", ["tree", "./tree/", "tree//sub/..", "ABSOLUTE", "."])
def test_a_walked_file_is_named_as_its_path_alone_would_be(top, tmp_path, monkeypatch):
    """A directory's display name is made once for its files: each must still be named as
    ``display_name`` names its path, whatever form the directory was given in."""
    from policylint.sources import display_name, walk
    monkeypatch.chdir(tmp_path)
    for folder in ("tree", "tree/sub", "tree/sub/deeper"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "t.yaml").write_text("a: 1\n")
    top = str(tmp_path / "tree") if top == "ABSOLUTE" else top
    walked = list(walk([top]))
    assert len(walked) == 3
    assert [name for _, name, _ in walked] == [display_name(path) for path, _, _ in walked]
    assert all(not name.startswith(("/", "./")) for _, name, _ in walked)


def test_replica_list_rules_see_only_the_manifests_that_have_replica_lists():
    """A manifest has replica lists only in an explicit assignment: the engine passes the
    others to no rule that judges replica lists alone, and still judges the ones it has."""
    from policylint.engine import Context, run
    from policylint.model import TopicSpec
    from policylint.policy import Policy
    from policylint.registry import all_rules
    from policylint.rule import Reads, Rule
    from policylint.sources.document import SourceFile
    from policylint.sources.yamldoc import load_yaml

    doc = load_yaml(SourceFile("t.yaml", "spec:\n  assignment: [[1, 1, 2], [1, 2, 3]]\n",
                               "yaml"))[0]
    paths = {"name": ("metadata", "name"), "assignment": ("spec", "assignment")}
    listed = TopicSpec("listed", 3, 2, {}, doc, paths, assignment=[[1, 1, 2], [1, 2, 3]])
    plain = TopicSpec("plain", 3, 2, {}, doc, paths)
    seen = []

    class Spy(Rule):
        code, name = "PL999", "spy"
        reads = Reads(targets=("manifest",), replica_lists_only=True)

        def check(self, target, ctx, options):
            seen.append(target.name)
            return ()

    duplicate = all_rules()["PL112"]
    result = run([(Context(manifests=[listed, plain]), {"manifest": [listed, plain]})],
                 [duplicate, Spy()], Policy())
    assert seen == ["listed"]
    assert [(f.rule, f.topic, f.partition, f.line) for f in result.findings] == [
        ("PL112", "listed", 0, 2)]


def test_the_entries_of_inflated_partitions_are_those_above_their_topics_rf():
    """PlanView.inflated finds a topic's RF from its run of entries when the run is the
    whole topic (the usual), else asks for it: either way exactly the entries whose
    partition, not reassigning, holds more replicas than kafka.snapshot_topic_rf says."""
    import random
    from policylint.kafka import snapshot_topic_rf
    from policylint.model import Move, PartitionState, Plan, Snapshot, TopicState
    from policylint.views import PlanView
    rng = random.Random(7)
    for _ in range(300):
        topics = {}
        for t in range(rng.randint(1, 5)):
            sizes = [rng.choice([1, 2, 3, 3, 3, 4]) for _ in range(rng.randint(1, 6))]
            if rng.random() < 0.5:
                sizes = [sizes[0]] * len(sizes)
            topics[f"t{t}"] = TopicState(f"t{t}", {}, [
                PartitionState(p, list(range(n)), None, [9] if rng.random() < 0.2 else [])
                for p, n in enumerate(sizes)], None, ())
        moves = []
        for name, topic in topics.items():
            numbers = [p.partition for p in topic.partitions]
            shape = rng.choice(["whole", "whole", "some", "shuffled", "one more"])
            if shape == "some":
                numbers = numbers[:rng.randint(0, len(numbers))]
            elif shape == "shuffled":
                rng.shuffle(numbers)
            elif shape == "one more":
                numbers.append(len(numbers))  # a partition the snapshot lacks
            moves += [Move(name, p, [1]) for p in numbers]
        plan = Plan(moves, None, len(moves))
        view = PlanView(plan, Snapshot(None, topics, None))
        asked = []

        def rf(name):
            asked.append(name)
            return snapshot_topic_rf(topics[name], None)
        expected = [i for i, state in enumerate(view.states)
                    if state is not None and not (state.adding or state.removing)
                    and len(state.replicas) > snapshot_topic_rf(topics[moves[i].topic], None)]
        assert view.inflated(rf) == expected
        assert len(asked) <= len(topics)


def test_a_snapshot_topics_rf_is_its_settled_partitions_most_common_count():
    """kafka.snapshot_topic_rf's C-speed counting gives the catalogue's definition: the
    most common replica count of the partitions not reassigning, ties to the smallest."""
    import random
    from collections import Counter
    from policylint.kafka import snapshot_topic_rf
    from policylint.model import PartitionState, TopicState
    rng = random.Random(11)
    for t in range(3000):
        parts = [PartitionState(p, list(range(rng.choice([1, 2, 3, 3, 4]))), [],
                                [9] if rng.random() < 0.3 else [],
                                [8] if rng.random() < 0.2 else [])
                 for p in range(rng.randint(0, 7))]
        counts = Counter(len(p.replicas) for p in parts if not p.adding and not p.removing)
        best = max(counts.values(), default=0)
        expected = min((rf for rf, n in counts.items() if n == best), default=None)
        assert snapshot_topic_rf(TopicState("t", {}, parts, None, ()), None) == expected
