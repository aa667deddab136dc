"""A team's own rules as CEL expressions in the policy file (``cel_rules:``).

Each entry is shaped as Kubernetes' ``ValidatingAdmissionPolicy``: a ``code`` and ``name``
of the team's own, a ``severity``, what it ``applies_to`` (topics, partitions,
plan_entries, clusters, changes), optional ``matchConditions`` and one or more
``validations`` (``expression`` with ``message`` or ``messageExpression``). The policy
loader compiles them once (``compile_rules``) with the CEL C++ implementation
(cel-expr-python: type-checked at load, RE2 regexes, bounded recursion), imported only
when a policy has such rules; a rule that does not compile, or names a field the model
does not have, is a policy error at its line. ``CelRule`` then goes through the engine as
any rule: locations, suppressions, baselines, ``--select``, severities, SARIF.

The package's rooms: ``kinds`` (one record per variable and kind of subject), ``subjects``
(the maps), ``reading`` (what an expression reads), ``batch`` (rules judged together),
``rule`` (``CelRule``) and ``compile`` (``compile_rules``).
"""

from .compile import CelError, compile_rules, normalized
from .reading import fields_read
from .rule import CelRule

__all__ = ["CelError", "CelRule", "compile_rules", "fields_read", "normalized"]
