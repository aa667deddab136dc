"""policylint: a policy-as-code linter for Kafka topic manifests and reassignment plans."""

__version__ = "0.1.0"
