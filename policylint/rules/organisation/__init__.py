"""Organisation policy (PL7xx): names, partition counts, retention and metadata as the
policy's parameters require (the topics they read: ``topics``)."""
