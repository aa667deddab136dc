"""policylint benchmark: generates synthetic fleets under bench/out/ and prints figures.

    python bench/run.py [--partitions 1000000] [--manifests 10000]

Each figure is the wall time of a whole `policylint` process (interpreter start included),
the best of three like the decoding it is compared with, and its peak RSS, measured here,
next to the target of the issue it answers. policylint runs as users install it: from
bench/out/hook-env, a virtualenv where this checkout is installed with `pip install .`
(compiled to bytecode, no editable-install finder, no extras), as pre-commit installs it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OUT = Path(__file__).parent / "out"
ROOT = Path(__file__).parents[1]
HOOK_ENV = OUT / "hook-env"
POLICYLINT = [str(HOOK_ENV / "bin" / "policylint")]  # once hook_env() has built it
BROKERS = 30
RACKS = ["eu-1a", "eu-1b", "eu-1c"]


def rack_spread_replicas(rng: random.Random) -> list[int]:
    """Three replicas, one per rack (brokers b with b % 3 == rack index)."""
    return [rng.randrange(r, BROKERS, 3) + 1 for r in rng.sample(range(3), 3)]


def make_fleet(partitions: int, rng: random.Random) -> tuple[Path, Path]:
    """A fleet as real ones are: topics of varied sizes (1 to 300 partitions, most small),
    ~2% of partitions reassigning, and a plan moving every partition in which ~1% of the
    entries break a rule (a replication factor change, a duplicate or unknown broker)."""
    topics = []
    plan = []
    made, t = 0, 0
    while made < partitions:
        name = f"topic-{t:06d}"
        size = min(partitions - made, rng.choice([1, 3, 6, 12, 12, 24, 50, 100, 300]))
        parts = []
        for p in range(size):
            replicas = rack_spread_replicas(rng)
            part = {"partition": p, "replicas": replicas, "isr": replicas}
            if rng.random() < 0.02:  # reassigning: one replica being replaced
                extra = rng.choice([b for b in range(1, BROKERS + 1) if b not in replicas])
                part.update(replicas=replicas + [extra], adding=[extra], removing=replicas[-1:])
            parts.append(part)
            target = rack_spread_replicas(rng)
            odd = rng.random()
            if odd < 0.004:
                target = target + [target[0] % BROKERS + 1]  # RF change
            elif odd < 0.007:
                target = target[:2] + target[:1]  # duplicate broker
            elif odd < 0.01:
                target = target[:2] + [BROKERS + 7]  # unknown broker
            plan.append({"topic": name, "partition": p, "replicas": target,
                         "log_dirs": ["any"] * len(target)})
        topics.append({"name": name, "config": {"min.insync.replicas": "2"},
                       "partitions": parts})
        made += size
        t += 1
    snapshot = {"kind": "ClusterSnapshot", "version": 1, "cluster": "bench",
                "brokers": [{"id": b, "rack": RACKS[(b - 1) % 3]} for b in range(1, BROKERS + 1)],
                "config": {"min.insync.replicas": "2", "default.replication.factor": "3"},
                "topics": topics}
    snap_path, plan_path = OUT / "snapshot.json", OUT / "plan.json"
    # ending with a newline, as the tools that write them do
    snap_path.write_text(json.dumps(snapshot) + "\n")
    plan_path.write_text(json.dumps({"version": 1, "partitions": plan}) + "\n")
    os.sync()  # written through now, not while the first timed run reads them
    return snap_path, plan_path


MANIFEST = """apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaTopic
metadata:
  name: topic-{i:05d}
  labels:
    strimzi.io/cluster: bench
spec:
  partitions: {partitions}
  replicas: 3
  config:
    min.insync.replicas: {min_isr}
    retention.ms: 604800000
    cleanup.policy: delete
"""


def make_manifests(count: int, rng: random.Random) -> tuple[Path, Path]:
    docs = [MANIFEST.format(i=i, partitions=rng.choice([3, 6, 12]),
                            min_isr=2 if rng.random() > 0.01 else 3) for i in range(count)]
    multi = OUT / "manifests-multi.yaml"
    multi.write_text("---\n".join(docs))
    folder = OUT / "manifests"
    folder.mkdir(exist_ok=True)
    for i, doc in enumerate(docs):
        (folder / f"topic-{i:05d}.yaml").write_text(doc)
    return multi, folder


def git_tree(tree: Path, folder: Path) -> Path:
    """A git work tree under ``tree`` holding the files of ``folder`` in ``kafka/topics``,
    with ignore files at its top and beside them, as a repository has: the folder to lint."""
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / ".gitignore").write_text("*.log\n/build/\n.venv/\nnode_modules/\n*.tmp\n")
    topics = tree / "kafka" / "topics"
    shutil.copytree(folder, topics)
    (tree / "kafka" / ".gitignore").write_text("secret-*.yaml\n")
    return tree / "kafka"


def make_precommit(snapshot_rng: random.Random) -> list[str]:
    folder = OUT / "precommit"
    folder.mkdir(exist_ok=True)
    paths = []
    for i in range(5):
        path = folder / f"topic-{i}.yaml"
        path.write_text(MANIFEST.format(i=i, partitions=6, min_isr=2))
        paths.append(str(path))
    snap = {"kind": "ClusterSnapshot", "version": 1, "cluster": "small",
            "brokers": [{"id": b, "rack": RACKS[(b - 1) % 3]} for b in range(1, 7)],
            "config": {"min.insync.replicas": "2"},
            "topics": [{"name": f"topic-{i:05d}", "partitions": [
                {"partition": p, "replicas": [1 + p % 6, 1 + (p + 1) % 6, 1 + (p + 2) % 6],
                 "isr": [1 + p % 6, 1 + (p + 1) % 6, 1 + (p + 2) % 6]} for p in range(6)]}
                for i in range(5)]}
    path = folder / "snapshot.json"
    path.write_text(json.dumps(snap))
    return paths + [str(path)]


def make_terraform_plan(changes: int, rng: random.Random) -> Path:
    """``terraform show -json`` of a plan touching ``changes`` topics: most updated in
    place, some created, deleted or replaced."""
    entries = []
    for i in range(changes):
        before = {"name": f"topic-{i:05d}", "partitions": 6, "replication_factor": 3,
                  "config": {"retention.ms": "604800000", "min.insync.replicas": "2"}}
        after = {**before, "config": {**before["config"], "retention.ms": str(
            rng.choice([604800000, 86400000, 1209600000]))}}
        actions = rng.choices([["update"], ["create"], ["delete"], ["delete", "create"]],
                              [90, 5, 3, 2])[0]
        entries.append({"address": f'kafka_topic.t["{i}"]', "mode": "managed",
                        "type": "kafka_topic", "name": "t", "index": str(i),
                        "change": {"actions": actions,
                                   "before": None if actions == ["create"] else before,
                                   "after": None if actions == ["delete"] else after,
                                   "after_unknown": {}, "replace_paths": [["partitions"]]
                                   if "create" in actions and "delete" in actions else []}})
    path = OUT / "terraform-plan.json"
    path.write_text(json.dumps({"format_version": "1.2", "terraform_version": "1.9.5",
                                "resource_changes": entries}, indent=2) + "\n")
    return path


def make_tf_files(count: int) -> list[str]:
    folder = OUT / "terraform"
    folder.mkdir(exist_ok=True)
    paths = []
    for i in range(count):
        path = folder / f"topic-{i}.tf"
        path.write_text(f'resource "kafka_topic" "t{i}" {{\n  name               = "topic-{i}"\n'
                        f'  partitions         = 6\n  replication_factor = 3\n  config = {{\n'
                        f'    "min.insync.replicas" = "2"\n    "retention.ms"        = '
                        f'"604800000"\n  }}\n}}\n')
        paths.append(str(path))
    return paths


def timed(args: list[str], command: list[str] = POLICYLINT, env: dict | None = None
          ) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MiB of the child, exit code) of one policylint process (or
    of ``command``; exit 1, findings, is a run)."""
    start = time.perf_counter()
    done = subprocess.run(command + args, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{(command + args)[0]} failed: {done.stderr}")
    if "no Kafka topic declaration" in done.stderr:  # a run that read nothing measures nothing
        raise SystemExit(f"{' '.join(args)} read nothing: {done.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return wall, peak, done.returncode


#: the release this round's speed is held to (the 1M-entry plan lint)
PREVIOUS = "c6ea3d8"


def beside_previous(args: list[str], runs: int = 7) -> tuple[float, float, float]:
    """Median wall seconds of ``runs`` policylint processes of this checkout and of the
    previous release's code (``PREVIOUS``, from git, run by the same interpreter and
    packages), alternated so that the machine's drift falls on both; and the median of each
    pair's ratio, which a drift between pairs moves least."""
    import io
    import os
    import tarfile
    tree = OUT / f"at-{PREVIOUS}"
    if not tree.exists():
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", PREVIOUS],
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    previous = [str(HOOK_ENV / "bin" / "python"), "-m", "policylint"]
    now, then = [], []
    for _ in range(runs):
        now.append(timed(args)[0])
        then.append(timed(args, previous, env)[0])
    return statistics.median(now), statistics.median(then), \
        statistics.median(a / b for a, b in zip(now, then))


def best_of(runs: int, args: list[str]) -> tuple[float, float]:
    """(best wall seconds, peak RSS MiB) of ``runs`` policylint processes."""
    done = [timed(args) for _ in range(runs)]
    return min(wall for wall, _, _ in done), max(peak for _, peak, _ in done)


def decode_seconds(paths: list[Path], decode=json.loads) -> float:
    """The fastest decode of the files (GC paused, as policylint runs): with the decoder
    policylint uses, or another (``msgspec_seconds``)."""
    best = float("inf")
    for _ in range(3):
        texts = [p.read_bytes() for p in paths]
        gc.disable()
        start = time.perf_counter()
        for text in texts:
            decode(text)
        best = min(best, time.perf_counter() - start)
        gc.enable()
        del texts
        gc.collect()
    return best


def msgspec_seconds(paths: list[Path]) -> float | None:
    """The fastest msgspec decode of the files (untyped): the floor of the JSON path."""
    try:
        import msgspec
    except ImportError:
        return None
    return decode_seconds(paths, msgspec.json.decode)


def compose_seconds(paths: list[Path]) -> float:
    """The fastest read and compose of YAML files' nodes with PyYAML's C loader (GC paused,
    as policylint runs): the YAML floor. Each layout is measured as it is laid out: one
    multi-document file, or ten thousand files, each opened, read and composed."""
    import yaml
    best = float("inf")
    gc.disable()
    for _ in range(3):
        start = time.perf_counter()
        for path in paths:
            with open(path, encoding="utf-8") as file:
                for _node in yaml.compose_all(file.read(), Loader=yaml.CSafeLoader):
                    pass
        best = min(best, time.perf_counter() - start)
    gc.enable()
    return best


def _pip(env: Path) -> tuple[list[str], bool]:
    """``pip install`` of the virtualenv ``env``, and whether it was just made."""
    made = not (env / "bin" / "python").exists()
    if made:
        subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    return [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet"], made


def hook_env() -> Path:
    """The ``bin`` of a virtualenv holding policylint as pre-commit installs a hook
    (``pip install .``: policylint's own dependencies only, no extras, and every module
    compiled to bytecode), with this checkout reinstalled into it."""
    pip, made = _pip(HOOK_ENV)
    if not made:  # this checkout over the last one's, then what it newly depends on
        subprocess.run(pip + ["--no-deps", "--force-reinstall", str(ROOT)], check=True)
    subprocess.run(pip + [str(ROOT)], check=True)
    return HOOK_ENV / "bin"


def yamllint_env() -> Path:
    """yamllint in a virtualenv of its own, as pre-commit installs it (the release of the
    dev dependency): compared with the hook environment, not with this checkout's .venv,
    whose many packages make every interpreter start a little slower."""
    from importlib.metadata import version
    env = OUT / "yamllint-env"
    pip, made = _pip(env)
    if made:
        subprocess.run(pip + [f"yamllint=={version('yamllint')}"], check=True)
    return env / "bin" / "yamllint"


def best_process(argv: list[str], runs: int = 7) -> tuple[float, float]:
    """(best, median) wall seconds of ``runs`` processes."""
    took = [timed(argv, [])[0] for _ in range(runs)]
    return min(took), statistics.median(took)


NEW_RULES = "PL6,PL7,PL8,PL210"


def cpu_least(argvs: list[list[str]], runs: int = 9,
              command: list[str] = POLICYLINT) -> list[float]:
    """The least CPU time (user + system) of policylint (``command``) with each of
    ``argvs``, runs interleaved: CPU time is what a rule costs, and wall time on a shared
    machine varies more than the difference measured."""
    took = [[_cpu(command + argv) for argv in argvs] for _ in range(runs)]
    return [min(column) for column in zip(*took)]


def cpu_added(argvs: list[list[str]], base: list[str], runs: int = 9,
              command: list[str] = POLICYLINT) -> tuple[list[float], float]:
    """(the CPU seconds each of ``argvs`` adds to ``base``, the least of ``base``): per
    round, each run's time over the base run's beside it, the median of those ratios
    applied to the least base time. This machine's speed drifts by a third within a
    minute; two runs side by side see the same speed, the least of each does not. Every
    other round runs them in the reverse order, so a drift within a round weighs on
    neither side."""
    order = argvs + [base]
    rounds = []
    for n in range(runs):
        ran = {i: _cpu(command + order[i]) for i in
               (range(len(order)) if n % 2 == 0 else reversed(range(len(order))))}
        rounds.append([ran[i] for i in range(len(order))])
    least = min(r[-1] for r in rounds)
    return [least * (statistics.median(r[i] / r[-1] for r in rounds) - 1)
            for i in range(len(argvs))], least


def _cpu(argv: list[str]) -> float:
    """The CPU time (user + system) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_pair(args: list[str], extra: list[str], runs: int = 9) -> tuple[float, float]:
    """``cpu_least`` of policylint with ``args``, and with ``args`` plus ``extra``."""
    least, more = cpu_least([args, args + extra], runs)
    return least, more


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=1_000_000)
    parser.add_argument("--manifests", type=int, default=10_000)
    parser.add_argument("--precommit", action="store_true",
                        help="only the pre-commit figures (beside yamllint)")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    hook = hook_env()
    rng = random.Random(20261121)
    if args.precommit:
        return precommit_figures(hook, rng)

    snap, plan = make_fleet(args.partitions, rng)
    multi, folder = make_manifests(args.manifests, rng)

    decode = decode_seconds([plan, snap])
    floor = msgspec_seconds([plan, snap])
    wall, peak = best_of(3, ["lint", str(plan), "--cluster", str(snap), "--format", "json"])
    print(f"plan of {args.partitions:,} entries against a snapshot of {args.partitions:,} "
          f"partitions (all rules)")
    print(f"  decode only (json, GC paused): {decode:6.2f} s")
    if floor is not None:
        print(f"  decode only (msgspec, GC paused): {floor:6.2f} s")
    print(f"  policylint lint, whole process: {wall:6.2f} s = {wall / decode:.2f}x json decode"
          + (f" = {wall / floor:.2f}x msgspec decode (target <= 2.5x)" if floor else "")
          + f"; peak RSS {peak:,.0f} MiB (target <= 2560 MiB)")
    now, then, paired = beside_previous(["lint", str(plan), "--cluster", str(snap),
                                         "--format", "json"])
    print(f"  the same, median of 7 runs alternated with the previous release's ({PREVIOUS}): "
          f"{now:.2f} s, then {then:.2f} s ({100 * (now - then) / then:+.1f}%; the median "
          f"pair {100 * (paired - 1):+.1f}%)")
    wall, _ = best_of(3, ["lint", str(snap), "--format", "json"])
    print(f"  the snapshot itself linted (all rules): {wall:6.2f} s")

    print(f"{args.manifests:,} KafkaTopic manifests")
    for label, target, files in (("one multi-document file", multi, [multi]),
                                 ("one file each", folder, sorted(folder.glob("*.yaml")))):
        compose = compose_seconds(files)
        # bench/out/ is git-ignored: the folder is walked as a folder outside git would be
        wall, _ = best_of(3, ["lint", str(target), "--format", "json", "--no-respect-gitignore"])
        print(f"  {label}: {wall:6.2f} s = {wall / compose:.2f}x reading and composing the "
              f"same files alone (CSafeLoader: {compose:.2f} s; target <= 2x)")

    with tempfile.TemporaryDirectory(prefix="policylint-tree-") as tree:
        wall, _ = best_of(3, ["lint", str(git_tree(Path(tree), folder)), "--format", "json"])
    print(f"  one file each, in a git work tree with ignore files (what git ignores left out, "
          f"as by default): {wall:6.2f} s")

    wall, _ = best_of(3, ["lint", str(multi), "--select", "PL100", "--format", "json"])
    print(f"  reading and recognising them alone (one multi-document file, --select PL100, every "
          f"format registered): {wall:6.2f} s")

    with_new, without_new = cpu_pair(["lint", str(multi)], ["--ignore", NEW_RULES])
    print(f"  the configuration rules ({NEW_RULES}) on the multi-document file: "
          f"{with_new:.2f} s CPU with them, {without_new:.2f} s without = "
          f"+{100 * (with_new - without_new) / without_new:.1f}% (target < 10%)")

    cel_figures(multi, args.manifests)

    tf_plan = make_terraform_plan(10_000, rng)
    floor = msgspec_seconds([tf_plan])
    wall, _ = best_of(3, ["lint", str(tf_plan), "--format", "json"])
    print(f"Terraform plan of 10,000 topic changes: {wall:6.2f} s"
          + (f" = {wall / floor:.2f}x msgspec's decode of it ({floor:.3f} s; target <= 2x)"
             if floor else ""))

    precommit_figures(hook, rng)


#: ten CEL rules of a platform team (README "Rules without Python"), over topics
CEL_RULES = [
    ("topic.rf >= 3", 'topic.name.startsWith("payments.")'),
    ('topic.config[?"min.insync.replicas"].orValue(1) >= 2', None),
    ('!has(topic.partitions) || topic.partitions <= 256 || "owner" in topic.labels', None),
    ('topic.config[?"retention.ms"].orValue(0) <= 2592000000 || '
     'topic.config[?"remote.storage.enable"].orValue(false) == true', None),
    ('topic.name.matches("^[a-z][a-z0-9._-]*$")', None),
    ('topic.partitions >= 3 && topic.partitions <= 300', None),
    ('!("unclean.leader.election.enable" in topic.configs) || '
     '!topic.configs["unclean.leader.election.enable"].stated', None),
    ('topic.config[?"cleanup.policy"].orValue(["delete"]).all(p, p in ["delete", "compact"])',
     None),
    ('!has(cluster.broker_count) || topic.rf <= cluster.broker_count', None),
    ('size(topic.name) <= 120', None),
]


def cel_figures(multi: Path, manifests: int) -> None:
    """Ten CEL rules over the manifests, beside the same run without them (this checkout's
    .venv, which has the cel extra), and the cost of one evaluation in-process."""
    try:
        import cel_expr_python  # noqa: F401
    except ImportError:
        print("  CEL rules: skipped (pip install 'policylint[cel]')")
        return
    import compileall

    import yaml
    # the checkout compiled to bytecode, as pip compiles an install: no run compiles the
    # modules it imports (all runs would, where PYTHONDONTWRITEBYTECODE is set)
    compileall.compile_dir(ROOT / "policylint", quiet=1)
    rules = [{"code": f"TEAM{i + 1:02d}", "name": f"team-rule-{i + 1}", "applies_to": "topics",
              **({"matchConditions": [{"expression": match}]} if match else {}),
              "validations": [{"expression": expression, "message": "broken"}]}
             for i, (expression, match) in enumerate(CEL_RULES)]
    with_cel, without = OUT / "cel-policy.yaml", OUT / "no-cel-policy.yaml"
    with_cel.write_text(yaml.safe_dump({"cel_rules": rules}))
    without.write_text("rules: {}\n")
    args = ["lint", str(multi), "--format", "json"]
    # the rules that read no topic name: each distinct topic shape is judged once
    shaped = ",".join(rule["code"] for rule, (expression, match) in zip(rules, CEL_RULES)
                      if "topic.name" not in expression + (match or ""))
    added, base = cpu_added(
        [args + ["--policy", str(with_cel), "--select", "PL,TEAM"],
         args + ["--policy", str(with_cel), "--select", f"PL,{shaped}"]],
        args + ["--policy", str(without), "--select", "PL"], runs=15,
        command=[sys.executable, "-m", "policylint"])
    for extra, count, label in ((added[0], len(CEL_RULES), ""),
                                (added[1], shaped.count(",") + 1, " that read no topic name")):
        print(f"  {count} CEL rules{label} on the multi-document file: +{extra:.2f} s CPU on "
              f"{base:.2f} s without them = {1e6 * extra / (manifests * count):.1f} us per "
              "rule and manifest, the maps built included")
    from policylint.cel.kinds import environment as _env
    env = _env(("topic", "cluster"))
    topic = {"name": "payments.orders", "rf": 3, "partitions": 12, "stated": ["rf"],
             "config": {"min.insync.replicas": 2, "retention.ms": 604800000},
             "configs": {}, "labels": {"owner": "a"}, "annotations": {}}
    activation = env.Activation({"topic": topic, "cluster": {"broker_count": 6}})
    programs = [env.compile(e) for e, _ in CEL_RULES]
    started = time.perf_counter()
    for _ in range(2000):
        for program in programs:
            program.eval(activation)
    per = (time.perf_counter() - started) / (2000 * len(programs))
    print(f"  one CEL evaluation in-process (CEL C++): {1e6 * per:.2f} us")


def precommit_figures(hook: Path, rng: random.Random) -> None:
    """The pre-commit path beside yamllint, the linter users run next to it, on the same
    five manifests: the processes alternate, so both see the same machine."""
    precommit = make_precommit(rng)
    python = str(hook / "python")
    yamllint = yamllint_env()
    ours, theirs = [], []
    for _ in range(15):
        ours.append(timed([], [str(hook / "policylint"), "lint", *precommit])[0])
        theirs.append(timed([], [str(yamllint), *precommit[:5]])[0])
    best, median = min(ours), statistics.median(ours)
    floor, _ = best_process([python, "-c", "import yaml"], 11)
    needed, _ = best_process([python, "-c", "import typer, yaml, msgspec"], 11)
    print("pre-commit-sized run (5 manifests + 1 snapshot), installed as pre-commit installs "
          f"the hook: median {median:.3f} s, best {best:.3f} s = {best / floor:.2f}x "
          f"python -c 'import yaml' ({floor:.3f} s; target <= 2x); importing the three "
          f"libraries the run needs (typer, yaml, msgspec) alone: {needed:.3f} s = "
          f"{needed / floor:.2f}x")
    print(f"  yamllint on the same 5 manifests, installed as pre-commit installs it, alternated "
          f"with it: median {statistics.median(theirs):.3f} s, best {min(theirs):.3f} s; "
          f"policylint = {median / statistics.median(theirs):.2f}x yamllint by median "
          "(target <= 1x)")
    card, _ = best_process([python, "-c", "import yaml, jsonschema"], 11)
    three, _ = best_process([str(hook / "policylint"), "lint", *precommit[:3]], 11)
    print(f"  three manifests, as a commit brings them: best {three:.3f} s = "
          f"{three / card:.2f}x python -c 'import yaml, jsonschema' ({card:.3f} s: the design "
          f"card's import floor; target <= 1.1x)")
    imported = subprocess.run([python, "-X", "importtime", "-m", "policylint", "lint",
                               *precommit[:3]], capture_output=True, text=True).stderr
    heaviest = sorted(((int(line.split("|")[1]), line.split("|")[2].strip())
                       for line in imported.splitlines()[1:] if line.count("|") == 2
                       and line.split("|")[2].startswith(" ") and not
                       line.split("|")[2].startswith("  ")), reverse=True)[:6]
    print("  what that run imports, the heaviest (python -X importtime, cumulative): " +
          ", ".join(f"{name} {us / 1000:.1f} ms" for us, name in heaviest))
    tf_best, tf_median = best_process([str(hook / "policylint"), "lint", *make_tf_files(20)], 11)
    print(f"pre-commit on 20 .tf files: median {tf_median:.3f} s, best {tf_best:.3f} s = "
          f"{tf_best / best:.2f}x the pre-commit-sized run above (target <= 1.5x)")

if __name__ == "__main__":
    main()
