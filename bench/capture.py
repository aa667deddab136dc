"""The capture of a large cluster: 10,000 topics × 10 partitions (2% reassigning) from the
recorded-response admin double, so the figure is policylint's own work (the KIP-860 reads,
the batching, the snapshot written), not a network's. Prints seconds and requests."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from policylint.capture import CHUNK, capture, to_json
from policylint.capture.recorded import generated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--partitions", type=int, default=10)
    parser.add_argument("--out", default="bench/out/captured.json")
    args = parser.parse_args()
    best = None
    for _ in range(3):
        admin = generated(args.topics, args.partitions)
        start = time.perf_counter()
        doc = capture(admin, backoff=0)
        text = to_json(doc)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    calls = Counter(admin.calls)
    partitions = sum(len(t["partitions"]) for t in doc["topics"])
    moving = sum(1 for t in doc["topics"] for p in t["partitions"] if p.get("adding"))
    print(f"capture of {len(doc['topics']):,} topics x {args.partitions} partitions "
          f"({partitions:,} partitions, {moving:,} reassigning), snapshot written: best of 3 "
          f"{best:.2f} s = {partitions / best:,.0f} partitions/s; {len(text) / 2**20:.1f} MiB")
    print(f"  requests: {calls['describe_topics']} describe_topics (chunks of {CHUNK}), "
          f"{calls['describe_configs']} describe_configs, "
          f"{calls['list_partition_reassignments']} list_partition_reassignments; "
          f"{doc['capture']['uncertain']} uncertain")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "policylint", "lint", args.out], check=False,
                   stdout=subprocess.DEVNULL)
    print(f"  policylint lint of the captured snapshot: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
