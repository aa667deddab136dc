"""In-sync replicas (PL3xx, KIP-579 / KAFKA-4680, KIP-352): min.insync.replicas against the
replication factor (their shared subjects and message: ``min_isr``), and reassigning or
under-replicated partitions."""
