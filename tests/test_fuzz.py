"""The contract under generated hostile input (bench/hostile.py), on a small fixed budget:
documents, policies and command lines. ``bench/fuzz.py`` runs the same for as long as asked."""

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from hostile import case, check, interrupted  # noqa: E402


@pytest.mark.parametrize("kind", ["documents", "policy", "cel", "command", "surface",
                                  "targets", "names"])
@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_the_contract_holds(kind, rng, tmp_path_factory):
    written, args = case(rng, kind)
    assert check(tmp_path_factory.mktemp("case"), written, args) is None


@pytest.mark.parametrize("seed", range(6))
def test_an_interrupted_write_leaves_every_file_old_or_whole(seed, tmp_path):
    """SIGINT or SIGKILL at a random moment of --fix, --add-noqa, --report, --write-baseline
    (in a process of its own)."""
    import random
    assert interrupted(random.Random(seed), tmp_path) is None
