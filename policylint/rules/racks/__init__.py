"""Racks (PL4xx): replicas and leaders spread across racks."""
