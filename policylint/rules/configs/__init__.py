"""Topic configuration (PL6xx): each key and value as Kafka's own ``LogConfig`` reads it, per
Kafka release (what the verdicts share: ``topic_config``)."""
