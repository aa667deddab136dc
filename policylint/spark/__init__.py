"""The fleet audit on Apache Spark: the snapshot rules as native Spark SQL transforms.

Needs the ``spark`` extra (``pip install 'policylint[spark]'``); nothing outside this package
imports pyspark, so ``policylint lint``, the pre-commit hook and the action never load it.

- ``tables``: the normalised tables (explicit ``StructType`` schemas), the one contract
  between reading and auditing;
- ``io``: every read and write (snapshot files, Parquet/JSON Lines tables, findings, summary);
- ``rules``: one ``DataFrame -> DataFrame`` transform per built-in snapshot rule;
- ``fallback``: any rule, built-in or plugin, run by the local engine once per snapshot;
- ``audit``: the pipeline: session, rules, policy, outputs.
"""
