"""--fix under generated manifests: comments on every kind of line, anchors and aliases,
flow and block style, several documents a file. Whatever is fixed, the result parses, keeps
every comment, and differs from the input only at the fixed keys."""

import difflib
import os
import random
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policylint import fixes
from policylint.linter import lint

# (key, value as written, whether --fix changes it) under Kafka 4.2; the value is YAML text
CONFIGS = [
    ("retention.ms", "604800000", False),
    ("cleanup.policy", "compact", False),
    ("cleanup.policy", "compactt", True),            # PL603: one close valid value
    ("log.retention.ms", "86400000", True),          # PL602: renamed to retention.ms
    ("retention.mss", "1000", True),                 # PL601: one close key
    ("message.format.version", "'2.8'", True),       # PL605: removed in 4.0
    ("leader.replication.throttled.replicas", "'*'", True),  # PL606
    ("preallocate", "'yes'", True),                  # PL603: a boolean word
    ("max.message.bytes", "2097152.0", True),        # PL603: a whole number
    ("compression.type", "zstd", False),
    ("segment.bytes", "1073741824", False),
]
COMMENTS = ["# owned by payments", "# see the runbook", "#no space", "# ünïcode ✓", "# a: b"]


def comment(rng):
    return f"  {rng.choice(COMMENTS)}" if rng.random() < 0.4 else ""


def manifest(rng, index):
    rf = rng.choice([2, 3])
    min_isr = rng.choice([1, 2, rf, rf + 1])  # rf or more: PL301/PL302, fixed to rf-1
    keys = rng.sample(CONFIGS, rng.randint(1, 5))
    keys = list({k: (k, v, f) for k, v, f in keys}.values())  # one value a key
    if rng.random() < 0.3:
        config = "{" + ", ".join(f"{k}: {v}" for k, v, _ in keys) + "}"
        body = [f"  config: {config}{comment(rng)}"]
    else:
        body = ["  config:" + comment(rng)]
        body += [f"    {k}: {v}{comment(rng)}" for k, v, _ in keys]
        body += [f"    min.insync.replicas: {min_isr}{comment(rng)}"]
    labels = "  labels: &owner {team: payments}" if index == 0 and rng.random() < 0.5 else \
        ("  labels: *owner" if index and rng.random() < 0.3 else None)
    lines = [rng.choice(COMMENTS)] if rng.random() < 0.5 else []
    lines += ["apiVersion: kafka.strimzi.io/v1beta2", "kind: KafkaTopic" + comment(rng),
              "metadata:", f"  name: topic-{index}" + comment(rng)]
    lines += [labels] if labels else []
    lines += ["spec:", f"  replicas: {rf}" + comment(rng)] + body
    return "\n".join(lines) + "\n"


def text_of(rng):
    docs = [manifest(rng, i) for i in range(rng.randint(1, 3))]
    if "*owner" in "".join(docs) and "&owner" not in docs[0]:
        docs = [d.replace("  labels: *owner\n", "") for d in docs]
    return "---\n".join(docs)


def comments(text):
    return sorted(re.findall(r"#.*", text))


def without(data, keys):
    """The documents with the config keys a fix may touch left out."""
    out = []
    for doc in data:
        spec = dict(doc["spec"])
        spec["config"] = {k: v for k, v in (spec.get("config") or {}).items() if k not in keys}
        out.append({**doc, "spec": spec})
    return out


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32))
def test_fix_changes_only_the_fixed_keys(seed, tmp_path_factory):
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("fix")
    text = text_of(rng)
    (root / "t.yaml").write_text(text)
    (root / "policy.yaml").write_text("kafka_version: '4.2'\n")
    os.chdir(root)
    result = lint(["t.yaml"], policy="policy.yaml", select=["PL"])
    outcomes = fixes.apply(result.findings, write=True)
    fixed = (root / "t.yaml").read_text()
    assert not [p for p in root.iterdir() if p.name not in ("t.yaml", "policy.yaml")]
    if fixed == text:  # left as it was: nothing to fix, or a reason given
        assert all(o.problem or not o.fixed for o in outcomes)
        return
    assert comments(fixed) == comments(text)
    touched = {k for k, _, f in CONFIGS if f} | {"min.insync.replicas", "retention.ms"}
    before, after = list(yaml.safe_load_all(text)), list(yaml.safe_load_all(fixed))
    assert without(after, touched) == without(before, touched)
    old_lines, new_lines = text.splitlines(), fixed.splitlines()
    opcodes = difflib.SequenceMatcher(None, old_lines, new_lines).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        # only lines that held a fixed key change; nothing is inserted
        assert tag != "insert", new_lines[j1:j2]
        changed = old_lines[i1:i2] if tag != "equal" else []
        assert all(any(k in line for k in touched) for line in changed), tag
    again = lint(["t.yaml"], policy="policy.yaml", select=["PL"])
    assert not [f for f in again.findings if f.fix is not None and not f.suppressed]
