"""ACME's rules, one module per rule."""
