"""policylint's verdicts against a running Apache Kafka, per release: the agreement table.

For every minor release from 3.3 to 4.4 (Maven Central's jars, tests/kafka/pom.xml), a
cluster of one controller and three brokers is started, captured with `policylint
snapshot` (its brokers and settings are the profile), and the generated corpus
(tests/kafka_oracle.py) is sent to it: as CreateTopics with validateOnly, its configs as
IncrementalAlterConfigs of an existing topic with validateOnly (nothing is created or
changed), and a cluster resource's broker settings (min.insync.replicas) as
IncrementalAlterConfigs of a broker. Prints, per release and rule, the cases, the
agreements and each disagreement with its example; exits 1 on any.

    python bench/kafka_oracle.py            # every release
    python bench/kafka_oracle.py 3.3 4.4    # some
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from kafka_cluster import RELEASES, KafkaCluster  # noqa: E402
from kafka_oracle import judged  # noqa: E402


def main(minors: list[str]) -> int:
    rows, total, wrong = [], Counter(), 0
    for minor in minors:
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as folder, KafkaCluster(RELEASES[minor]) as cluster:
            found = judged(cluster, minor, Path(folder))
        rows.append((minor, found, time.monotonic() - started))
        wrong += len(found.disagree) + len(found.keys) + (found.captured != minor)
        total.update(found.by_rule)
        print(f"Kafka {RELEASES[minor]}: {found.agree}/{found.cases} agree, as changes "
              f"{found.altered_agree}/{found.altered} "
              f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    rules = sorted(total, key=lambda r: (r == "accepted", r))
    print("| Kafka | topic config keys | cases | agree | as changes: cases, agree | "
          "broker settings: cases, agree | " + " | ".join(rules) + " |")
    print("|---|---|---:|---:|---:|---:|" + "---:|" * len(rules))
    for minor, found, _ in rows:
        keys = "same" if not found.keys else f"{len(found.keys)} differ"
        print(f"| {RELEASES[minor]} | {keys} | {found.cases} | {found.agree} | "
              f"{found.altered}, {found.altered_agree} | "
              f"{found.brokers}, {found.brokers_agree} | "
              + " | ".join(str(found.by_rule.get(r, 0)) for r in rules) + " |")
    for minor, found, _ in rows:
        for key, why in found.keys:
            print(f"Kafka {RELEASES[minor]}: topic config {key}: {why}")
        if found.captured != minor:
            print(f"Kafka {RELEASES[minor]}: policylint snapshot says {found.captured}")
        for case, kafka, linted in found.disagree:
            print(f"Kafka {RELEASES[minor]} disagrees: {case.what}: Kafka "
                  f"{'refuses (' + kafka.why + ')' if kafka.refused else 'accepts'}, policylint "
                  f"{'refuses (' + linted.why + ')' if linted.refused else 'accepts'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(RELEASES)))
