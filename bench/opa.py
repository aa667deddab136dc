"""policylint beside OPA: the same rules ported to Rego (bench/rego/), the same inputs, the
same findings, whole processes.

    python bench/opa.py [--partitions 1000000] [--manifests 10000]

OPA and conftest are built from the Go module proxy into bench/out/go-bin (once; needs Go,
as the machine has it); without Go the figures are not measured and this says so. The
inputs are bench/run.py's: a plan of N entries against its N-partition snapshot, and N
Strimzi KafkaTopic documents (OPA reads them as one YAML list, decoded in Go; conftest
reads the multi-document file as policylint does). Each figure is the median of three
runs, with its peak RSS; the findings of both sides are compared before any time is
printed, and a difference stops the bench.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import run  # noqa: E402  bench/run.py: the inputs and the installed policylint

OUT, ROOT = run.OUT, run.ROOT
REGO = Path(__file__).parent / "rego"
GO_BIN = OUT / "go-bin"
OPA_VERSION = "v1.22.4"
CONFTEST_VERSION = "v0.71.1"
PLAN_RULES = "PL111,PL112,PL113,PL114,PL115,PL116,PL201"
MANIFEST_RULES = "PL209,PL301,PL302,PL303"


def tools() -> tuple[Path, Path | None] | None:
    """(opa, conftest), built once with ``go install``; None without Go."""
    go = shutil.which("go")
    if go is None:
        return None
    env = {**os.environ, "GOBIN": str(GO_BIN), "GOFLAGS": "-mod=mod"}
    found = []
    for module, version in (("github.com/open-policy-agent/opa", OPA_VERSION),
                            ("github.com/open-policy-agent/conftest", CONFTEST_VERSION)):
        binary = GO_BIN / module.rsplit("/", 1)[1]
        if not binary.exists():
            done = subprocess.run([go, "install", f"{module}@{version}"], env=env,
                                  capture_output=True, text=True)
            if done.returncode != 0:
                print(f"  {module}@{version}: not built ({done.stderr.strip()[-200:]})")
        found.append(binary if binary.exists() else None)
    return (found[0], found[1]) if found[0] else None


def measured(argv: list[str], runs: int = 3) -> tuple[float, float, str]:
    """(median wall seconds, peak RSS MiB, standard output of the last run)."""
    walls, peaks, out = [], [], ""
    for _ in range(runs):
        done = subprocess.run(["/usr/bin/time", "-f", "%e %M", *argv], capture_output=True,
                              text=True)
        wall, peak = done.stderr.strip().splitlines()[-1].split()
        walls.append(float(wall))
        peaks.append(int(peak) / 1024)
        out = done.stdout
    return statistics.median(walls), max(peaks), out


def ours(findings: list[dict], *keys: str) -> set[tuple]:
    return {tuple(f[k] for k in ("rule", *keys)) for f in findings}


def same(label: str, mine: set, theirs: set) -> None:
    if mine != theirs:
        print(f"  {label}: the findings differ: {len(mine - theirs)} only policylint's "
              f"(e.g. {sorted(mine - theirs)[:3]}), {len(theirs - mine)} only OPA's "
              f"(e.g. {sorted(theirs - mine)[:3]})")
        sys.exit(1)


def yaml_list(multi: Path) -> Path:
    """The multi-document file as one YAML list, as ``opa eval -i`` reads it."""
    listed = OUT / "manifests-list.yaml"
    items = []
    for doc in multi.read_text().split("---\n"):
        first, *rest = doc.rstrip("\n").split("\n")
        items.append("- " + first + "\n" + "".join(f"  {line}\n" for line in rest))
    listed.write_text("".join(items))
    return listed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=1_000_000)
    parser.add_argument("--manifests", type=int, default=10_000)
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    found = tools()
    print(f"policylint beside OPA {OPA_VERSION} (the same rules in Rego: bench/rego/)")
    if found is None:
        print("  not measured: no Go toolchain to build OPA with")
        return
    opa, conftest = found
    run.hook_env()
    rng = random.Random(20261121)
    snap, plan = run.make_fleet(args.partitions, rng)
    multi, _ = run.make_manifests(args.manifests, rng)

    wall, peak, out = measured([*run.POLICYLINT, "lint", str(plan), "--cluster", str(snap),
                                "--select", PLAN_RULES, "--format", "json"])
    mine = ours(json.loads(out)["findings"], "topic", "partition")
    their_wall, their_peak, out = measured(
        [str(opa), "eval", "-i", str(plan), "-d", str(REGO / "plan.rego"), "-d", str(snap),
         "data.policylint.plan.deny", "--format", "json"], runs=1 if args.partitions >= 10**6
        else 3)
    theirs = {(f["rule"], f["topic"], f["partition"])
              for f in json.loads(out)["result"][0]["expressions"][0]["value"]}
    same("plan", mine, theirs)
    print(f"plan of {args.partitions:,} entries against its snapshot ({PLAN_RULES}; "
          f"{len(mine):,} findings, the same on both sides)")
    print(f"  policylint {wall:6.2f} s, {peak:,.0f} MiB; OPA {their_wall:6.2f} s, "
          f"{their_peak:,.0f} MiB: {their_wall / wall:.1f}x faster (target >= 30x)")

    wall, peak, out = measured([*run.POLICYLINT, "lint", str(multi), "--select",
                                MANIFEST_RULES, "--format", "json"])
    mine = ours(json.loads(out)["findings"], "topic")
    listed = yaml_list(multi)
    their_wall, their_peak, out = measured(
        [str(opa), "eval", "-i", str(listed), "-d", str(REGO / "manifests.rego"),
         "data.main.findings", "--format", "json"])
    theirs = {(f["rule"], f["topic"])
              for f in json.loads(out)["result"][0]["expressions"][0]["value"]}
    same("manifests", mine, theirs)
    print(f"{args.manifests:,} Strimzi KafkaTopic documents ({MANIFEST_RULES}; {len(mine):,} "
          "findings, the same on both sides)")
    print(f"  policylint {wall:6.2f} s, {peak:,.0f} MiB; OPA decoding the YAML in Go "
          f"{their_wall:6.2f} s, {their_peak:,.0f} MiB: {their_wall / wall:.2f}x faster "
          "(target >= 3x)")
    if conftest is not None:
        ct_wall, ct_peak, out = measured([str(conftest), "test", str(multi), "-p",
                                          str(REGO / "manifests.rego"), "--output", "json"])
        theirs = {tuple(result["msg"].split(" ", 1)) for file in json.loads(out)
                  for kind in ("failures", "warnings") for result in file.get(kind) or ()}
        same("manifests (conftest)", mine, theirs)
        print(f"  conftest {CONFTEST_VERSION} on the multi-document file {ct_wall:6.2f} s, "
              f"{ct_peak:,.0f} MiB: {ct_wall / wall:.2f}x")


if __name__ == "__main__":
    main()
