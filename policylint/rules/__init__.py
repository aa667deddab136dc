"""policylint's built-in rules, one module per rule (registered as entry points)."""
