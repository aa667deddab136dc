"""Cluster configuration (PL8xx): broker settings of a Kafka resource, profile or snapshot
(read as numbers with where they are written: ``cluster_config``)."""
