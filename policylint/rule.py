"""The rule contract. Built-in rules and plugins implement it the same way.

A rule is a class with ``code``, ``name``, ``severity``, ``reads`` and a ``check`` method
that yields findings. It is pure: no I/O, no state between calls. ``reads`` declares, in one
:class:`Reads` value, what the rule reads; the engine and the audit decide from it alone
what to pass it. The engine calls ``check(target, ctx, options)`` once per target object of
each kind in ``reads.targets`` (through ``check_all``, which a rule that judges many targets
at once may override):

- ``"manifest"``: a :class:`~policylint.model.TopicSpec` of a linted topic manifest
- ``"plan"``: a :class:`~policylint.model.Plan` (one reassignment file)
- ``"snapshot"``: a linted :class:`~policylint.model.Snapshot`
- ``"profile"``: a linted :class:`~policylint.model.ClusterProfile`
- ``"run"``: the :class:`~policylint.engine.Context` itself, once per run (cross-file rules)

Rules with no targets (PL100-PL102) are reported by the sources; they are rules so that
policies, ``--select`` and ``explain`` treat them like any other.

``check`` reads its target and what the engine built for the run through ``ctx`` (a
:class:`~policylint.engine.Context`: the cluster profile, snapshot, baselines, policy, and
views such as ``ctx.plan_view(plan)`` or ``ctx.replica_lists(target)``).

A rule that applies to snapshots may also have a Spark form for ``policylint audit``: set
``Reads.spark_frame`` to the frame it reads (see :mod:`policylint.spark.native`) and return
a ``Verdict`` from ``spark(options, policy)``, importing pyspark there, not at the top of
the module. A rule that judges a topic by its config and its cluster (release, settings,
brokers) alone, never by the topic's name or partitions, reads the frame ``"configs"``
instead: the audit runs its ``check`` once per distinct shape; one that judges topics by
their names reads ``"names"`` and returns from ``spark`` a condition that picks every topic
it may report (:mod:`policylint.spark.shapes`). Both forms word their findings from the one
``message`` template (``self.say`` in Python, ``policylint.spark.expr.say`` in Spark).
Without a Spark form the audit runs ``check`` on each snapshot (without its partitions
when ``Reads.partitions`` is false).

A rule that is off until the policy gives it parameters says so in ``applies(options)``;
the engine then does not call it. A finding may carry a severity above the rule's own
(PL605: a removed key is an error); a severity the policy sets for the rule wins.

Register a rule with an entry point in the ``policylint.rules`` group:
``PL999 = "my_package.my_module:MyRule"`` (or a package: every rule class of its modules,
of its sub-packages too). Its docstring is its documentation, with the headings
``## What it does``, ``## Why is this bad?``, ``## Example`` and ``## Use instead``.
"""

from __future__ import annotations

from itertools import chain, repeat
from typing import Any, Callable, ClassVar, Iterable, Iterator, Sequence

from msgspec import Struct, structs

from .model import Finding, Ref

TARGETS = ("manifest", "plan", "snapshot", "profile", "run")
DOCS = "https://github.com/policylint/policylint/blob/main/docs/rules"  # a page per rule
SPARK_FRAMES = ("replica_sets", "partitions", "topics", "clusters", "configs", "names")


class Reads(Struct, frozen=True, kw_only=True):
    """What a rule reads, declared once: which objects ``check`` is passed and which of
    them it can judge. A family's base class declares it; a rule changes what differs
    (``Reads.but``)."""

    #: the kinds of object ``check`` is passed, among TARGETS
    targets: tuple[str, ...] = ()
    #: judges replica lists alone (``ctx.replica_lists``): a manifest has them only in an
    #: explicit assignment, so the others are not passed to it
    replica_lists_only: bool = False
    #: what it reads of a manifest: "rf", "partitions", "name" or a config key. A manifest
    #: where one of them is an unknown value (a template placeholder) is not passed to it
    #: and is counted under ``unchecked``
    needs: frozenset[str] = frozenset()
    #: the config keys without which it has nothing to say of a manifest: set, only
    #: manifests that set one of them are passed to it (10,000 manifests, a few with them)
    config_keys: frozenset[str] | None = None
    #: whether it reads a snapshot's partitions: the audit's generic path leaves them out
    #: (most of a fleet's rows) for rules that read only topics and brokers
    partitions: bool = True
    #: the frame its Spark form reads (one of SPARK_FRAMES); None: no Spark form.
    #: "configs": decided once per distinct config (policylint.spark.shapes)
    spark_frame: str | None = None
    #: a finding of one subject depends on the others: a cluster setting that every subject
    #: inheriting it breaks is one finding at the setting (``Finding.cause``, counted in
    #: ``Context.inheritors``), so a run that judges some files weighs the others' subjects
    weighs_others: bool = False
    #: a finding of one topic depends on the run's other topics whose names have the same
    #: key (PL702: Kafka's metric name, "." written "_"): an edit that changes a topic's
    #: name in one file may change another file's findings
    names_alike: Callable[[str], str] | None = None

    def but(self, **changes: Any) -> "Reads":
        """The same, with ``changes``."""
        return structs.replace(self, **changes)


#: what a plugin written before ``Reads`` declares as class attributes, by their field
_LEGACY = {**{name: name for name in Reads.__struct_fields__ if name != "partitions"},
           "reads_partitions": "partitions"}


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[str] = "error"
    reads: ClassVar[Reads] = Reads()
    # JSON Schema of the rule's options (an object schema; every property has a default)
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "properties": {}, "additionalProperties": False}
    #: the message of a finding: a ``str.format`` template of named fields
    message: ClassVar[str] = ""
    #: whether ``--fix`` can resolve some of its findings (those that carry a ``fix``)
    fixable: ClassVar[bool] = False
    #: whether ``--fix`` resolves its findings on plan entries by repairing the plan (the
    #: engine attaches the repair: ``policylint.planner.repair``)
    plan_fix: ClassVar[bool] = False
    #: where the rule's documentation is published (SARIF's ``helpUri``, ``explain``); a
    #: built-in rule's is its page in docs/rules, made from its docstring
    url: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A plugin's class attributes ``targets``, ``needs``... (as written before
        ``Reads``) are read into its ``reads``."""
        super().__init_subclass__(**kwargs)
        legacy = {field: cls.__dict__[name] for name, field in _LEGACY.items()
                  if name in cls.__dict__}
        if legacy:
            cls.reads = cls.reads.but(**legacy)

    def check(self, target: Any, ctx: Any, options: dict[str, Any]) -> Iterator[Finding]:
        return iter(())

    def check_all(self, targets: Sequence[Any], ctx: Any,
                  options: dict[str, Any]) -> Iterable[Finding]:
        """``check`` of each target, in order: what the engine calls. A rule that judges
        many targets at once for less than one at a time (a CEL rule) may override it."""
        # the loop over targets in C: 10,000 manifests are 10,000 calls per rule
        return chain.from_iterable(map(self.check, targets, repeat(ctx), repeat(options)))

    def applies(self, options: dict[str, Any]) -> bool:
        """Whether the rule has anything to check with these options. A rule that is off
        until the policy gives it parameters (PL701) says no without them, and is not
        called at all."""
        return True

    def spark(self, options: dict[str, Any], policy: Any) -> Any:
        """The Spark form: a ``policylint.spark.expr.Verdict`` over rows of its frame."""
        raise NotImplementedError(f"{self.code} has no Spark form")

    def say(self, **fields: Any) -> str:
        """The message, filled in."""
        return self.message.format(**fields)

    def finding(self, message: str, at: Ref | None = None, topic: str | None = None,
                partition: int | None = None) -> Finding:
        return Finding(self.code, self.name, self.severity, message, at, topic, partition)

    @classmethod
    def documentation(cls) -> str:
        """The docstring, dedented: the rule's documentation."""
        import inspect
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def help_uri(cls) -> str | None:
        if cls.url is None and cls.__module__.startswith("policylint.rules."):
            return f"{DOCS}/{cls.code}.md"
        return cls.url

    @classmethod
    def summary(cls) -> str:
        doc = (cls.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""

    @classmethod
    def default_options(cls) -> dict[str, Any]:
        props = cls.options_schema.get("properties", {})
        return {key: spec.get("default") for key, spec in props.items()}
