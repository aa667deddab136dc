"""`make demo`'s live step: start a local broker, create topics, capture the cluster with
`policylint snapshot`, and lint a reassignment plan against the capture."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from kafka import KafkaAdminClient
from kafka.admin import NewTopic

from broker import free_port, start_broker

HERE = Path(__file__).parent


def show(*args: str) -> None:
    print("$ policylint " + " ".join(args), flush=True)
    subprocess.run([sys.executable, "-m", "policylint", *args], check=False)
    print(flush=True)


def main() -> None:
    port = free_port()
    broker = start_broker(port)
    try:
        bootstrap = f"127.0.0.1:{port}"
        admin = KafkaAdminClient(bootstrap_servers=bootstrap)
        admin.create_topics([
            NewTopic("orders.created", 6, 1, topic_configs={"retention.ms": "86400000",
                                                             "min.insync.replicas": "2"}),
            NewTopic("payments.settled", 3, 1)])
        admin.close()
        print(f"(a local broker on {bootstrap}, two topics created)\n")
        out = Path(".demo/live-snapshot.json")
        out.parent.mkdir(exist_ok=True)
        show("snapshot", "--bootstrap-server", bootstrap, "--cluster-name", "local",
             "-o", str(out))
        show("lint", os.path.relpath(HERE / "plan.json"), "--cluster", str(out))
    finally:
        broker.terminate()
        broker.wait(10)


if __name__ == "__main__":
    main()
