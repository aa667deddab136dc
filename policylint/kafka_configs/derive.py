"""Derives ``topic_configs.json`` from Apache Kafka's sources, one release at a time.

    python -m policylint.kafka_configs.derive --kafka-git PATH/TO/kafka/.git

For each release tag (3.0.0 ... 3.8.0) it reads the topic-level ``ConfigDef`` of
``LogConfig`` (``core/.../kafka/log/LogConfig.scala`` up to 3.4,
``storage/.../LogConfig.java`` from 3.5), resolves each name through the constants of
``TopicConfig`` (and the other classes a name refers to), and records type, validator and
whether ``TopicConfig`` marks the key ``@Deprecated``; and the broker settings a key falls
back to, in Kafka's order (``synonyms``: ``ServerTopicConfigSynonyms`` from 3.5, ``LogConfig``'s
synonym maps before). ``--trunk-as`` names the version the
repository's HEAD stands for (3.9 for a trunk cut after the 3.9 branch). Releases for which
no tagged source could be read are given as deltas (``DELTAS``) from Kafka's own upgrade
notes and ``LogConfig.java`` at the commits named there; ``--deltas-only`` re-applies them
to the shipped table without a Kafka checkout.
Validators that are code rather than data (compression levels, the compression codecs)
and defaults that are expressions are taken from ``KNOWN`` and ``DEFAULTS``, whose values
are those of ``kafka-configs.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

TAGS = ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0", "3.6.0", "3.7.0", "3.8.0"]
JAVA = "storage/src/main/java/org/apache/kafka/storage/internals/log/LogConfig.java"
SCALA = "core/src/main/scala/kafka/log/LogConfig.scala"
TOPIC_CONFIG = "clients/src/main/java/org/apache/kafka/common/config/TopicConfig.java"
# the broker settings each topic config falls back to, in order: Java from 3.5, Scala's
# AllTopicConfigSynonyms in 3.3-3.4, its TopicConfigSynonyms (the first only) before
SYNONYMS_JAVA = ("server-common/src/main/java/org/apache/kafka/server/config/"
                 "ServerTopicConfigSynonyms.java")
DYNAMIC_BROKER = "core/src/main/scala/kafka/server/DynamicBrokerConfig.scala"
#: ConfigSynonym's converters: a broker setting in hours or minutes, made milliseconds
CONVERTERS = {"HOURS_TO_MILLISECONDS": 3_600_000, "MINUTES_TO_MILLISECONDS": 60_000}
# Releases after the last tag read: (base release, {key: None to remove it, or the fields of
# its spec that change}). Sources: "Notable changes in 4.x.0" of docs/getting-started/upgrade.md
# (apache/kafka commit 1471a798, docs as of 4.3; commit 0154ac12 for 4.3's own notes),
# LogConfig.java at trunk commit 017deec6 (after 4.2) and TopicConfig's javadoc of 4.1 and 4.2.
DELTAS: dict[str, tuple[str, dict[str, dict | None]]] = {
    "4.0": ("3.9", {
        "message.format.version": None,  # KIP-724
        "message.timestamp.difference.max.ms": None,  # KIP-937: deprecated in 3.6, removed
        "message.timestamp.after.max.ms": {"default": 3600000},  # KIP-1030: 1 hour
        # removed: a running Kafka 4.0.2 to 4.4.0 answers "Unknown topic config name"
        # (bench/kafka_oracle.py), though TopicConfig's javadoc called it a deprecated no-op
        "message.downconversion.enable": None,
    }),
    # KIP-1030's segment.bytes minimum of 1 MiB (14 bytes before): a running 4.0.2 still
    # accepts 1048575, 4.1.2 refuses it (bench/kafka_oracle.py)
    "4.1": ("4.0", {"segment.bytes": {"min": 1048576}}),
    # KIP-1161 makes LIST configs stricter, but cleanup.policy keeps accepting an empty
    # list (infinite retention) and ignores repeats: its verdicts are 4.1's
    "4.2": ("4.1", {
        # listed by a running 4.2.2 and 4.3.2, not by 4.1.2 (DescribeConfigs; in no upgrade
        # notes): the most bytes a batch may decompress to; 0 is refused ("Value must be
        # at least 1")
        "max.decompressed.message.bytes": {"type": "int", "min": 1, "default": 2147483639},
    }),
    # 4.3 (May 2026): its notable changes are broker-level (KIP-1066 cordoned.log.dirs,
    # KIP-1196 coordinator buffers, KIP-1235 remote.log.metadata.topic.min.isr); no
    # topic-level config is added, removed or validated differently
    "4.3": ("4.2", {}),
    # 4.4 (its upgrade guide published): KIP-1241's remote copy lag, how far a segment's copy
    # to remote storage may trail (-1: follow the local retention; 0: copy as soon as a
    # segment rolls; the defaults 0 ms and -1 bytes, as a running 4.4.0 lists them).
    # LogConfig.validate refuses a positive lag above the effective local retention (PL607).
    "4.4": ("4.3", {
        "remote.copy.lag.ms": {"type": "long", "min": -1, "default": 0},
        # its default -1 (follow the local retention) as a running 4.4.0 lists it
        "remote.copy.lag.bytes": {"type": "long", "min": -1, "default": -1},
        # a topic config a running 4.4.0 lists (DescribeConfigs, bench/kafka_oracle.py) that
        # its upgrade notes do not name: a share group's dead-letter queue
        "errors.deadletterqueue.group.enable": {"type": "boolean", "default": False},
    }),
    # 5.0, announced (KIP-1030 part 2): higher minimums. In no window unless asked for
    # (kafka_configs.ANNOUNCED): a value only it refuses is a warning that names it.
    "5.0": ("4.4", {
        "segment.ms": {"min": 60000},
        "segment.index.bytes": {"min": 1024},
        "max.compaction.lag.ms": {"min": 60000},
    }),
}
# validators that are code, not data: their rules as Kafka states them
KNOWN = {
    "LegacyRecord.RECORD_OVERHEAD_V0": 14,
    "ZstdCompression.MIN_LEVEL": -131072,  # Zstd.minCompressionLevel() of zstd-jni
    "ZstdCompression.MAX_LEVEL": 22,
    "Deflater.BEST_SPEED": 1, "Deflater.BEST_COMPRESSION": 9,  # java.util.zip
    "compression": ["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"],
    "CompressionType.GZIP.levelValidator()": {"values": [-1], "min": 1, "max": 9},
    "CompressionType.LZ4.levelValidator()": {"min": 1, "max": 17},
    "CompressionType.ZSTD.levelValidator()": {"min": -131072, "max": 22},
}
# the same validators as other releases spell them
KNOWN["new GzipCompression.LevelValidator()"] = KNOWN["CompressionType.GZIP.levelValidator()"]
DEFAULTS = {
    "segment.bytes": 1073741824, "segment.ms": 604800000, "segment.jitter.ms": 0,
    "segment.index.bytes": 10485760, "flush.messages": 9223372036854775807,
    "flush.ms": 9223372036854775807, "retention.bytes": -1, "retention.ms": 604800000,
    "max.message.bytes": 1048588, "index.interval.bytes": 4096,
    "delete.retention.ms": 86400000, "min.compaction.lag.ms": 0,
    "max.compaction.lag.ms": 9223372036854775807, "file.delete.delay.ms": 60000,
    "min.cleanable.dirty.ratio": 0.5, "cleanup.policy": "delete",
    "unclean.leader.election.enable": False, "min.insync.replicas": 1,
    "compression.type": "producer", "compression.gzip.level": -1,
    "compression.lz4.level": 9, "compression.zstd.level": 3, "preallocate": False,
    "message.format.version": "3.0-IV1", "message.timestamp.type": "CreateTime",
    "message.timestamp.difference.max.ms": 9223372036854775807,
    "message.timestamp.before.max.ms": 9223372036854775807,
    "message.timestamp.after.max.ms": 9223372036854775807,
    "leader.replication.throttled.replicas": "", "follower.replication.throttled.replicas": "",
    "message.downconversion.enable": True, "remote.storage.enable": False,
    "local.retention.ms": -2, "local.retention.bytes": -2, "remote.log.copy.disable": False,
    "remote.log.delete.on.disable": False,
}
_LEVELS = ("LOW", "MEDIUM", "HIGH")


def show(git: str, ref: str, path: str) -> str | None:
    done = subprocess.run(["git", "--git-dir", git, "show", f"{ref}:{path}"],
                          capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def grep_constant(git: str, ref: str, name: str) -> str | None:
    """The right-hand side of ``name = ...`` anywhere in the sources at ``ref``."""
    done = subprocess.run(["git", "--git-dir", git, "grep", "-h", "-E",
                           rf"[^A-Za-z0-9_]{name}[[:space:]]*=[[:space:]]*[^=>]", ref, "--",
                           "*.java", "*.scala"],
                          capture_output=True, text=True)
    for line in done.stdout.splitlines():
        match = re.search(rf"\b{name}\s*=\s*([^=>].*?);?\s*$", line)
        if match:
            return match.group(1)
    return None


def calls(block: str) -> list[list[str]]:
    """The argument lists of the ``define(``/``defineInternal(`` calls in ``block``."""
    found = []
    for match in re.finditer(r"\bdefine(?:Internal)?\(", block):
        depth, args, start, pos = 1, [], match.end(), match.end()
        while depth:
            ch = block[pos]
            if ch == '"':
                pos = block.index('"', pos + 1)
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 1:
                args.append(block[start:pos].strip())
                start = pos + 1
            pos += 1
        args.append(block[start:pos - 1].strip())
        found.append(args)
    return found


def topic_block(git: str, ref: str) -> str:
    java = show(git, ref, JAVA)
    if java is not None and "LogConfigDef CONFIG" in java:
        start = java.index("CONFIG.", java.index("LogConfigDef CONFIG"))
        return _until(java, start, ";")
    scala = show(git, ref, SCALA)
    start = scala.index("val logConfigDef = new LogConfigDef")
    return scala[start:scala.index("logConfigDef\n  }", start)]


def _until(text: str, start: int, stop: str) -> str:
    """From ``start`` to the first ``stop`` outside strings and the parentheses opened after
    ``start``: ``";"`` ends a chain of define calls, ``")"`` the parenthesis opened just
    before ``start``."""
    pos, depth = start, 0
    while True:
        ch = text[pos]
        if ch == '"':
            pos = text.index('"', pos + 1)
        elif ch == stop and depth == 0:
            return text[start:pos]
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        pos += 1


class Resolver:
    def __init__(self, git: str, ref: str, block_file: str):
        self.git, self.ref = git, ref
        self.sources = [block_file, show(git, ref, TOPIC_CONFIG) or ""]
        self.topic_config = self.sources[1]

    def string(self, expr: str, seen: frozenset = frozenset()) -> str | None:
        """The string an expression names: a literal, or a constant followed to one (a
        constant may be defined as another class's constant of the same name)."""
        expr = expr.strip()
        if expr.startswith('"') and expr.endswith('"') and expr.count('"') == 2:
            return expr[1:-1]
        if "+" in expr:  # a prefix constant and a literal: LogConfigPrefix + "roll.hours"
            parts = [self.string(part, seen) for part in expr.split("+")]
            return None if None in parts else "".join(parts)
        name = expr.split(".")[-1]
        if not re.fullmatch(r"\w+", name):
            return None
        for i, text in enumerate(self.sources):
            if (name, i) in seen:
                continue
            match = re.search(rf"\b(?:val|String)\s+{name}\s*(?::\s*String)?\s*=\s*(.+?);?\s*$",
                              text, re.M)
            if match:
                return self.string(match.group(1), seen | {(name, i)})
        found = grep_constant(self.git, self.ref, name)
        return self.string(found, seen | {(name, -1)}) if found and (name, -1) not in seen \
            else None

    def deprecated(self, key: str) -> bool:
        declared = rf'(@Deprecated\s+)?public static final String \w+\s*=\s*"{re.escape(key)}"'
        match = re.search(declared, self.topic_config)
        return bool(match and match.group(1))


def number(expr: str, resolve: Resolver) -> int | float:
    expr = expr.strip()
    if isinstance(KNOWN.get(expr), int):
        return KNOWN[expr]
    for parse in (int, float):
        try:
            return parse(expr.rstrip("L"))
        except ValueError:
            pass
    found = grep_constant(resolve.git, resolve.ref, expr.split(".")[-1])
    if found is None:
        raise ValueError(f"{resolve.ref}: number not resolved: {expr}")
    return number(found, resolve)


def validator(expr: str, resolve: Resolver) -> dict | None:
    if expr in KNOWN:
        return dict(KNOWN[expr])
    if expr in ("null", "") or expr in _LEVELS:
        return None
    match = re.fullmatch(r"(?:ConfigDef\.)?Range\.atLeast\((.+)\)|atLeast\((.+)\)", expr)
    if match:
        return {"min": number(match.group(1) or match.group(2), resolve)}
    match = re.fullmatch(r"(?:ConfigDef\.)?(?:Range\.)?between\((.+),\s*(.+)\)", expr)
    if match:
        return {"min": number(match.group(1), resolve), "max": number(match.group(2), resolve)}
    if "CompressionCodec" in expr or "CompressionType.names" in expr:
        return {"values": KNOWN["compression"]}
    match = re.fullmatch(r"(?:ConfigDef\.)?(ValidList|ValidString)?\.?in\((.+)\)", expr, re.S)
    if match:
        values = [resolve.string(v) for v in match.group(2).split(",")]
        return {"subset" if match.group(1) == "ValidList" else "values": values}
    if "ThrottledReplicaList" in expr:
        return {"throttled_replicas": True}
    if "VersionValidator" in expr:
        return {"metadata_version": True}
    raise ValueError(f"validator not understood: {expr}")


def configs_at(git: str, ref: str) -> dict[str, dict]:
    block = topic_block(git, ref)
    resolve = Resolver(git, ref, show(git, ref, JAVA) or show(git, ref, SCALA))
    out = {}
    for args in calls(block):
        name = resolve.string(args[0])
        if name is None:
            raise ValueError(f"{ref}: name not resolved: {args[0]}")
        spec: dict = {"type": args[1].split(".")[-1].lower()}
        has_validator = len(args) > 3 and args[3] not in _LEVELS
        checked = validator(args[3], resolve) if has_validator else None
        if checked:
            spec.update(checked)
        if name in DEFAULTS:
            spec["default"] = DEFAULTS[name]
        if resolve.deprecated(name):
            spec["deprecated"] = True
        out[name] = spec
    for name, synonyms in synonyms_at(git, ref).items():
        if name in out:
            out[name]["synonyms"] = synonyms
    return dict(sorted(out.items()))


def synonyms_at(git: str, ref: str) -> dict[str, list[list]]:
    """Topic config -> its broker synonyms ``[name, factor]``, in Kafka's order, as the
    sources at ``ref`` list them."""
    java = show(git, ref, SYNONYMS_JAVA)
    if java is not None:
        return _java_synonyms(java, Resolver(git, ref, java))
    scala = show(git, ref, SCALA)
    resolve = Resolver(git, ref, scala)
    if "val AllTopicConfigSynonyms" in scala:
        block = scala[scala.index("val AllTopicConfigSynonyms"):]
        block = block[:block.index("\n  )")]
        found = {}
        for key, body in re.findall(r"(\w+) -> asList\((.*?)\)\)", block, re.S):
            found[resolve.string(key)] = [
                [resolve.string(name), CONVERTERS.get(converter, 1)] for name, converter in
                re.findall(r"new ConfigSynonym\(([\w.]+)(?:,\s*(\w+))?", body + ")")]
        return found
    # before 3.3: the first synonym, and the others from DynamicBrokerConfig's lists
    block = scala[scala.index("val TopicConfigSynonyms"):]
    block = block[:block.index("\n  )")]
    dynamic = show(git, ref, DYNAMIC_BROKER) or ""
    lists = [[resolve.string(n) for n in re.findall(r"KafkaConfig\.\w+", names)]
             for names in re.findall(r"=>\s*(?://[^\n]*)?\n?\s*List\(((?:KafkaConfig\.\w+,?\s*)+)\)",
                                     dynamic)]
    found = {}
    for key, first in re.findall(r"(\w+) -> (KafkaConfig\.\w+)", block):
        name = resolve.string(first)
        names = next((names for names in lists if names[0] == name), [name])
        found[resolve.string(key)] = [[n, _unit(n)] for n in names]
    return found


def _unit(name: str) -> int:
    """The factor that makes a broker setting of 3.0-3.2 milliseconds (KafkaConfig's getters
    then did what ConfigSynonym's converters do since)."""
    return 3_600_000 if name.endswith(".hours") else 60_000 if name.endswith(".minutes") else 1


def _java_synonyms(java: str, resolve: "Resolver") -> dict[str, list[list]]:
    prefixes = {"": "", "WithLogPrefix": "log.", "WithLogCleanerPrefix": "log.cleaner."}
    block = java[java.index("ALL_TOPIC_CONFIG_SYNONYMS"):]
    block = block[:block.index("));")]
    found = {}
    for match in re.finditer(r"\b(sameName\w*|single\w*|list\w*)\(", block):
        helper, args = match.group(1), _until(block, match.end(), ")")
        key = resolve.string(args.split(",")[0])
        kind, prefix = next((k, prefixes[helper[len(k):]]) for k in ("sameName", "single", "list")
                            if helper.startswith(k))
        if kind == "sameName":
            found[key] = [[prefix + key, 1]]
        elif kind == "single":
            found[key] = [[prefix + resolve.string(args.split(",", 1)[1]), 1]]
        else:
            found[key] = [[prefix + name, CONVERTERS.get(converter, 1)] for name, converter in
                          re.findall(r'new ConfigSynonym\("([^"]+)"(?:,\s*ConfigSynonym\.(\w+))?',
                                     args)]
    return found


#: corrections of a tagged release as its newest patch behaves, where a running Kafka
#: (bench/kafka_oracle.py) answers otherwise than the tag's sources: the table judges a
#: minor release by its newest patch
PATCHES: dict[str, dict[str, dict]] = {
    # 3.8.1 accepts lz4 levels up to 17 (the 3.8.0 tag's LogConfig said 9)
    "3.8": {"compression.lz4.level": {"max": 17}},
}


def apply_patches(versions: dict[str, dict]) -> None:
    for version, changes in PATCHES.items():
        for key, change in changes.items():
            versions[version][key].update(change)


def apply_deltas(versions: dict[str, dict]) -> None:
    """Adds each release of ``DELTAS`` to ``versions``, built from its base release."""
    for version, (base, changes) in DELTAS.items():
        specs = {k: dict(v) for k, v in versions[base].items()}
        for key, change in changes.items():
            if change is None:
                specs.pop(key)
            else:
                specs.setdefault(key, {}).update(change)
        versions[version] = specs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--kafka-git", help="an apache/kafka git directory")
    source.add_argument("--deltas-only", action="store_true",
                        help="re-apply DELTAS to the shipped table's tagged releases")
    parser.add_argument("--trunk-as", default="3.9", help="the version HEAD stands for")
    parser.add_argument("--out", default=str(Path(__file__).with_name("topic_configs.json")))
    args = parser.parse_args()
    if args.deltas_only:
        shipped = json.loads(Path(args.out).read_text())["versions"]
        versions = {v: specs for v, specs in shipped.items() if v not in DELTAS}
    else:
        versions = {tag.rsplit(".", 1)[0]: configs_at(args.kafka_git, tag) for tag in TAGS}
        versions[args.trunk_as] = configs_at(args.kafka_git, "HEAD")
    apply_patches(versions)
    apply_deltas(versions)
    Path(args.out).write_text(json.dumps(
        {"source": "Apache Kafka LogConfig/TopicConfig per release; see derive.py",
         "versions": versions}, indent=1, sort_keys=False) + "\n")
    print(f"{args.out}: {', '.join(f'{v} ({len(c)} keys)' for v, c in versions.items())}")


if __name__ == "__main__":
    main()
