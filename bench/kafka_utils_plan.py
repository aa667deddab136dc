"""Yelp's kafka-utils (``kafka-cluster-manager``) planning a scenario of bench/plan.py, run
in a virtualenv of its own (``pip install kafka-utils==4.1.0``): reads the scenario as JSON
on standard input, prints the assignment it proposes and its time as JSON.

Its ``ClusterTopology`` is built from the snapshot's assignment and brokers, their racks
read by a replication-group parser (as a site's parser reads its brokers' zones); then, as
its CLI's commands run after reading ZooKeeper:

- ``rebalance --replication-groups --brokers --leaders``: the partition-count balancer's
  ``rebalance()``;
- ``decommission BROKER``: the balancer's ``decommission_brokers``;
- ``replace-broker --source-broker A --dest-broker B``: ``ClusterTopology.replace_broker``.

``--max-partition-movements`` and ``--max-leader-changes`` are taken large enough for the
whole plan (the CLI's reduction then keeps every change).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time

from kafka_utils.kafka_cluster_manager.cluster_info.cluster_topology import ClusterTopology
from kafka_utils.kafka_cluster_manager.cluster_info.partition_count_balancer import \
    PartitionCountBalancer
from kafka_utils.kafka_cluster_manager.cluster_info.partition_measurer import \
    UniformPartitionMeasurer
from kafka_utils.kafka_cluster_manager.cluster_info.replication_group_parser import \
    ReplicationGroupParser


class RackParser(ReplicationGroupParser):
    """A broker's replication group is its rack."""

    def get_replication_group(self, broker):
        return (broker.metadata or {}).get("rack")


def main() -> None:
    logging.disable(logging.CRITICAL)
    scenario = json.load(sys.stdin)
    assignment = {(t, p): replicas for t, p, replicas in scenario["assignment"]}
    brokers = {int(b): {"host": f"broker-{b}", "rack": rack}
               for b, rack in scenario["brokers"].items()}
    args = argparse.Namespace(replication_groups=True, brokers=True, leaders=True,
                              max_partition_movements=10**9, max_leader_changes=10**9,
                              max_movement_size=None)
    started = time.perf_counter()
    topology = ClusterTopology(assignment, brokers,
                               UniformPartitionMeasurer(None, brokers, assignment, args),
                               RackParser().get_replication_group)
    balancer = PartitionCountBalancer(topology, args)
    command = scenario["command"]
    if command == "rebalance":
        balancer.rebalance()
    elif command == "decommission":
        balancer.decommission_brokers(scenario["brokers_out"])
    elif command == "replace":
        topology.replace_broker(scenario["source"], scenario["dest"])
    else:
        raise SystemExit(f"unknown command {command}")
    proposed = topology.assignment
    json.dump({"assignment": [[t, p, replicas] for (t, p), replicas in proposed.items()],
               "time": time.perf_counter() - started}, sys.stdout)


if __name__ == "__main__":
    main()
