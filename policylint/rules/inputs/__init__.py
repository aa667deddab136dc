"""Input hygiene (PL1xx): what Kafka's reassignment tool and controller refuse, and what no
input can state: parse errors, schemas, duplicates, unknown brokers, partitions and
clusters, exemptions and suppressions."""
