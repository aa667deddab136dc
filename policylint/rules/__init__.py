"""policylint's built-in rule pack: one module per rule (its check, its Spark form, its
message), in families by code as RULES.md orders them, each family with the helper its
rules share. The package is the pack's entry point: every Rule class with a code in its
modules is registered, so a new rule is a new module in its family and its case file in
``tests/cases/<family>/``."""
