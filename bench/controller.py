"""The Kafka controller plugin's speed: one validation's latency (p50, p99 over 100,000
requests judged by the plugin's own code, its JIT warmed up), and the export of a large
policy (`policylint export --for kafka-controller`).

The requests are those the property test generates (tests/test_controller.py: every config
key at its boundaries, names of every prefix, partitions and RFs in and out of bounds),
judged by tests/data/controller/policy.yaml (every exportable built-in with options, an
exemption, CEL rules with variables and params); the large policy is that one with 500 CEL
rules more.

    python bench/controller.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import yaml  # noqa: E402

from policylint.export import bundle  # noqa: E402
from policylint.policy import load  # noqa: E402
from test_controller import JAR, POLICY, requests  # noqa: E402

TOTAL = 100_000


def large_policy(folder: Path, rules: int = 500) -> Path:
    data = yaml.safe_load(POLICY.read_text())
    data["cel_rules"] += [{
        "code": f"BIG{i:03d}", "name": f"big-{i}", "applies_to": "topics",
        "matchConditions": [{"name": "prefix", "expression": f'topic.name.startsWith("t{i}.")'}],
        "validations": [{"expression": f"!has(topic.partitions) || topic.partitions <= {i + 10}",
                         "messageExpression": f'"at most {i + 10} partitions, not " + '
                                              'string(topic.partitions)'}]}
        for i in range(rules)]
    path = folder / "large.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def main() -> None:
    if not JAR.exists():
        sys.exit(f"{JAR} is not built: make controller")
    with tempfile.TemporaryDirectory() as folder:
        made = bundle(load(str(POLICY)))
        path = Path(folder) / "bundle.json"
        path.write_text(json.dumps(made))
        lines = "".join(json.dumps(r) + "\n" for r in requests("4.1", 41, 2000))
        done = subprocess.run(["java", "-jar", str(JAR), str(path), "4.1", "--bench",
                               str(TOTAL)], input=lines, capture_output=True, text=True,
                              check=True)
        p50, p99 = (float(x) for x in done.stdout.split()[1::2])
        print(f"controller plugin: one validation (create or alter, {len(made['rules'])} "
              f"rules, 2,000 distinct requests) p50 {p50:.1f} µs, p99 {p99:.1f} µs over "
              f"{TOTAL:,} (target p99 < 100 µs)")
        large = large_policy(Path(folder))
        started = time.perf_counter()
        loaded = load(str(large))
        exported = bundle(loaded)
        took = time.perf_counter() - started
        print(f"policylint export --for kafka-controller of a policy of "
              f"{len(loaded.custom_rules)} CEL rules: {took:.2f} s (its CEL compiled and "
              f"checked as lint does), a bundle of "
              f"{len(json.dumps(exported)) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
