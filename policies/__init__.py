"""Built-in policy packs, shipped inside the wheel as ``policylint.policies``."""
