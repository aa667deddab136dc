"""ACME's organisation rules for policylint: an example rule pack."""
