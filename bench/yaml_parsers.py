"""YAML parsers that keep positions, measured against PyYAML's C loader on the manifests
policylint reads most: 10,000 and 100,000 Strimzi KafkaTopic documents in one file, plus
documents with YAML 1.1 booleans and numbers written as Kubernetes reads them, anchors and
aliases. Each parser's values must equal PyYAML's safe_load_all exactly (a parser that
differs is reported as such, its time beside); tags and duplicate keys are refused by
policylint either way, so they are not in the corpus.

    python bench/yaml_parsers.py            # needs: pip install rapidyaml

What is timed is the whole way to the values policylint builds: PyYAML's C composer (the
nodes, which keep positions; policylint builds its values from them) and rapidyaml's tree
(which keeps each scalar's place in the source buffer) walked into plain values with
YAML 1.1's scalar resolution (``resolve``). Beside them, the way with no positions at all:
rapidyaml's own JSON emitter (its YAML 1.2 reading of scalars) decoded by msgspec, what a
reader that built values in C would cost; and the way policylint takes for a large file
(``policylint.sources.yaml_json``): that emitter where libyaml accepts the syntax and the
values are certainly PyYAML's, PyYAML's composer for the rest (the 1 document in 50 with
anchors and YAML 1.1 scalars makes the whole file take it; the plain corpus is timed too).
The collector is paused while timing, as policylint's process runs.
"""

from __future__ import annotations

import gc
import random
import re
import statistics
import sys
import time
from pathlib import Path

import msgspec
import yaml

sys.path.insert(0, str(Path(__file__).parent))
from run import MANIFEST  # noqa: E402

#: YAML 1.1 as PyYAML's SafeLoader resolves plain scalars (what Kubernetes' YAML reads)
_BOOL = {**dict.fromkeys("yes Yes YES true True TRUE on On ON y Y".split()[:-2], True),
         **dict.fromkeys("no No NO false False FALSE off Off OFF".split(), False)}
_NULL = {"", "~", "null", "Null", "NULL"}
_INT = re.compile(r"[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+"
                  r"|[1-9][0-9_]*(?::[0-5]?[0-9])+)$")
_FLOAT = re.compile(r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?$"
                    r"|\.[0-9_]+(?:[eE][-+][0-9]+)?$|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$")

EXTRA = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: odd-{i}
  labels: &labels
    strimzi.io/cluster: prod
    tier: yes
spec:
  partitions: 0x0c
  replicas: 3
  config:
    retention.ms: 604_800_000
    unclean.leader.election.enable: off
    min.cleanable.dirty.ratio: .5
    message.timestamp.type: ~
    cleanup.policy: 'compact,delete'
    segment.bytes: 1073741824
  extra: *labels
"""


def resolve(text: str):
    """A plain scalar's value as PyYAML's SafeLoader gives it (YAML 1.1)."""
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return yaml.safe_load(text)  # the rare forms: sexagesimal, octal, binary
    if _FLOAT.match(text):
        return yaml.safe_load(text)
    return text


def ryml_values(data: bytes) -> list:
    """The documents of ``data`` as plain values, through rapidyaml's tree."""
    import ryml
    tree = ryml.parse_in_arena(data)
    tree.resolve()  # anchors and aliases, as PyYAML expands them

    def value(node: int):
        if tree.is_map(node):
            out = {}
            child = tree.first_child(node)
            while child != ryml.NONE:
                out[str(tree.key(child), "utf-8")] = value(child)
                child = tree.next_sibling(child)
            return out
        if tree.is_seq(node):
            out = []
            child = tree.first_child(node)
            while child != ryml.NONE:
                out.append(value(child))
                child = tree.next_sibling(child)
            return out
        text = str(tree.val(node), "utf-8") if not tree.val_is_null(node) else ""
        return text if tree.is_val_quoted(node) else resolve(text)

    root = tree.root_id()
    if tree.is_stream(root):
        docs, child = [], tree.first_child(root)
        while child != ryml.NONE:
            docs.append(value(child))
            child = tree.next_sibling(child)
        return docs
    return [value(root)]


def corpus(count: int, rng: random.Random) -> bytes:
    docs = [MANIFEST.format(i=i, partitions=rng.choice([3, 6, 12]), min_isr=2)
            if i % 50 else EXTRA.format(i=i) for i in range(count)]
    return "---\n".join(docs).encode()


def best(seconds: list[float]) -> str:
    return f"{min(seconds):.2f} s (median {statistics.median(seconds):.2f})"


def main() -> None:
    gc.disable()
    rng = random.Random(20261205)
    try:
        import ryml
    except ImportError:
        sys.exit("pip install rapidyaml")
    for count in (10_000, 100_000):
        data = corpus(count, rng)
        text = data.decode()
        runs = 3 if count <= 10_000 else 1
        expected = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
        composed, ours, parsed, emitted = [], [], [], []
        for _ in range(runs):
            started = time.perf_counter()
            list(yaml.compose_all(text, Loader=yaml.CSafeLoader))
            composed.append(time.perf_counter() - started)
            started = time.perf_counter()
            got = ryml_values(data)
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()
            ryml.parse_in_arena(data).resolve()
            parsed.append(time.perf_counter() - started)
            started = time.perf_counter()
            tree = ryml.parse_in_arena(data)
            as_json = msgspec.json.decode(ryml.emit_json_malloc(tree, tree.root_id()))
            emitted.append(time.perf_counter() - started)
        same = got == expected
        differ = sum(a != b for a, b in zip(as_json, expected)) + abs(len(as_json) -
                                                                       len(expected))
        print(f"{count:,} KafkaTopic documents ({len(data) / 1e6:.1f} MB, 1 in 50 with YAML 1.1 "
              f"booleans, hex and underscored numbers, anchors): PyYAML CSafeLoader compose "
              f"{best(composed)}; rapidyaml tree walked into values {best(ours)} = "
              f"{min(composed) / min(ours):.2f}x as fast; values "
              f"{'identical' if same else 'DIFFER'}; rapidyaml's C++ parse alone "
              f"{best(parsed)}: the walk into Python values is the cost")
        print(f"  without positions: rapidyaml's JSON emitter read by msgspec {best(emitted)} = "
              f"{min(composed) / min(emitted):.2f}x PyYAML's compose; values of {differ:,} of "
              f"{len(expected):,} documents differ (YAML 1.1 scalars read as YAML 1.2 text)")
        del expected, got, as_json, tree  # timed apart from what this process holds
        adopted(count, rng)


def adopted(count: int, rng: random.Random) -> None:
    """policylint's own reading of a large file beside its composed reading (the values it
    builds from libyaml's nodes), on plain manifests and on the corpus above."""
    from policylint.sources import yaml_json, yamldoc
    from policylint.sources.document import SourceFile
    yamldoc.max_nodes.set(10**9)  # as --max-yaml-values raises it: 100,000 documents exceed it
    plain = "---\n".join(MANIFEST.format(i=i, partitions=rng.choice([3, 6, 12]), min_isr=2)
                         for i in range(count))
    for label, text in (("plain manifests", plain), ("the corpus above", corpus(count, rng)
                                                     .decode())):
        source = SourceFile("bench.yaml", text, "yaml")
        fast, slow = [], []
        for _ in range(3 if count <= 10_000 else 1):
            started = time.perf_counter()
            read = yaml_json.read(text)
            fast.append(time.perf_counter() - started)
            started = time.perf_counter()
            composed = [doc.data for doc in yamldoc._composed(source)]
            slow.append(time.perf_counter() - started)
        if read is None:
            print(f"  policylint's reading of {label}: refused by the guards in {best(fast)}, "
                  f"composed by PyYAML ({best(slow)})")
            continue
        same = repr(read[0]) == repr(composed)
        print(f"  policylint's reading of {label}: rapidyaml behind the guards {best(fast)} = "
              f"{min(slow) / min(fast):.2f}x its composed reading ({best(slow)}); values "
              f"{'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
