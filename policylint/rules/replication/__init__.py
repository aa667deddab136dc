"""Replication factor (PL2xx, KIP-860 and Strimzi's RF-change proposal): RF changes, RFs a
cluster cannot hold, and what a change does to a topic (decreases, renames, deletions)."""
