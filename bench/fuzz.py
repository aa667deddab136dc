"""The fuzz campaign: hostile documents, policies and command lines against policylint's
contract, for a given time. Prints how many cases ran and every problem found, with the
seed that reproduces it (``--seed N --cases 1``).

    python bench/fuzz.py --minutes 30
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from hostile import case, check, check_plan, check_server, interrupted, plan_case, \
    server_case  # noqa: E402

KINDS = ("documents", "policy", "cel", "command", "surface", "targets", "names", "plan",
         "server", "interrupt")
#: the interrupt family runs in processes of its own, at a second a case: one case in this
#: many is one of it
INTERRUPT_EVERY = 2000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    parser.add_argument("--cases", type=int, default=0, help="stop after this many (0: time)")
    parser.add_argument("--memory", type=int, default=4096, help="address space cap, MiB")
    parser.add_argument("--seconds", type=int, default=10,
                        help="a case taking longer breaks the contract")
    parser.add_argument("--kinds", default=",".join(KINDS), help="the families to run")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    # a case that allocates without bound fails here as a MemoryError, not the machine
    limit = args.memory * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    deadline = time.monotonic() + args.minutes * 60
    ran, problems = Counter(), []
    seed = args.seed
    while time.monotonic() < deadline and (not args.cases or sum(ran.values()) < args.cases):
        quick = [k for k in kinds if k != "interrupt"]
        kind = "interrupt" if "interrupt" in kinds and (
            seed % INTERRUPT_EVERY == 0 or not quick) else quick[seed % len(quick)]
        root = Path(tempfile.mkdtemp(prefix="policylint-fuzz-"))
        try:
            if kind == "interrupt":
                problem = interrupted(random.Random(seed), root)
            elif kind == "plan":
                written, argv = plan_case(random.Random(seed))
                problem = check_plan(root, written, argv, args.seconds)
            elif kind == "server":
                written, edits = server_case(random.Random(seed))
                problem = check_server(root, written, edits, args.seconds)
            else:
                written, argv = case(random.Random(seed), kind)
                problem = check(root, written, argv, args.seconds)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        ran[kind] += 1
        if problem:
            problems.append((seed, kind, problem))
            print(f"seed {seed} ({kind}): {problem}", flush=True)
        seed += 1
        if sum(ran.values()) % 500 == 0:
            print(f"... {sum(ran.values())} cases, {len(problems)} problems", flush=True)
    print(f"{sum(ran.values())} cases ({', '.join(f'{n} {k}' for k, n in ran.items())}), "
          f"seeds {args.seed}..{seed - 1}: {len(problems)} contract breaks, "
          f"{len({p for _, _, p in problems})} distinct")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
