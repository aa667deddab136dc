"""Placeholder replicas (PL5xx, KIP-409): where placeholders may appear, how many, and their
form."""
