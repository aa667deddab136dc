"""policylint's built-in rule pack: one module per rule (its check, its Spark form, its
message). The package is the pack's entry point: every Rule class with a code in its
modules is registered, so a new rule is a new module and its case file."""
